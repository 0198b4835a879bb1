import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Document } from '../../db/entities.js';
import { InvalidRequestError, ServiceError } from '../errors.js';
import { chunkPages } from '../documents/chunker.js';
import { extractDocument } from '../documents/extract.js';
import type { HeavyWork } from '../ports/heavy-work.js';
import type { Embedder } from '../ports/embedder.js';
import type { ChunkRecord, SearchIndex } from '../ports/search-index.js';
import { analysedText, stemText } from '../text/analyse.js';
import { ensureStore } from '../stores/stores.js';
import { CATEGORIES, LANGUAGES, type Category, type Language } from '../../generated/contract-values.js';

export interface DocumentMetadata {
  subject: string;
  grade: string;
  category: Category;
  language: Language;
  year?: string;
}

export interface IngestRequest {
  store: string;
  /** Shown to users as the citation's document_name; also what identifies the document in its store. */
  name: string;
  bytes: Uint8Array;
  /** checked by ingestDocument */
  metadata: MetadataInput;
  /** Who may read the store (see ensureStore): without either, the store must be an existing shared one such as `default`. */
  owner?: string | null;
  shared?: boolean;
  /** reads the file off the event loop, within the service's budgets */
  work: HeavyWork;
  /** waits between attempts to embed the chunks while the embeddings endpoint fails (default: EMBEDDING_RETRY_DELAYS_MS) */
  embeddingRetryDelaysMs?: readonly number[];
}

export interface IngestResult {
  documentId: string;
  pages: number;
  chunks: number;
  replaced: boolean;
}


/**
 * The most characters a document's name may have: the contract's limit of the `name` part, which
 * an uploaded file's name is by default, so a file name is held to it too (the columns hold 255).
 */
export const MAX_NAME_CHARACTERS = 200;

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\x00-\x1F\x7F-\x9F]/;

/** What keeps `name` from being a document's (or an uploaded file's) name, stored and shown as text; undefined when nothing does. */
export function nameProblem(name: string): string | undefined {
  if (CONTROL.test(name) || !name.isWellFormed()) return 'contains control characters';
  // a blank or padded name would show as none, or as another document's, in citations
  if (name.trim() === '') return 'is blank';
  if (name.trim() !== name) return 'starts or ends with a space';
  const characters = [...name].length;
  if (characters > MAX_NAME_CHARACTERS) return `has ${characters} characters, more than the ${MAX_NAME_CHARACTERS} allowed`;
  return undefined;
}

/** The same store and name always give the same id, so re-ingesting replaces the document. */
export function documentId(store: string, name: string): string {
  return `doc_${createHash('sha256').update(`${store}\u0000${name}`).digest('hex').slice(0, 24)}`;
}

/** Waits between attempts while the embeddings endpoint fails: about a minute and a half in all, then ingestion gives up. */
export const EMBEDDING_RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000] as const;

/** Thrown when a document's chunks cannot get their vectors: nothing of it was indexed. */
export class EmbeddingFailedError extends Error {}

/**
 * The chunks' vectors, asking again with growing waits while the endpoint fails: a chunk is
 * never indexed without its vector, since hybrid search would silently rank it by keywords alone.
 * `outcome` says what did not happen when it gives up ("notes.pdf was not indexed").
 */
export async function embedPassages(embedder: Embedder, outcome: string, texts: string[], delays: readonly number[] = EMBEDDING_RETRY_DELAYS_MS, signal?: AbortSignal): Promise<number[][]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await embedder.embed(texts, 'passage', { signal });
    } catch (error) {
      if (!(error instanceof ServiceError) || signal?.aborted) throw error;
      const delay = delays[attempt];
      if (delay === undefined) {
        throw new EmbeddingFailedError(
          `${outcome}: the embeddings endpoint failed ${attempt + 1} times. Check that it runs (EMBEDDINGS_BASE_URL) and try again`,
          { cause: error },
        );
      }
      await sleep(delay, undefined, { signal });
    }
  }
}

/** Metadata as an operator gives it (flags, a manifest), before it is checked. */
export type MetadataInput = Partial<Record<keyof DocumentMetadata, string>>;

export function checkMetadata(metadata: MetadataInput): DocumentMetadata {
  const { subject, grade, category, language, year } = metadata;
  if (!subject?.trim()) throw new InvalidRequestError('subject is required (e.g. Science)');
  if (!grade?.trim()) throw new InvalidRequestError('grade is required (e.g. 10)');
  if (!CATEGORIES.includes(category as Category)) throw new InvalidRequestError(`category must be one of ${CATEGORIES.join(', ')}`);
  if (!LANGUAGES.includes(language as Language)) throw new InvalidRequestError(`language must be one of ${LANGUAGES.join(', ')}`);
  return { subject: subject.trim(), grade: grade.trim(), category: category as Category, language: language as Language, year: year?.trim() || undefined };
}

