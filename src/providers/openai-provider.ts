import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { Stream } from 'openai/streaming';
import { UpstreamError } from '../domain/errors.js';
import type { ChatMessage, Completion, CompletionStream, ModelProvider } from '../domain/ports/model-provider.js';
import type { Model } from '../generated/contract-values.js';

export interface OpenAiSettings {
  apiKey: string;
  baseUrl?: string;
  models: Record<Model, string>;
  timeoutMs: number;
  /** the configured models read image inputs */
  acceptsImages: boolean;
}

/** Any OpenAI-compatible server, through the official SDK; every failure becomes UpstreamError. */
export class OpenAiProvider implements ModelProvider {
  private readonly client: OpenAI;
  readonly acceptsImages: boolean;

  constructor(private readonly settings: OpenAiSettings) {
    this.acceptsImages = settings.acceptsImages;
    this.client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, timeout: settings.timeoutMs, maxRetries: 1 });
  }

  async complete(model: Model, messages: ChatMessage[], signal: AbortSignal): Promise<Completion> {
    try {
      const response = await this.client.chat.completions.create({ model: this.settings.models[model], messages }, { signal });
      const text = response.choices[0]?.message?.content;
      if (typeof text !== 'string' || text.trim() === '') throw new Error('the provider returned no answer text');
      return { text: text.trim(), promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: response.usage?.completion_tokens ?? 0 };
    } catch (error) {
      throw failure(error, signal);
    }
  }

  async stream(model: Model, messages: ChatMessage[], signal: AbortSignal): Promise<CompletionStream> {
    // the SDK's own timeout ends when a stream's headers arrive: the whole answer gets the time one completion gets
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    let chunks: Stream<ChatCompletionChunk>;
    try {
      chunks = await this.client.chat.completions.create(
        { model: this.settings.models[model], messages, stream: true, stream_options: { include_usage: true } },
        { signal: AbortSignal.any([signal, deadline]) },
      );
    } catch (error) {
      throw failure(error, signal);
    }
    return readStream(chunks, signal);
  }

}

/** The caller's own abort stays what it is; anything else is the provider's failure. */
function failure(error: unknown, signal: AbortSignal): unknown {
  return signal.aborted ? signal.reason : new UpstreamError('model provider', { cause: error });
}

/** The text pieces of a streamed completion, trimmed as a whole like a complete one, then the completion. */
async function* readStream(chunks: Stream<ChatCompletionChunk>, signal: AbortSignal): CompletionStream {
  let text = '';
  // whitespace at the end of a piece is passed on only when more text follows it
  let held = '';
  let finished = false;
  let usage: ChatCompletionChunk['usage'];
  try {
    for await (const chunk of chunks) {
      usage = chunk.usage ?? usage;
      const choice = chunk.choices[0];
      if (choice?.finish_reason) finished = true;
      const piece = `${held}${choice?.delta?.content ?? ''}`;
      const body = (text === '' ? piece.trimStart() : piece).trimEnd();
      held = piece.slice(piece.trimEnd().length);
      if (body === '') continue;
      text += body;
      yield body;
    }
  } catch (error) {
    throw failure(error, signal);
  } finally {
    // ends the request when the reader stops early (its own client went away); a no-op after the end
    chunks.controller.abort();
  }
  // the SDK ends an aborted or cut stream quietly: only a finish reason says the answer is whole
  if (!finished) throw failure(new Error('the stream ended before the answer was complete'), signal);
  if (text === '') throw new UpstreamError('model provider', { cause: new Error('the provider returned no answer text') });
  return { text, promptTokens: usage?.prompt_tokens ?? 0, completionTokens: usage?.completion_tokens ?? 0 };
}
