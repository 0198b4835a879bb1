import weaviate, { type Collection, type WeaviateClient } from 'weaviate-client';
import { DependencyUnavailableError } from '../domain/errors.js';

export const COLLECTION = 'CurriculumChunk';
const HEALTHY_FOR_MS = 5_000;
const PROBE_TIMEOUT_MS = 1_500;

/** Properties of one chunk in the index. */
export interface ChunkProperties {
  [key: string]: string | number | number[];
  /** The chunk's words as the service's analyser produced them (see src/domain/text/analyse.ts). */
  textTerms: string;
  /** Word stems (the first grapheme clusters of Sinhala and Tamil words). */
  textStems: string;
  /** The original text with its page markers, returned in citations. */
  chunkText: string;
  documentId: string;
  documentName: string;
  subject: string;
  grade: string;
  category: string;
  language: string;
  year: string;
  pages: number[];
  chunkIndex: number;
  /** Which ingestion wrote the chunk, so a failed re-ingestion can be rolled back. */
  ingestRun: string;
}

export const FILTER_PROPERTIES = ['documentId', 'documentName', 'subject', 'grade', 'category', 'language', 'year', 'ingestRun'] as const;

export interface IndexSettings {
  url: string;
  grpcPort: number;
  apiKey?: string;
}

// Analysed text is indexed on whitespace (the analyser already split words, keeping Sinhala and
// Tamil vowel signs); metadata uses `field` tokenization, so filters are exact, case-sensitive,
// whole-value matches.
const PROPERTIES = [
  { name: 'textTerms', dataType: 'text' as const, tokenization: 'whitespace' as const },
  { name: 'textStems', dataType: 'text' as const, tokenization: 'whitespace' as const },
  { name: 'chunkText', dataType: 'text' as const, indexSearchable: false, indexFilterable: false },
  ...FILTER_PROPERTIES.map((name) => ({ name, dataType: 'text' as const, tokenization: 'field' as const, indexSearchable: false })),
  { name: 'pages', dataType: 'int[]' as const },
  { name: 'chunkIndex', dataType: 'int' as const },
];

/**
 * The chunk index in Weaviate: one collection, one tenant per store (so stores never mix and
 * each has its own keyword statistics). Connects lazily and reconnects after an outage, so the
 * service starts and recovers on its own whether or not Weaviate is up.
 */
export class SearchIndex {
  private client: Promise<WeaviateClient> | null = null;
  private readonly tenants = new Set<string>();
  /** Until when the index counts as reachable without asking (ms since epoch). */
  private healthyUntil = 0;

  constructor(private readonly settings: IndexSettings) {}

  /** Runs `work` on the collection; an unreachable index becomes DependencyUnavailableError. */
  async use<T>(work: (collection: Collection<ChunkProperties>) => Promise<T>): Promise<T> {
    let client: WeaviateClient;
    try {
      await this.probe();
      client = await this.connect();
    } catch (error) {
      this.markDown();
      throw new DependencyUnavailableError('search index', { cause: error });
    }
    try {
      const result = await work(client.collections.use<string, ChunkProperties>(COLLECTION));
      this.healthyUntil = Date.now() + HEALTHY_FOR_MS;
      return result;
    } catch (error) {
      if (isUnreachable(error)) {
        this.markDown();
        throw new DependencyUnavailableError('search index', { cause: error });
      }
      throw error;
    }
  }

  /**
   * The client retries an unreachable gRPC server for many seconds; a quick readiness check
   * first, whenever the index was not seen working a moment ago, turns an outage into a prompt 503.
   */
  private async probe(): Promise<void> {
    if (Date.now() < this.healthyUntil) return;
    const response = await fetch(new URL('/v1/.well-known/ready', this.settings.url), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`search index not ready (HTTP ${response.status})`);
  }

  private markDown(): void {
    this.healthyUntil = 0;
    this.tenants.clear();
    const client = this.client;
    this.client = null;
    void client?.then((c) => c.close()).catch(() => undefined);
  }

  /** Connects and creates or extends the schema now rather than at the first request. */
  async prepare(): Promise<void> {
    await this.use(() => Promise.resolve());
  }

  /** Creates the store's tenant when it does not exist yet. */
  async ensureTenant(store: string): Promise<void> {
    if (this.tenants.has(store)) return;
    await this.use(async (collection) => {
      if (!(await collection.tenants.getByName(store))) {
        try {
          await collection.tenants.create([{ name: store }]);
        } catch (error) {
          if (!/already exists/i.test(String(error))) throw error;
        }
      }
    });
    this.tenants.add(store);
  }

  async hasTenant(store: string): Promise<boolean> {
    if (this.tenants.has(store)) return true;
    return this.use(async (collection) => (await collection.tenants.getByName(store)) !== null);
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    if (client) await (await client.catch(() => null))?.close();
  }

  private connect(): Promise<WeaviateClient> {
    this.client ??= (async () => {
      const url = new URL(this.settings.url);
      const secure = url.protocol === 'https:';
      const client = await weaviate.connectToCustom({
        httpHost: url.hostname,
        httpPort: Number(url.port || (secure ? 443 : 80)),
        httpSecure: secure,
        grpcHost: url.hostname,
        grpcPort: this.settings.grpcPort,
        grpcSecure: secure,
        authCredentials: this.settings.apiKey ? new weaviate.ApiKey(this.settings.apiKey) : undefined,
        timeout: { init: 5, query: 20, insert: 120 },
      });
      try {
        await ensureSchema(client);
      } catch (error) {
        await client.close();
        throw error;
      }
      return client;
    })();
    return this.client;
  }
}

/** Creates the collection, or adds properties a newer version of the service needs; idempotent. */
async function ensureSchema(client: WeaviateClient): Promise<void> {
  if (!(await client.collections.exists(COLLECTION))) {
    try {
      await client.collections.create({
        name: COLLECTION,
        description: 'Chunks of curriculum documents; one tenant per store',
        multiTenancy: weaviate.configure.multiTenancy({ enabled: true }),
        vectorizers: weaviate.configure.vectors.selfProvided(),
        invertedIndex: weaviate.configure.invertedIndex({ bm25k1: 1.2, bm25b: 0.75 }),
        properties: PROPERTIES,
      });
      return;
    } catch (error) {
      // another service process created it first
      if (!/already exists/i.test(String(error))) throw error;
    }
  }
  const collection = client.collections.use(COLLECTION);
  const existing = new Set((await collection.config.get()).properties.map((p) => p.name));
  for (const property of PROPERTIES) {
    if (!existing.has(property.name)) await collection.config.addProperty(property);
  }
}

// the client does not export its error classes; their names are stable
const TRANSPORT_FAILURES = new Set(['WeaviateGRPCUnavailableError', 'WeaviateRequestTimeoutError', 'WeaviateStartUpError']);

function isUnreachable(error: unknown): boolean {
  if (error instanceof Error && TRANSPORT_FAILURES.has(error.name)) return true;
  // query and batch errors wrap the transport's failure in their message
  return /UNAVAILABLE|ECONNREFUSED|ECONNRESET|fetch failed|socket hang up|timed out/i.test(String(error));
}
