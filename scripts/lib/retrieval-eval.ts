// Retrieval measured on question sets whose answering passage is known: the sample curriculum's
// questions (test/retrieval/questions.json) and the public QA sets of ../shared/eval-data (read in
// place: their licences allow evaluation, not redistribution). Used by the retrieval-quality test
// and by `npm run measure:retrieval`, which chose the hybrid settings.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import type { Embedder } from '../../src/domain/ports/embedder.js';
import type { HeavyWork } from '../../src/domain/ports/heavy-work.js';
import type { CitedChunk, MetadataFilters, SearchIndex } from '../../src/domain/ports/search-index.js';
import { HYBRID, retrieve } from '../../src/domain/retrieval/retrieve.js';
import { ensureStore } from '../../src/domain/stores/stores.js';

export interface EvalQuestion {
  question: string;
  filters: MetadataFilters;
  /** whether a retrieved chunk answers the question */
  answeredBy(chunk: CitedChunk): boolean;
}

export interface EvalDocument {
  name: string;
  bytes: Uint8Array;
  metadata: Record<string, string>;
}

export interface EvalSet {
  /** e.g. "sample curriculum, sinhala" */
  name: string;
  language: string;
  /** the documents to index; sets that share them (the sample curriculum's languages) share a store */
  corpus: string;
  documents: EvalDocument[];
  questions: EvalQuestion[];
}

const SAMPLES = resolve('samples/curriculum/manifest.json');
export const EVAL_DATA_DIR = resolve(process.env.EVAL_DATA_DIR ?? '../shared/eval-data');

/**
 * The sample curriculum's questions, one set per language, over all its documents, and a second
 * Tamil set (test/retrieval/tamil-paraphrases.json): questions over the same Tamil pages worded
 * apart from them (other inflections, compounds joined or split, other words), written before
 * retrieval was measured on them.
 */
export async function sampleSets(): Promise<EvalSet[]> {
  const manifest = JSON.parse(await readFile(SAMPLES, 'utf8')) as { file: string; name: string; metadata: Record<string, string> }[];
  const documents = await Promise.all(
    manifest.map(async (item) => ({ name: item.name, metadata: item.metadata, bytes: new Uint8Array(await readFile(resolve(dirname(SAMPLES), item.file))) })),
  );
  const set = async (name: string, language: string, file: string): Promise<EvalSet> => {
    const questions = JSON.parse(await readFile(file, 'utf8')) as SampleQuestion[];
    return { name, language, corpus: 'samples', documents, questions: questions.filter((q) => q.language === language).map(sampleQuestion) };
  };
  return Promise.all([
    ...['english', 'sinhala', 'tamil'].map((language) => set(`sample curriculum, ${language}`, language, 'test/retrieval/questions.json')),
    set('sample curriculum, tamil paraphrases', 'tamil', 'test/retrieval/tamil-paraphrases.json'),
  ]);
}

interface SampleQuestion {
  question: string;
  language: string;
  filters?: MetadataFilters;
  expect: { name: string; page: number };
}

function sampleQuestion(q: SampleQuestion): EvalQuestion {
  return {
    question: q.question,
    filters: q.filters ?? {},
    answeredBy: (chunk) => chunk.documentName === q.expect.name && chunk.pages.includes(q.expect.page),
  };
}

/** SciQ (English science, passage `support`), the Sinhala SQuAD-style set (`context`) and the Tamil IndicQuest set (its `answer`s are the passages). */
export async function sharedSets(dir = EVAL_DATA_DIR): Promise<EvalSet[]> {
  const sets: [string, string, string, string][] = [
    ['SciQ', 'english', 'sciq-test.jsonl', 'support'],
    ['Sinhala QA', 'sinhala', 'sinhala-qa.jsonl', 'context'],
    ['Tamil IndicQuest', 'tamil', 'tamil-qa.jsonl', 'answer'],
  ];
  return Promise.all(
    sets.map(async ([name, language, file, passage]) => {
      const rows = (await readFile(resolve(dir, file), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, string>);
      const metadata = { subject: 'General', grade: '10', category: 'reference', language };
      return {
        name,
        language,
        corpus: file,
        documents: rows.map((row, i) => ({ name: `${file}-${i}.txt`, metadata, bytes: new TextEncoder().encode(row[passage]) })),
        questions: rows.map((row, i) => ({ question: row.question!, filters: {}, answeredBy: (chunk: CitedChunk) => chunk.documentName === `${file}-${i}.txt` })),
      };
    }),
  );
}

export interface IndexingServices {
  em: () => EntityManager;
  index: SearchIndex;
  embedder: Embedder | null;
  work: HeavyWork;
}

/** Indexes a corpus into a shared store of its own, with vectors when an embedder is given. */
export async function indexCorpus(services: IndexingServices, store: string, documents: EvalDocument[], onDocument?: () => void): Promise<void> {
  await ensureStore(services.em(), store, { shared: true });
  for (const document of documents) {
    await ingestDocument(services.em(), services.index, services.embedder, { store, ...document, work: services.work });
    onDocument?.();
  }
}

export interface Recall {
  at1: number;
  at5: number;
  questions: number;
  /** questions answered by hybrid retrieval (the others fell back to BM25) */
  hybrid: number;
  /** the questions whose passage was not in the top five */
  misses: string[];
}

/**
 * Remembers each text's embedding, so that several settings are measured with one call per
 * question, and a passage read alike from several formats is embedded once. Texts that differ in
 * whitespace only share one: e5's tokenizer folds whitespace, so their vectors are identical (a
 * PDF's line breaks against its text's spaces).
 */
export function rememberingEmbedder(embedder: Embedder): Embedder {
  const known = new Map<string, number[]>();
  const key = (kind: string, text: string) => `${kind}\u0000${text.replace(/\s+/g, ' ').trim()}`;
  return {
    async embed(texts, kind) {
      const missing = [...new Map(texts.filter((t) => !known.has(key(kind, t))).map((t) => [key(kind, t), t])).values()];
      if (missing.length) (await embedder.embed(missing, kind)).forEach((v, i) => known.set(key(kind, missing[i]!), v));
      return texts.map((t) => known.get(key(kind, t))!);
    },
  };
}

/** Recall@1 and @5 of the service's retrieval over a set: BM25 without an embedder, else hybrid with `settings`. */
export async function recall(index: SearchIndex, embedder: Embedder | null, store: string, set: EvalSet, settings = HYBRID): Promise<Recall> {
  let at1 = 0;
  let at5 = 0;
  let hybrid = 0;
  const misses: string[] = [];
  for (const q of set.questions) {
    const { hits, mode } = await retrieve(index, embedder, { store, question: q.question, filters: q.filters, limit: 5 }, settings);
    const rank = hits.findIndex((h) => q.answeredBy(h.chunk));
    if (rank === 0) at1++;
    if (rank >= 0) at5++;
    else misses.push(q.question);
    if (mode === 'hybrid') hybrid++;
  }
  const n = set.questions.length;
  return { at1: n ? at1 / n : 0, at5: n ? at5 / n : 0, questions: n, hybrid, misses };
}
