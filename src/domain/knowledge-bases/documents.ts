import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Document, DocumentUpload, PlanStorageLimit, type DocumentState } from '../../db/entities.js';
import { InvalidRequestError, NotFoundError, StorageLimitError } from '../errors.js';
import { currentSubscription } from '../accounts/subscriptions.js';
import type { Principal } from '../keys/principal.js';
import type { SearchIndex } from '../ports/search-index.js';
import type { UploadedFile } from '../uploaded-file.js';
import { nameProblem, type DocumentMetadata } from '../ingestion/ingest.js';
import { knowledgeBaseFor, lockKnowledgeBase, randomId } from './knowledge-bases.js';
import { decodeCursor, encodeCursor } from '../pagination/cursor.js';

// The documents of a knowledge base: an upload stores the file and leaves the document
// `processing`; the ingestion job (./ingestion-job.ts) reads it and ends it `ready` or `failed`
// (./document-states.ts).

export interface DocumentUploadInput {
  file: UploadedFile;
  /** checked by the contract: the five metadata keys and their values */
  metadata: DocumentMetadata;
  name?: string;
}

/** The ingestion job of one upload of a document. */
export interface IngestionJob {
  documentId: string;
  revision: number;
  accountId: string;
}

/**
 * Stores a new document's file and record (`processing`), within the account's storage limits.
 * The caller's transaction commits both; the job is queued after it (see ingestionJobId).
 */
export async function addDocument(tx: EntityManager, principal: Principal, kbId: string, input: DocumentUploadInput, now: Date): Promise<{ document: Document; job: IngestionJob }> {
  const store = await knowledgeBaseFor(tx, kbId, principal, 'write');
  await lockKnowledgeBase(tx, kbId);
  checkFileName(input.file.name);
  await checkStorage(tx, principal, { documents: 1, bytes: input.file.bytes.length });
  const document = tx.create(Document, {
    id: randomId('doc_', 24),
    store,
    name: input.name ?? input.file.name,
    metadata: metadataRecord(input.metadata),
    pageCount: null,
    chunkCount: null,
    contentSha256: sha256(input.file.bytes),
    ingestedAt: null,
    state: 'processing',
    fileName: input.file.name,
    sizeBytes: input.file.bytes.length,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  });
  tx.create(DocumentUpload, { document, revision: 1, bytes: Buffer.from(input.file.bytes), createdAt: now });
  await tx.flush();
  return { document, job: { documentId: document.id, revision: 1, accountId: principal.accountId } };
}

/**
 * A new file (and metadata) for a document: it goes back to `processing` under a new revision, so
 * that a job still reading the previous file changes nothing when it ends. Its earlier chunks
 * stay found until the new ones replace them.
 */
export async function replaceDocumentFile(tx: EntityManager, principal: Principal, kbId: string, documentId: string, input: DocumentUploadInput, now: Date): Promise<{ document: Document; job: IngestionJob }> {
  await knowledgeBaseFor(tx, kbId, principal, 'write');
  checkFileName(input.file.name);
  await tx.execute('select id from document where id = ? and store_id = ? for update', [documentId, kbId]);
  const document = await tx.findOne(Document, { id: documentId, store: kbId });
  if (!document) throw documentNotFound(documentId);
  await checkStorage(tx, principal, { documents: 0, bytes: input.file.bytes.length - document.sizeBytes });
  tx.assign(document, {
    // a name given is kept; one that was only the old file's name follows the new file, as an upload's does
    name: input.name ?? (document.name === document.fileName ? input.file.name : document.name),
    metadata: metadataRecord(input.metadata),
    pageCount: null,
    chunkCount: null,
    contentSha256: sha256(input.file.bytes),
    state: 'processing',
    failureReason: null,
    fileName: input.file.name,
    sizeBytes: input.file.bytes.length,
    revision: document.revision + 1,
    updatedAt: now,
    processingStartedAt: null,
    finishedAt: null,
  });
  await tx.nativeDelete(DocumentUpload, { document: documentId });
  tx.create(DocumentUpload, { document, revision: document.revision, bytes: Buffer.from(input.file.bytes), createdAt: now });
  await tx.flush();
  return { document, job: { documentId, revision: document.revision, accountId: principal.accountId } };
}

export async function getDocument(em: EntityManager, principal: Principal, kbId: string, documentId: string): Promise<Document> {
  await knowledgeBaseFor(em, kbId, principal, 'read');
  const document = await em.findOne(Document, { id: documentId, store: kbId });
  if (!document) throw documentNotFound(documentId);
  return document;
}

