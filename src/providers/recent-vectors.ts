import { RecentResults } from '../domain/answering/memo.js';
import type { Embedder, EmbeddingKind } from '../domain/ports/embedder.js';

/** Vectors kept: a vector of 384 numbers takes about 3 KB, so about 3 MB in all. */
const SIZE = 1_000;
/** Longer texts (pasted documents) are rarely asked again. */
const MAX_LENGTH = 2_000;

/**
 * An embedder that remembers the vectors of the texts a question waits for (`urgent`: the
 * question itself, the sentences an answer is chosen among), so a question asked again, or a
 * passage retrieved again, costs no call to the endpoint. Ingestion's batches are passed
 * through: each passage is embedded once anyway. A vector depends only on the text, its kind
 * and the model, which is fixed for one embedder.
 */
export class RecentVectors implements Embedder {
  private readonly vectors = new RecentResults<number[]>(SIZE);

  constructor(private readonly embedder: Embedder) {}

  async embed(texts: string[], kind: EmbeddingKind, options: { urgent?: boolean; signal?: AbortSignal } = {}): Promise<number[][]> {
    const urgent = options.urgent ?? kind === 'query';
    if (!urgent) return this.embedder.embed(texts, kind, options);
    const keys = texts.map((text) => (text.length > MAX_LENGTH ? null : `${kind}\n${text}`));
    const known = keys.map((key) => (key === null ? undefined : this.vectors.get(key)));
    const missing = texts.filter((_, i) => known[i] === undefined);
    if (missing.length === 0) return known as number[][];
    const fetched = await this.embedder.embed(missing, kind, options);
    let next = 0;
    return known.map((vector, i) => {
      if (vector !== undefined) return vector;
      const fresh = fetched[next++]!;
      const key = keys[i];
      if (key !== null && key !== undefined) this.vectors.set(key, fresh);
      return fresh;
    });
  }
}
