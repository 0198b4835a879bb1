import weaviate, { Filters, type Collection, type FilterValue, type WeaviateClient } from 'weaviate-client';
import { METADATA_KEYS } from '../generated/contract-values.js';
import { DependencyUnavailableError, ServiceError, UpstreamError } from '../domain/errors.js';
import type { ChunkRecord, ChunkSelection, CitedChunk, Hit, SearchIndex, SearchRequest, UnembeddedChunk } from '../domain/ports/search-index.js';

export const COLLECTION = 'CurriculumChunk';
const HEALTHY_FOR_MS = 5_000;
const PROBE_TIMEOUT_MS = 1_500;
/** A call slower than this gets a readiness probe beside it, so an index that went down is noticed. */
const SLOW_CALL_MS = 1_000;

/** A chunk as the collection stores it: the client wants an object with a string index. */
interface ChunkProperties extends ChunkRecord {
  [key: string]: string | number | number[];
}

const FILTER_PROPERTIES = ['documentId', 'documentName', ...METADATA_KEYS, 'ingestRun'] as const;

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

const BATCH = 100;
// Weaviate takes a batch at a time per request with little parallelism of its own: 545 chunks
// took 3.7 s in batches of 100 one after another, 1.7 s in one call and 1.2-1.7 s with several
// batches of 100 in flight (README "Performance"), which also bounds each request's size
const WRITES_IN_FLIGHT = 6;

// stems outweigh whole words: measured on the Sinhala and Tamil QA sets (recall@5 1.000 and 0.764
// against 0.976 and 0.756 with equal weights), and as good on English
export const QUERY_PROPERTIES = ['textTerms', 'textStems^4'];

// a hit's analysed copies (textTerms, textStems) are twice its text again: fetching and decoding
// them cost a query processor time and garbage for nothing
export const RETURN_PROPERTIES = ['chunkText', 'documentId', 'documentName', 'pages', ...METADATA_KEYS] satisfies (keyof CitedChunk)[];

/**
 * The chunk index in Weaviate: one collection, one tenant per store (so stores never mix and
 * each has its own keyword statistics). Connects lazily and reconnects after an outage, so the
 * service starts and recovers on its own whether or not Weaviate is up.
 */
export class WeaviateSearchIndex implements SearchIndex {
  private client: Promise<WeaviateClient> | null = null;
  private readonly tenants = new Set<string>();
  /** Until when the index counts as reachable without asking (ms since epoch). */
  private healthyUntil = 0;

  constructor(private readonly settings: IndexSettings) {}

  async writeChunks(store: string, chunks: Iterable<ChunkRecord>, vectors?: number[][]): Promise<void> {
    await this.ensureTenant(store);
    await this.use(
      async (collection, halted) => {
        const tenant = collection.withTenant(store);
        const source = chunks[Symbol.iterator]();
        let taken = 0;
        // the next batch is taken from `chunks` only when a request can go: a caller that makes its
        // records as they are taken (ingestion analyses each chunk's text) overlaps that with the writes
        const nextBatch = () => {
          halted.throwIfAborted();
          const objects: { properties: ChunkProperties; vectors?: number[] }[] = [];
          while (objects.length < BATCH) {
            const item = source.next();
            if (item.done) break;
            const vector = vectors?.[taken++];
            if (vectors && !vector?.length) throw new Error(`chunk ${taken} has no vector (${vectors.length} given): a chunk is never indexed without one`);
            const properties: ChunkProperties = { ...item.value };
            objects.push(vector ? { properties, vectors: vector } : { properties });
          }
          return objects.length > 0 ? objects : undefined;
        };
        await inLanes(WRITES_IN_FLIGHT, nextBatch, async (objects) => {
          const result = await tenant.data.insertMany(objects);
          if (result.hasErrors) {
            const first = Object.values(result.errors)[0];
            throw new Error(`the search index refused a chunk: ${first?.message ?? 'unknown error'}`);
          }
        });
      },
      // a caller that deletes what it wrote after a failure must not race batches still in flight
      { settleFirst: true },
    );
  }

  async deleteChunks(store: string, which: ChunkSelection): Promise<void> {
    if (!(await this.hasTenant(store))) return;
    await this.use(async (collection) => {
      const tenant = collection.withTenant(store);
      const conditions: FilterValue[] = [tenant.filter.byProperty('documentId').equal(which.documentId)];
      if (which.ingestRun) conditions.push(tenant.filter.byProperty('ingestRun').equal(which.ingestRun));
      if (which.exceptRun) conditions.push(tenant.filter.byProperty('ingestRun').notEqual(which.exceptRun));
      const filter = conditions.length === 1 ? conditions[0]! : Filters.and(...conditions);
      // Weaviate deletes at most QUERY_MAXIMUM_RESULTS objects a call (10,000 by default) and
      // leaves the rest: delete again until nothing matches
      for (;;) {
        const result = await tenant.data.deleteMany(filter);
        if (result.matches === 0) return;
        if (result.successful === 0) {
          throw new Error(`the search index matched ${result.matches} chunks of document ${which.documentId} but deleted none (${result.failed} failed)`);
        }
      }
    });
  }

  async dropStore(store: string): Promise<void> {
    if (!(await this.hasTenant(store))) return;
    await this.use((collection) => collection.tenants.remove([store]));
    this.tenants.delete(store);
  }

