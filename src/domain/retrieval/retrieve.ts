import { ServiceError } from '../errors.js';
import { analysedQuestion } from '../text/analyse.js';
import type { Embedder } from '../ports/embedder.js';
import type { Hit, HybridSearch, MetadataFilters, SearchIndex } from '../ports/search-index.js';

export interface RetrievalRequest {
  store: string;
  question: string;
  filters: MetadataFilters;
  limit: number;
}

/** `hybrid`: keywords and vectors; `bm25`: keywords alone (no embeddings endpoint, or it failed). */
export type RetrievalMode = 'hybrid' | 'bm25';

export interface Retrieval {
  hits: Hit[];
  mode: RetrievalMode;
}

/**
 * How the vector and keyword rankings combine, chosen by `npm run measure:retrieval` (README "Hybrid
 * retrieval"): normalised scores with the vectors weighing 0.6 had the best recall@1 over the
 * English, Sinhala and Tamil sets together, and one setting served every language about as well
 * as each language's own best.
 */
export const HYBRID: Omit<HybridSearch, 'vector'> = { alpha: 0.6, fusion: 'relativeScore' };

/**
 * The question's first this many characters are embedded (BM25 still reads all of it): a
 * question is seldom longer, and the embeddings server's time grows with the text, 1.5 s of its
 * one thread for a 2,000-character Sinhala question here, which a key could ask 200 times a minute.
 */
export const EMBEDDED_QUESTION_CHARS = 500;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The store's chunks that best match the question under the filters, best first: hybrid (BM25
 * over the analysed words and stems, plus the question's embedding) when an embedder is
 * configured and answers, else BM25 alone. An embeddings endpoint that fails never fails the
 * query: the retrieval says it fell back to `bm25`. `settings` are for measuring others.
 */
export async function retrieve(
  index: SearchIndex,
  embedder: Embedder | null,
  request: RetrievalRequest,
  settings: Omit<HybridSearch, 'vector'> = HYBRID,
): Promise<Retrieval> {
  const { terms, stems } = analysedQuestion(request.question);
  let vector: number[] | undefined;
  if (embedder) {
    try {
      [vector] = await embedder.embed([embeddedQuestion(request.question)], 'query');
    } catch (error) {
      // the embedder reports (and logs) its endpoint's failures as ServiceErrors; anything else is a defect
      if (!(error instanceof ServiceError)) throw error;
    }
  }
  const mode: RetrievalMode = vector ? 'hybrid' : 'bm25';
  if (!terms && !stems) return { hits: [], mode };
  const hits = await index.search(request.store, { terms, stems, filters: request.filters, limit: request.limit, hybrid: vector ? { vector, ...settings } : undefined });
  return { hits, mode };
}

/** The part of a question that is embedded: its first EMBEDDED_QUESTION_CHARS characters, not cutting a surrogate pair or a grapheme cluster's marks. */
export function embeddedQuestion(question: string): string {
  if (question.length <= EMBEDDED_QUESTION_CHARS) return question;
  let cut = 0;
  for (const { index } of GRAPHEMES.segment(question)) {
    if (index > EMBEDDED_QUESTION_CHARS) break;
    cut = index;
  }
  // one cluster longer than that (marks stacked on a letter): cut it, but not inside a surrogate pair
  if (cut === 0) cut = /[\uD800-\uDBFF]/.test(question[EMBEDDED_QUESTION_CHARS - 1]!) ? EMBEDDED_QUESTION_CHARS - 1 : EMBEDDED_QUESTION_CHARS;
  return question.slice(0, cut);
}
