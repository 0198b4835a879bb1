/** The public model names; configuration maps each to a provider model. */
export type PublicModel = 'svcai-fast' | 'svcai-thinking';

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/** What the service needs from a language-model provider. */
export interface ModelProvider {
  complete(model: PublicModel, messages: ChatMessage[]): Promise<Completion>;
  /** Embeddings for hybrid retrieval, or null when embeddings are turned off. */
  readonly embedder: Embedder | null;
}

export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}
