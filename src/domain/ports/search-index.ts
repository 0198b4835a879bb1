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
  /** When given, the search is hybrid (BM25 and vector), else BM25 only. */
  hybrid?: HybridSearch;
}

export interface HybridSearch {
  /** the question's embedding */
  vector: number[];
  /** weight of the vector ranking against BM25's: 0 is BM25 alone, 1 vectors alone */
  alpha: number;
  /** how the two rankings combine: by rank (reciprocal rank fusion) or by normalised scores */
  fusion: 'ranked' | 'relativeScore';
}

/** A stored chunk without a vector, to be embedded by the re-index command. */
export interface UnembeddedChunk {
  id: string;
  chunkText: string;
}

/** What a search returns of a chunk: what citations and answers need, not its analysed copies. */
export type CitedChunk = Pick<ChunkRecord, 'chunkText' | 'documentId' | 'documentName' | 'pages' | MetadataKey>;

export interface Hit {
  chunk: CitedChunk;
  score: number;
}

/**
 * The chunk index: each store's chunks kept apart from every other store's. An unreachable index
 * makes every operation throw DependencyUnavailableError.
 */
export interface SearchIndex {
  /**
   * Adds chunks to the store (creating it in the index when needed), with their vectors when given
   * (`vectors[i]` is the i-th chunk's). `chunks` is read as the writes go, once.
   */
  writeChunks(store: string, chunks: Iterable<ChunkRecord>, vectors?: number[][]): Promise<void>;
  deleteChunks(store: string, which: ChunkSelection): Promise<void>;
  /** Removes the store and every chunk in it (nothing happens for a store the index does not hold). */
  dropStore(store: string): Promise<void>;
  /** The store's best matches, best first; none for a store that holds nothing yet. */
  search(store: string, request: SearchRequest): Promise<Hit[]>;
  /** The store's chunks that have no vector (those indexed before hybrid retrieval), read in batches. */
  unembeddedChunks(store: string): AsyncIterable<UnembeddedChunk>;
  /** Gives stored chunks their vectors. */
  addVectors(store: string, vectors: { id: string; vector: number[] }[]): Promise<void>;
}
