import type { Embedder } from '../ports/embedder.js';
import type { SearchIndex, UnembeddedChunk } from '../ports/search-index.js';
import { embedPassages } from './ingest.js';

/** Chunks embedded per call of the endpoint and written per call of the index. */
const BATCH = 32;

export interface ReindexProgress {
  embedded: number;
  /** chunks without a vector when the run started */
  total: number;
}

/**
 * Gives every chunk of the store that has no vector (indexed before hybrid retrieval, or while
 * embeddings were off) its passage embedding, so hybrid search ranks it by meaning too. Chunks
 * that have one are left alone, so an interrupted run can simply be started again.
 */
export async function embedStore(
  index: SearchIndex,
  embedder: Embedder,
  store: string,
  onProgress: (progress: ReindexProgress) => void = () => undefined,
  retryDelaysMs?: readonly number[],
): Promise<ReindexProgress> {
  // counted first, for the progress report
  const pending: string[] = [];
  for await (const chunk of index.unembeddedChunks(store)) pending.push(chunk.id);
  const total = pending.length;
  const progress = { embedded: 0, total };
  onProgress(progress);
  let batch: UnembeddedChunk[] = [];
  const flush = async () => {
    const vectors = await embedPassages(embedder, `${progress.embedded} of ${total} chunks of store '${store}' have their vectors now`, batch.map((c) => c.chunkText), retryDelaysMs);
    await index.addVectors(store, batch.map((c, i) => ({ id: c.id, vector: vectors[i]! })));
    progress.embedded += batch.length;
    batch = [];
    onProgress(progress);
  };
  for await (const chunk of index.unembeddedChunks(store)) {
    batch.push(chunk);
    if (batch.length === BATCH) await flush();
  }
  if (batch.length) await flush();
  return progress;
}
