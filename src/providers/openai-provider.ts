import OpenAI from 'openai';
import { UpstreamError } from '../domain/errors.js';
import type { ChatMessage, Completion, Embedder, ModelProvider } from '../domain/ports/model-provider.js';
import type { Model } from '../generated/contract-values.js';

export interface OpenAiSettings {
  apiKey: string;
  baseUrl?: string;
  models: Record<Model, string>;
  /** null turns embeddings (and so hybrid retrieval) off */
  embeddingModel: string | null;
  timeoutMs: number;
  /** the configured models read image inputs */
  acceptsImages: boolean;
}

const EMBED_BATCH = 64;

/** Any OpenAI-compatible server, through the official SDK; every failure becomes UpstreamError. */
export class OpenAiProvider implements ModelProvider {
  private readonly client: OpenAI;
  readonly embedder: Embedder | null;
  readonly acceptsImages: boolean;

  constructor(private readonly settings: OpenAiSettings) {
    this.acceptsImages = settings.acceptsImages;
    this.client = new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, timeout: settings.timeoutMs, maxRetries: 1 });
    const embeddingModel = settings.embeddingModel;
    this.embedder = embeddingModel ? { embed: (texts) => this.embed(embeddingModel, texts) } : null;
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

  private async embed(model: string, texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    try {
      for (let start = 0; start < texts.length; start += EMBED_BATCH) {
        const response = await this.client.embeddings.create({ model, input: texts.slice(start, start + EMBED_BATCH), encoding_format: 'float' });
        for (const item of [...response.data].sort((a, b) => a.index - b.index)) vectors.push(item.embedding);
      }
    } catch (error) {
      throw new UpstreamError('model provider', { cause: error });
    }
    if (vectors.length !== texts.length) throw new UpstreamError('model provider', { cause: new Error('embedding count mismatch') });
    return vectors;
  }
}
