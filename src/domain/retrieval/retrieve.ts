import { analysedText, stemText } from '../text/analyse.js';
import type { Embedder } from '../ports/model-provider.js';
import type { Hit, MetadataFilters, SearchIndex } from '../ports/search-index.js';

export interface RetrievalRequest {
  store: string;
  question: string;
  filters: MetadataFilters;
  limit: number;
}

/**
 * The store's chunks that best match the question under the filters, best first: BM25 over the
 * analysed words and stems, hybrid with vectors when an embedder is configured.
 */
export async function retrieve(index: SearchIndex, embedder: Embedder | null, request: RetrievalRequest): Promise<Hit[]> {
  const terms = analysedText(request.question);
  const stems = stemText(request.question);
  if (!terms && !stems) return [];
  const vector = embedder ? (await embedder.embed([request.question]))[0] : undefined;
  return index.search(request.store, { terms, stems, filters: request.filters, limit: request.limit, vector });
}