export interface IndexRequest {
  store: string;
  documentId: string;
  /** shown in citations */
  name: string;
  /** the file's name, which says how it is read (.pdf, .txt, .md) */
  fileName: string;
  bytes: Uint8Array;
  metadata: DocumentMetadata;
  work: HeavyWork;
  /** whose share of `work` reads the file */
  owner: string;
  embeddingRetryDelaysMs?: readonly number[];
  /** runs once the file was read, before anything is written (the store is made then, not for a file that cannot be read) */
  beforeWrite?: () => Promise<unknown>;
  /** stops the reading and the embedding (the upload was deleted or replaced meanwhile); nothing is written after it fires */
  signal?: AbortSignal;
}

export interface IndexedRun {
  /** the ingestion run the chunks were written under */
  run: string;
  pages: number;
  chunks: number;
}

/**
 * Extracts, chunks, embeds and writes one document's chunks under a fresh run id, beside any
 * earlier run of the same document: the caller then removes the other runs (replaceOtherRuns) or
 * this one. A failed write removes what it wrote, so the index never holds half a run.
 */
export async function indexDocumentRun(index: SearchIndex, embedder: Embedder | null, request: IndexRequest): Promise<IndexedRun> {
  const { signal } = request;
  const pages = await extractDocument(request.fileName, request.bytes, request.work, request.owner, signal);
  const chunks = chunkPages(pages);
  signal?.throwIfAborted();
  await request.beforeWrite?.();
  const run = randomUUID();
  const { metadata } = request;
  // analysed as the index takes them, so the analysis of a batch overlaps the writes of others
  const records = lazyMap(chunks, (chunk): ChunkRecord => ({
    textTerms: analysedText(chunk.text),
    textStems: stemText(chunk.text),
    chunkText: chunk.text,
    documentId: request.documentId,
    documentName: request.name,
    subject: metadata.subject,
    grade: metadata.grade,
    category: metadata.category,
    language: metadata.language,
    year: metadata.year ?? '',
    pages: chunk.pages,
    chunkIndex: chunk.index,
    ingestRun: run,
  }));
  const vectors = embedder ? await embedPassages(embedder, `${request.name} was not indexed`, chunks.map((c) => c.text), request.embeddingRetryDelaysMs, signal) : undefined;
  signal?.throwIfAborted();
  try {
    await index.writeChunks(request.store, records, vectors);
  } catch (error) {
    await index.deleteChunks(request.store, { documentId: request.documentId, ingestRun: run }).catch(() => undefined);
    throw error;
  }
  return { run, pages: pages.length, chunks: chunks.length };
}

function* lazyMap<T, U>(items: readonly T[], map: (item: T) => U): Iterable<U> {
  for (const item of items) yield map(item);
}

/**
 * Extracts, chunks and indexes one document into a store, replacing an earlier version of it.
 * The new chunks are written under a fresh run id, then the document's row, and only then are
 * the old chunks removed; a failed write (of the chunks or of the row) removes what this run
 * wrote, so the store never holds a half-written document nor chunks without their row.
 */
export async function ingestDocument(em: EntityManager, index: SearchIndex, embedder: Embedder | null, request: IngestRequest): Promise<IngestResult> {
  const metadata = checkMetadata(request.metadata);
  const problem = nameProblem(request.name);
  if (problem) throw new InvalidRequestError(`the document's name ${problem}: give it another (--name, or "name" in the manifest)`);
  const id = documentId(request.store, request.name);
  // the timings an upload's document gets (created <= processing started <= finished = updated),
  // from this process's clock alone: the database's now() would be the later flush's time
  const started = new Date();
  const indexed = await indexDocumentRun(index, embedder, {
    store: request.store,
    documentId: id,
    name: request.name,
    fileName: request.name,
    bytes: request.bytes,
    metadata,
    work: request.work,
    owner: 'ingest',
    embeddingRetryDelaysMs: request.embeddingRetryDelaysMs,
    beforeWrite: () => ensureStore(em, request.store, { owner: request.owner, shared: request.shared }),
  });
  const finished = new Date();
  const values = {
    name: request.name,
    metadata: { ...metadata, year: metadata.year ?? '' },
    pageCount: indexed.pages,
    chunkCount: indexed.chunks,
    contentSha256: createHash('sha256').update(request.bytes).digest('hex'),
    ingestedAt: finished,
    sizeBytes: request.bytes.length,
    state: 'ready' as const,
    processingStartedAt: started,
    finishedAt: finished,
    updatedAt: finished,
  };
  try {
    // the old chunks go only once the row is written, in its transaction: a row that cannot be
    // written (a database error) leaves the previous version as it was
    const replaced = await em.transactional(async (tx) => {
      const existing = await tx.findOne(Document, { id });
      if (existing) tx.assign(existing, values);
      else tx.create(Document, { id, store: request.store, createdAt: started, ...values });
      await tx.flush();
      await index.deleteChunks(request.store, { documentId: id, exceptRun: indexed.run });
      return existing !== null;
    });
    return { documentId: id, pages: indexed.pages, chunks: indexed.chunks, replaced };
  } catch (error) {
    await index.deleteChunks(request.store, { documentId: id, ingestRun: indexed.run }).catch(() => undefined);
    throw error;
  }
}
