import type { Model } from '../../generated/contract-values.js';

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage = { role: 'system'; content: string } | { role: 'user'; content: string | ContentPart[] };

export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/** What the service needs from a language-model provider. */
export interface ModelProvider {
  complete(model: Model, messages: ChatMessage[]): Promise<Completion>;
  /** Whether the configured models read image inputs. */
  readonly acceptsImages: boolean;
}
