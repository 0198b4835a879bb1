import { beforeAll, describe, expect, test } from '@jest/globals';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../src/db/migrate.js';
import { EmbeddingFailedError, ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { retrieve } from '../../src/domain/retrieval/retrieve.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { onCleanup } from './support/cleanup.js';
import { apiClient } from './support/contract.js';
import { SCRIPT_DEADLINE_MS, serviceScript, STARTUP_DEADLINE_MS } from './support/processes.js';
import { connectDatabase, startServer, testServices, type TestServer } from './support/server.js';

// Each dependency gets its own throwaway instance here, so stopping it disturbs no other test. Its
// ports are 5 above the test services' (Weaviate also takes the four above its HTTP port), so
// runs on other ports do not meet either.
const ports = {
  pg: Number(process.env.PG_PORT ?? 15442) + 5,
  weaviateHttp: Number(process.env.WEAVIATE_HTTP_PORT ?? 18090) + 5,
  weaviateGrpc: Number(process.env.WEAVIATE_GRPC_PORT ?? 15061) + 5,
  embeddings: Number(process.env.EMBEDDINGS_PORT ?? 18101) + 5,
};
const env = {
  ...process.env,
  DATA_DIR: resolve(process.env.DATA_DIR ?? '.data/test', 'outage'),
  PG_PORT: String(ports.pg),
  WEAVIATE_HTTP_PORT: String(ports.weaviateHttp),
  WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
  EMBEDDINGS_PORT: String(ports.embeddings),
  WEAVIATE_START_TIMEOUT: String(STARTUP_DEADLINE_MS / 1000),
  EMBEDDINGS_START_TIMEOUT: String(STARTUP_DEADLINE_MS / 1000),
  DATABASE_URL: '',
  WEAVIATE_URL: '',
  EMBEDDINGS_BASE_URL: '',
};
const script = (name: 'postgres' | 'weaviate' | 'embeddings', command: 'start' | 'stop') => serviceScript(name, command, env);
const databaseUrl = `postgres://postgres@127.0.0.1:${ports.pg}/svc`;

let server: TestServer;
let services: Services;
let key: string;
/** what the embedder reported, as the service's logger would have it */
const embeddingsLog: string[] = [];

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + STARTUP_DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not recover within ${STARTUP_DEADLINE_MS / 1000} s`);
    await sleep(200);
  }
}

beforeAll(async () => {
  // stopped after this file even when a start fails half-way (the server before them, as it was started last)
  onCleanup(() => script('postgres', 'stop'));
  await script('postgres', 'start');
  onCleanup(() => script('weaviate', 'stop'));
  await script('weaviate', 'start');
  onCleanup(() => script('embeddings', 'stop'));
  await script('embeddings', 'start');
  const orm = await connectDatabase(databaseUrl);
  await migrate(orm);
  await orm.close();
  services = testServices(
    {},
    {
      WEAVIATE_URL: `http://127.0.0.1:${ports.weaviateHttp}`,
      WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
      EMBEDDINGS_BASE_URL: `http://127.0.0.1:${ports.embeddings}/v1`,
    },
    { warn: (_details, message) => embeddingsLog.push(message), info: (_details, message) => embeddingsLog.push(message) },
  );
  server = await startServer({ services, databaseUrl });
  key = (await newKey(server.orm, { plan: 'pro' })).key; // polling while a service recovers must not meet the Free plan's 10 a minute
  await ingestDocument(server.orm.em.fork(), services.index, services.embedder, {
    work: services.work,
    store: 'default',
    name: 'tides.md',
    bytes: new TextEncoder().encode('--- PAGE 1 ---\nTides are caused by the gravity of the Moon and the Sun.'),
    metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' },
  });
  // three service starts, each bounded by its script's deadline, then the rest
}, 3 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

const ask = async (query = 'What causes tides?') => {
  const { response, data, error } = await apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query } });
  return { status: response.status, body: data ?? error, mode: response.headers.get('X-Retrieval-Mode') };
};
const tidesDocument = (name: string) => ({
  work: services.work,
  store: 'default',
  name,
  bytes: new TextEncoder().encode('--- PAGE 1 ---\nSpring tides come when the Sun and the Moon pull in a line.'),
  metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' as const },
});

