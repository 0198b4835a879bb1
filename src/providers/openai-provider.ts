import OpenAI from 'openai';
import { UpstreamError } from '../domain/errors.js';
import type { ChatMessage, Completion, ModelProvider } from '../domain/ports/model-provider.js';
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

  async complete(model: Model, messages: ChatMessage[]): Promise<Completion> {
    try {
      const response = await this.client.chat.completions.create({ model: this.settings.models[model], messages });
      const text = response.choices[0]?.message?.content;
      if (typeof text !== 'string' || text.trim() === '') throw new Error('the provider returned no answer text');
      return { text: text.trim(), promptTokens: response.usage?.prompt_tokens ?? 0, completionTokens: response.usage?.completion_tokens ?? 0 };
    } catch (error) {
      throw new UpstreamError('model provider', { cause: error });
    }
  }
}
