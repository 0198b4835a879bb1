import type { Model } from '../../generated/contract-values.js';

export type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export type ChatMessage = { role: 'system'; content: string } | { role: 'user'; content: string | ContentPart[] };

export interface Completion {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/** A completion as it is produced: pieces of its text, then the whole completion when it ends. */
export type CompletionStream = AsyncGenerator<string, Completion, undefined>;

/** What the service needs from a language-model provider. */
export interface ModelProvider {
  /** A whole completion. Aborting `signal` (the caller went away) stops the provider's work; the call then fails with the signal's reason. */
  complete(model: Model, messages: ChatMessage[], signal: AbortSignal): Promise<Completion>;
  /**
   * Starts a completion that is read as it is produced. Resolves once the provider has accepted
   * the request, so that a refusal is known before anything is passed on. Aborting `signal`
   * (the caller went away) stops the provider's work; the call then fails with the signal's reason.
   */
  stream(model: Model, messages: ChatMessage[], signal: AbortSignal): Promise<CompletionStream>;
  /** Whether the configured models read image inputs. */
  readonly acceptsImages: boolean;
}
