import weaviate, { Filters, type WeaviateClient } from 'weaviate-client';
import type { ChunkRecord } from '../src/domain/ports/search-index.js';
import { HYBRID } from '../src/domain/retrieval/retrieve.js';
import { COLLECTION, QUERY_PROPERTIES, RETURN_PROPERTIES } from '../src/search-index/weaviate.js';

// The references that talk to Weaviate straight through weaviate-client, with the service's
// collection and query settings but none of its code: the least a query or an import can cost.

type Properties = ChunkRecord & Record<string, string | number | number[]>;

export async function connectDirect(url: string, grpcPort: number): Promise<WeaviateClient> {
  const { hostname, port } = new URL(url);
  return weaviate.connectToCustom({ httpHost: hostname, httpPort: Number(port), grpcHost: hostname, grpcPort });
}

/** The BM25 query the service sends for these analysed words, stems and filters (top `limit`). */
export async function directBm25(client: WeaviateClient, store: string, text: string, filters: Record<string, string>, limit: number): Promise<number> {
  const tenant = client.collections.use<string, Properties>(COLLECTION).withTenant(store);
  const conditions = Object.entries(filters).map(([name, value]) => tenant.filter.byProperty(name).equal(value));
  const filter = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : Filters.and(...conditions);
  const result = await tenant.query.bm25(text, { filters: filter, limit, returnMetadata: ['score'], returnProperties: RETURN_PROPERTIES, queryProperties: QUERY_PROPERTIES });
  return result.objects.length;
}

/** The hybrid query the service sends for these words, stems, question vector and filters (top `limit`). */
export async function directHybrid(client: WeaviateClient, store: string, text: string, vector: number[], filters: Record<string, string>, limit: number): Promise<number> {
  const tenant = client.collections.use<string, Properties>(COLLECTION).withTenant(store);
  const conditions = Object.entries(filters).map(([name, value]) => tenant.filter.byProperty(name).equal(value));
  const filter = conditions.length === 0 ? undefined : conditions.length === 1 ? conditions[0] : Filters.and(...conditions);
  const fusionType = HYBRID.fusion === 'ranked' ? 'Ranked' : 'RelativeScore';
  const result = await tenant.query.hybrid(text, { filters: filter, limit, vector, alpha: HYBRID.alpha, fusionType, returnMetadata: ['score'], returnProperties: RETURN_PROPERTIES, queryProperties: QUERY_PROPERTIES });
  return result.objects.length;
}

/** Every chunk the store holds (what the service's ingestion wrote), for the raw import to write again. */
export async function readChunks(client: WeaviateClient, store: string): Promise<Properties[]> {
  const chunks: Properties[] = [];
  for await (const object of client.collections.use<string, Properties>(COLLECTION).withTenant(store).iterator()) chunks.push(object.properties as Properties);
  return chunks;
}

/** Writes the chunks into a new tenant with one client batch call; returns the seconds it took (tenant creation excluded). */
export async function rawImport(client: WeaviateClient, store: string, chunks: Properties[]): Promise<number> {
  const collection = client.collections.use<string, Properties>(COLLECTION);
  await collection.tenants.create([{ name: store }]);
  const start = performance.now();
  const result = await collection.withTenant(store).data.insertMany(chunks);
  if (result.hasErrors) throw new Error(`Weaviate refused ${Object.keys(result.errors).length} chunks of the raw import`);
  return (performance.now() - start) / 1000;
}
