import { beforeAll, describe, expect, test } from '@jest/globals';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { migrate } from '../../src/db/migrate.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { newKey } from './support/accounts.js';
import { onCleanup } from './support/cleanup.js';
import { apiClient } from './support/contract.js';
import { runProcess, STARTUP_DEADLINE_MS } from './support/processes.js';
import { connectDatabase, startServer, testServices, type TestServer } from './support/server.js';

// Each dependency gets its own throwaway instance here, so stopping it disturbs no other test. Its
// ports are 5 above the test services' (Weaviate also takes the four above its HTTP port), so
// runs on other ports do not meet either.
const ports = {
  pg: Number(process.env.PG_PORT ?? 54339) + 5,
  weaviateHttp: Number(process.env.WEAVIATE_HTTP_PORT ?? 18090) + 5,
  weaviateGrpc: Number(process.env.WEAVIATE_GRPC_PORT ?? 15061) + 5,
};
const env = {
  ...process.env,
  DATA_DIR: resolve(process.env.DATA_DIR ?? '.data/test', 'outage'),
  PG_PORT: String(ports.pg),
  WEAVIATE_HTTP_PORT: String(ports.weaviateHttp),
  WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
  WEAVIATE_START_TIMEOUT: String(STARTUP_DEADLINE_MS / 1000),
  DATABASE_URL: '',
  WEAVIATE_URL: '',
};
// the scripts wait for readiness within STARTUP_DEADLINE_MS themselves and report why not; this
// outer deadline only catches a script that hangs
const SCRIPT_DEADLINE_MS = 2 * STARTUP_DEADLINE_MS;
async function script(name: 'postgres' | 'weaviate', command: 'start' | 'stop'): Promise<void> {
  const result = await runProcess('bash', [`scripts/${name}.sh`, command], { env, deadlineMs: SCRIPT_DEADLINE_MS });
  if (result.status !== 0) throw new Error(`scripts/${name}.sh ${command} failed (${result.status}):\n${result.stderr}`);
}
const databaseUrl = `postgres://postgres@127.0.0.1:${ports.pg}/svc`;

let server: TestServer;
let key: string;

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
  const orm = await connectDatabase(databaseUrl);
  await migrate(orm);
  await orm.close();
  const services = testServices({}, { WEAVIATE_URL: `http://127.0.0.1:${ports.weaviateHttp}`, WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc) });
  server = await startServer({ services, databaseUrl });
  key = (await newKey(server.orm)).key;
  await ingestDocument(server.orm.em.fork(), services.index, null, {
    work: services.work,
    store: 'default',
    name: 'tides.md',
    bytes: new TextEncoder().encode('--- PAGE 1 ---\nTides are caused by the gravity of the Moon and the Sun.'),
    metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' },
  });
  // two service starts, each bounded by its script's deadline, then the rest
}, 2 * SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

const ask = async () => {
  const { response, data, error } = await apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query: 'What causes tides?' } });
  return { status: response.status, body: data ?? error };
};

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
});