  async search(store: string, request: SearchRequest): Promise<Hit[]> {
    const text = `${request.terms} ${request.stems}`.trim();
    if (!text || !(await this.hasTenant(store))) return [];
    return this.use(async (collection) => {
      const tenant = collection.withTenant(store);
      // the filter names are the property names: subject, grade, category, language, year
      const conditions = Object.entries(request.filters)
        .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
        .map(([name, value]) => tenant.filter.byProperty(name).equal(value));
      const filters = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : Filters.and(...conditions);
      const common = { filters, limit: request.limit, returnMetadata: ['score' as const], returnProperties: RETURN_PROPERTIES };
      const hybrid = request.hybrid;
      const result = hybrid
        ? await tenant.query.hybrid(text, {
            ...common,
            vector: hybrid.vector,
            alpha: hybrid.alpha,
            fusionType: hybrid.fusion === 'ranked' ? 'Ranked' : 'RelativeScore',
            queryProperties: QUERY_PROPERTIES,
          })
        : await tenant.query.bm25(text, { ...common, queryProperties: QUERY_PROPERTIES });
      return result.objects.map((o) => ({ chunk: o.properties as CitedChunk, score: o.metadata?.score ?? 0 }));
    });
  }

  async *unembeddedChunks(store: string): AsyncIterable<UnembeddedChunk> {
    if (!(await this.hasTenant(store))) return;
    // the iterator pages by object id, which adding a vector does not change, so the caller may
    // give vectors to what it has read while reading on
    const objects = await this.use((collection) =>
      Promise.resolve(collection.withTenant(store).iterator({ includeVector: true, returnProperties: ['chunkText'] })),
    );
    for await (const object of objects) {
      const vector = (object.vectors as Record<string, number[] | undefined>).default;
      if (!vector || vector.length === 0) yield { id: object.uuid, chunkText: object.properties.chunkText as string };
    }
  }

  async addVectors(store: string, vectors: { id: string; vector: number[] }[]): Promise<void> {
    await this.use(async (collection) => {
      const tenant = collection.withTenant(store);
      for (const { id, vector } of vectors) await tenant.data.update({ id, vectors: vector });
    });
  }

  /**
   * Runs `work` on the collection: an unreachable index becomes DependencyUnavailableError (503),
   * any other failure of the index UpstreamError (502), so no index error reaches callers raw.
   * `halted` aborts when the index stops answering meanwhile; with `settleFirst` the failure is
   * reported only once `work` has settled (work that honours `halted` stops taking more).
   */
  private async use<T>(work: (collection: Collection<ChunkProperties>, halted: AbortSignal) => Promise<T>, options: { settleFirst?: boolean } = {}): Promise<T> {
    let client: WeaviateClient;
    try {
      await this.probe();
      client = await this.connect();
    } catch (error) {
      this.markDown();
      throw new DependencyUnavailableError('search index', { cause: error });
    }
    const halt = new AbortController();
    try {
      const call = work(client.collections.use<string, ChunkProperties>(COLLECTION), halt.signal);
      const result = await this.unlessUnreachable(call, halt, options.settleFirst ?? false);
      this.healthyUntil = Date.now() + HEALTHY_FOR_MS;
      return result;
    } catch (error) {
      if (halt.signal.aborted || isUnreachable(error)) {
        this.markDown();
        throw error instanceof DependencyUnavailableError ? error : new DependencyUnavailableError('search index', { cause: error });
      }
      throw error instanceof ServiceError ? error : new UpstreamError('search index', { cause: error });
    }
  }

  /**
   * The client retries an unreachable gRPC server for many seconds; a quick readiness check
   * first, whenever the index was not seen working a moment ago, turns an outage into a prompt 503.
   */
  private async probe(): Promise<void> {
    if (Date.now() < this.healthyUntil) return;
    await this.probeNow();
  }

  private async probeNow(): Promise<void> {
    const response = await fetch(new URL('/v1/.well-known/ready', this.settings.url), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`search index not ready (HTTP ${response.status})`);
  }

  /**
   * The call's outcome, unless the index stops answering its readiness check meanwhile: a server
   * that went down right after a successful call would otherwise be retried by the gRPC client
   * for about 20 s before the caller learns of it. Then `halt` aborts, and unless `settleFirst`
   * the failure is reported at once.
   */
  private unlessUnreachable<T>(call: Promise<T>, halt: AbortController, settleFirst: boolean): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          void this.probeNow().catch((cause: unknown) => {
            const down = new DependencyUnavailableError('search index', { cause });
            halt.abort(down);
            if (!settleFirst) reject(down);
          }),
        SLOW_CALL_MS,
      );
    });
    return Promise.race([call, watchdog]).finally(() => clearTimeout(timer));
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
  private async ensureTenant(store: string): Promise<void> {
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

  /**
   * Whether the store has chunks (a tenant). A tenant once found is remembered like one this
   * process made, so a query costs one call to the index, not two. Another process may drop it
   * with its knowledge base (dropStore), but a knowledge base's id is random and never used again,
   * and a deleted store is refused (404) before it is searched.
   */
  private async hasTenant(store: string): Promise<boolean> {
    if (this.tenants.has(store)) return true;
    const found = await this.use(async (collection) => (await collection.tenants.getByName(store)) !== null);
    if (found) this.tenants.add(store);
    return found;
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

/**
 * Runs `work` on each item `next` gives until it gives none, at most `limit` at a time. After a
 * failure no further item is taken, and the first error is thrown only once every started item
 * has settled, so a caller that cleans up after a failure never races a write still under way.
 */
async function inLanes<T>(limit: number, next: () => T | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let failure: { error: unknown } | null = null;
  const lane = async () => {
    while (!failure) {
      try {
        const item = next();
        if (item === undefined) return;
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  if (failure) throw (failure as { error: unknown }).error;
}