/** Deletes the document, its stored file and its chunks (out of the index before this returns). */
export async function deleteDocument(em: EntityManager, index: SearchIndex, principal: Principal, kbId: string, documentId: string): Promise<void> {
  await knowledgeBaseFor(em, kbId, principal, 'write');
  await em.transactional(async (tx) => {
    const [row] = await tx.execute<{ id: string }[]>('select id from document where id = ? and store_id = ? for update', [documentId, kbId]);
    if (!row) throw documentNotFound(documentId);
    await index.deleteChunks(kbId, { documentId });
    await tx.nativeDelete(Document, { id: documentId });
  });
}

export interface DocumentQuery {
  limit: number;
  cursor?: string;
  state?: DocumentState;
  metadata: Partial<Record<keyof DocumentMetadata, string>>;
}

/** A page of the knowledge base's documents, newest first, and the cursor of the next page. */
export async function listDocuments(em: EntityManager, principal: Principal, kbId: string, query: DocumentQuery): Promise<{ documents: Document[]; nextCursor: string | null }> {
  await knowledgeBaseFor(em, kbId, principal, 'read');
  const where: Record<string, unknown> = { store: kbId };
  if (query.state) where.state = query.state;
  for (const [key, value] of Object.entries(query.metadata)) if (value !== undefined) where[`metadata`] = { ...(where.metadata as object), [key]: value };
  if (query.cursor) {
    const after = decodeCursor(query.cursor);
    where.$or = [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }];
  }
  const rows = await em.find(Document, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: query.limit + 1 });
  const documents = rows.slice(0, query.limit);
  const last = documents.at(-1);
  return { documents, nextCursor: rows.length > query.limit && last ? encodeCursor(last) : null };
}

/**
 * Refuses an upload that would pass the plan's documents or bytes per account. A transaction-scoped
 * lock on the account makes its concurrent uploads check one after another.
 */
async function checkStorage(tx: EntityManager, principal: Principal, adding: { documents: number; bytes: number }): Promise<void> {
  await lockAccountStorage(tx, principal.accountId);
  const limits = await storageLimits(tx, principal.plan.id);
  const plan = { name: principal.plan.name, kbMaxDocuments: limits.maxDocuments, kbMaxBytes: limits.maxBytes };
  const [used] = await tx.execute<{ documents: number; bytes: string }[]>(
    'select count(*)::int as documents, coalesce(sum(d.size_bytes), 0) as bytes from document d join store s on s.id = d.store_id where s.account_id = ?',
    [principal.accountId],
  );
  const documents = used?.documents ?? 0;
  const bytes = Number(used?.bytes ?? 0);
  if (documents + adding.documents > plan.kbMaxDocuments) {
    throw new StorageLimitError(
      `Storage limit reached: the ${plan.name} plan keeps at most ${plan.kbMaxDocuments} documents per account, and the account has ${documents}. Delete documents you no longer need.`,
    );
  }
  if (bytes + adding.bytes > plan.kbMaxBytes) {
    throw new StorageLimitError(
      `Storage limit reached: the ${plan.name} plan keeps at most ${plan.kbMaxBytes} bytes of files per account; the account has ${bytes} and this file is ${adding.bytes} more. Delete documents you no longer need.`,
    );
  }
}

/**
 * Makes the checks of an account's storage limits (an upload's documents and bytes, an ending
 * job's pages) wait for one another until the transaction ends. Taken after the rows the
 * transaction locks first (the knowledge base's, the document's), never before them.
 */
export async function lockAccountStorage(tx: EntityManager, accountId: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`kb-storage:${accountId}`]);
}

/** The pages limit of the account's plan, checked when a document's pages are known. */
export async function maxPagesOf(em: EntityManager, accountId: string, now: Date): Promise<number | null> {
  const subscription = await currentSubscription(em, accountId, now);
  if (!subscription?.plan.customKnowledgeBases) return null;
  return (await storageLimits(em, subscription.plan.id)).maxPages;
}

/** The plan's storage limits; none (zeros) for a plan without a row. */
async function storageLimits(em: EntityManager, planId: string): Promise<{ maxDocuments: number; maxPages: number; maxBytes: number }> {
  const row = await em.findOne(PlanStorageLimit, { plan: planId });
  return { maxDocuments: row?.maxDocuments ?? 0, maxPages: row?.maxPages ?? 0, maxBytes: row?.maxBytes ?? 0 };
}

/** A file name is shown and stored as text, and is the document's name by default: it is held to the name's rules. */
function checkFileName(name: string): void {
  const problem = nameProblem(name);
  if (problem) throw new InvalidRequestError(`The file name of part 'file' ${problem}; rename the file and upload it again.`);
}

function metadataRecord(metadata: DocumentMetadata): Record<string, string> {
  const record: Record<string, string> = { subject: metadata.subject, grade: metadata.grade, category: metadata.category, language: metadata.language };
  if (metadata.year !== undefined) record.year = metadata.year;
  return record;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function documentNotFound(documentId: string): NotFoundError {
  return new NotFoundError(`Document '${documentId}' was not found in this knowledge base.`);
}
