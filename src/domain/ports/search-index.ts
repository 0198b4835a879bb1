import type { MetadataKey } from '../../generated/contract-values.js';
/** The metadata a search filters on: exact, case-sensitive, whole-value matches, combined with AND. */
export type MetadataFilters = Partial<Record<MetadataKey, string>>;

/** One chunk of a document as the index keeps it. */
export interface ChunkRecord {
  /** The chunk's words as the service's analyser produced them (see src/domain/text/analyse.ts). */
  textTerms: string;
  /** Word stems (the first grapheme clusters of Sinhala and Tamil words). */
  textStems: string;
  /** The original text with its page markers, returned in citations. */
  chunkText: string;
  documentId: string;
  documentName: string;
  subject: string;
  grade: string;
  category: string;
  language: string;
  /** '' when the document has no year */
  year: string;
  pages: number[];
  chunkIndex: number;
  /** Which ingestion wrote the chunk, so a failed re-ingestion can be rolled back. */
  ingestRun: string;
}

/** Which of a document's chunks: all of them, those of one ingestion run, or all but one run. */
export interface ChunkSelection {
  documentId: string;
  ingestRun?: string;
  exceptRun?: string;
}

export interface SearchRequest {
  /** Analysed query words and stems (same analyser as at index time). */
  terms: string;
  stems: string;
  filters: MetadataFilters;
  limit: number;
  /** Query embedding: when given, the search is hybrid (BM25 + vector), else BM25 only. */
  vector?: number[];
}

export interface Hit {
  chunk: ChunkRecord;
  score: number;
}

/**
 * The chunk index: each store's chunks kept apart from every other store's. An unreachable index
 * makes every operation throw DependencyUnavailableError.
 */
export interface SearchIndex {
  /** Adds chunks to the store (creating it in the index when needed), with their vectors when given. */
  writeChunks(store: string, chunks: ChunkRecord[], vectors?: number[][]): Promise<void>;
  deleteChunks(store: string, which: ChunkSelection): Promise<void>;
  /** The store's best matches, best first; none for a store that holds nothing yet. */
  search(store: string, request: SearchRequest): Promise<Hit[]>;
}