describe('outages give 503 and the service recovers by itself', () => {
  test('search index down: 503 {detail}; back up: answers again without a restart', async () => {
    expect((await ask()).status).toBe(200);
    // stopped while the service's gRPC channel is open, right after a successful answer: the
    // next query must still learn of the outage within seconds, not after the client's retries
    await script('weaviate', 'stop');
    const started = Date.now();
    const down = await ask();
    expect(down.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(down.body).toEqual({ detail: 'The search index is temporarily unavailable. Please retry shortly.' });
    await script('weaviate', 'start');
    await waitFor(async () => (await ask()).status === 200, 'the search index');
    expect((await ask()).body).toMatchObject({ has_citations: true });
  }, 2 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

  test('database down: 503 {detail}; back up: answers again without a restart', async () => {
    const plans = () => apiClient(server.url, key).GET('/api/v1/dev/plans');
    expect((await plans()).response.status).toBe(200);
    await script('postgres', 'stop');
    const down = await plans();
    expect(down.response.status).toBe(503);
    expect(down.error).toEqual({ detail: 'The database is temporarily unavailable. Please retry shortly.' });
    await script('postgres', 'start');
    await waitFor(async () => (await plans()).response.status === 200, 'the database');
  }, 2 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

  test('embeddings endpoint down: queries answer from BM25, say so in X-Retrieval-Mode and the log; back up: hybrid again', async () => {
    const up = await ask();
    expect(up).toMatchObject({ status: 200, mode: 'hybrid', body: { has_citations: true } });
    await script('embeddings', 'stop');
    // a question asked before keeps its remembered vector; a new one needs the endpoint
    expect(await ask()).toMatchObject({ status: 200, mode: 'hybrid' });
    const down = await ask('Why are there tides?');
    expect(down).toMatchObject({ status: 200, mode: 'bm25', body: { has_citations: true } });
    expect(embeddingsLog).toContain('embeddings endpoint failed: queries fall back to BM25 keyword search, ingestion waits for it');
    await script('embeddings', 'start');
    let attempt = 0;
    await waitFor(async () => (await ask(`What pulls the tides? (${++attempt})`)).mode === 'hybrid', 'hybrid retrieval');
    expect(embeddingsLog.at(-1)).toBe('embeddings endpoint answers again: queries are hybrid again');
  }, 2 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

  test('ingestion while the embeddings endpoint is down waits for it, and fails clearly, indexing nothing, when it does not return', async () => {
    await script('embeddings', 'stop');
    const never = ingestDocument(server.orm.em.fork(), services.index, services.embedder, { ...tidesDocument('never.md'), embeddingRetryDelaysMs: [100, 200] });
    await expect(never).rejects.toThrow(EmbeddingFailedError);
    await expect(never).rejects.toThrow(/^never\.md was not indexed: the embeddings endpoint failed 3 times/);
    const { hits } = await retrieve(services.index, null, { store: 'default', question: 'spring tides Sun Moon line', filters: {}, limit: 5 });
    expect(hits.map((h) => h.chunk.documentName)).not.toContain('never.md');

    // the endpoint returns while ingestion waits: the document is indexed, with its vectors
    const waiting = ingestDocument(server.orm.em.fork(), services.index, services.embedder, { ...tidesDocument('later.md'), embeddingRetryDelaysMs: [2_000, 30_000, 30_000] });
    await script('embeddings', 'start');
    await expect(waiting).resolves.toMatchObject({ chunks: 1 });
    // this file's own index: every chunk in it has its vector
    const unembedded: string[] = [];
    for await (const chunk of services.index.unembeddedChunks('default')) unembedded.push(chunk.chunkText);
    expect(unembedded).toEqual([]);
    const found = await retrieve(services.index, services.embedder, { store: 'default', question: 'When do spring tides come?', filters: {}, limit: 5 });
    expect(found.mode).toBe('hybrid');
    expect(found.hits.map((h) => h.chunk.documentName)).toContain('later.md');
  }, 2 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS + 70_000);
});
