import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { connect } from '../../src/db/orm.js';
import { migrate } from '../../src/db/migrate.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { newKey } from './support/accounts.js';
import { call, expectDocumented } from './support/contract.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Each dependency gets its own throwaway instance here, so stopping it disturbs no other test.
const dataDir = resolve(process.env.DATA_DIR ?? '.data/test', 'outage');
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PG_PORT: '54349',
  WEAVIATE_HTTP_PORT: '18110',
  WEAVIATE_GRPC_PORT: '15081',
  DATABASE_URL: '',
  WEAVIATE_URL: '',
};
const script = (name: string, command: string) => execFileSync('bash', [`scripts/${name}.sh`, command], { env, stdio: 'pipe' });
const databaseUrl = 'postgres://postgres@127.0.0.1:54349/svc';

let server: TestServer;
let key: string;

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not recover`);
}

beforeAll(async () => {
  script('postgres', 'start');
  script('weaviate', 'start');
  const orm = await connect(databaseUrl);
  await migrate(orm);
  await orm.close();
  const services = testServices({}, { WEAVIATE_URL: 'http://127.0.0.1:18110', WEAVIATE_GRPC_PORT: '15081' });
  server = await startServer({ services, databaseUrl });
  key = (await newKey(server.orm)).key;
  await ingestDocument(server.orm.em.fork(), services.index, null, {
    store: 'default',
    name: 'tides.md',
    bytes: new TextEncoder().encode('--- PAGE 1 ---\nTides are caused by the gravity of the Moon and the Sun.'),
    metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' },
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  script('weaviate', 'stop');
  script('postgres', 'stop');
});

const ask = () =>
  call(`${server.url}/api/v1/dev/query`, { key, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'What causes tides?' }) });

describe('outages give 503 and the service recovers by itself', () => {
  test('search index down: 503 {detail}; back up: answers again without a restart', async () => {
    expect((await ask()).status).toBe(200);
    script('weaviate', 'stop');
    const started = Date.now();
    const down = await ask();
    expect(down.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(down.body).toEqual({ detail: 'The search index is temporarily unavailable. Please retry shortly.' });
    expectDocumented(down, 'query');
    script('weaviate', 'start');
    await waitFor(async () => (await ask()).status === 200, 'the search index');
    expect((await ask()).body).toMatchObject({ has_citations: true });
  }, 90_000);

  test('database down: 503 {detail}; back up: answers again without a restart', async () => {
    const plans = () => call(`${server.url}/api/v1/dev/plans`, { key });
    expect((await plans()).status).toBe(200);
    script('postgres', 'stop');
    const down = await plans();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: 'The database is temporarily unavailable. Please retry shortly.' });
    expectDocumented(down, 'getPlans');
    script('postgres', 'start');
    await waitFor(async () => (await plans()).status === 200, 'the database');
  }, 90_000);
});
