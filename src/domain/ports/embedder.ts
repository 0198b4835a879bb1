/**
 * What a text is embedded as: e5-style models embed a question and the passage that answers it
 * differently ("query: " and "passage: " prefixes, added by the embeddings server).
 */
export type EmbeddingKind = 'query' | 'passage';

/**
 * Vector embeddings for hybrid retrieval, from an embeddings endpoint of their own. An endpoint
 * that cannot be reached throws DependencyUnavailableError; one that answers with an error
 * UpstreamError.
 */
export interface Embedder {
  /**
   * One vector per text, in order. `urgent`: a question waits for them (a question's own
   * vector always is), so they get the question's short timeout and are not asked for while the
   * endpoint is failing. `signal`: the call ends, rejecting with its reason, when it fires.
   */
  embed(texts: string[], kind: EmbeddingKind, options?: { urgent?: boolean; signal?: AbortSignal }): Promise<number[][]>;
}
