import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../src/db/orm.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { newKey } from './support/accounts.js';
import { startFakeOpenAi, type FakeOpenAi } from './support/fake-openai.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { connectDatabase, databaseUrl, testServices } from './support/server.js';

// SIGTERM on the compiled service, as a deploy sends it: open requests finish within the grace
// period; past it they are cut, recorded as 503, and the process says so with its exit status.

let orm: Orm;
let fake: FakeOpenAi;
let owner: { key: string; keyId: string; accountId: string };
const STORE = `shutdown-${Math.random().toString(36).slice(2, 10)}`;

beforeAll(async () => {
  orm = await connectDatabase(databaseUrl());
  fake = await startFakeOpenAi();
  owner = await newKey(orm, { plan: 'enterprise' });
  const services = testServices();
  await ingestDocument(orm.em.fork(), services.index, null, {
    store: STORE,
    owner: owner.accountId,
    name: 'tides.md',
    bytes: new TextEncoder().encode('--- PAGE 1 ---\nTides are caused by the pull of the Moon on the oceans.'),
    metadata: { subject: 'Geography', grade: '8', category: 'short-notes', language: 'english' },
    work: services.work,
  });
  await services.index.close();
});
afterAll(() => orm.close());

function serverWithProvider(graceMs: number): Promise<ServerProcess> {
  return startServerProcess({
    OPENAI_API_KEY: 'test-provider-key',
    OPENAI_BASE_URL: fake.url,
    EMBEDDINGS_BASE_URL: '',
    SHUTDOWN_GRACE_MS: String(graceMs),
    LOG_LEVEL: 'info',
  });
}

/** Sends a query that the fake provider answers after `delayMs`, and waits until the provider has it. */
async function slowQuery(server: ServerProcess): Promise<{ answer: Promise<Response | Error> }> {
  const asked = fake.chatRequests.length;
  const pending = fetch(`${server.url}/api/v1/dev/query`, {
    method: 'POST',
    headers: { 'X-API-Key': owner.key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: 'What causes tides?', store_id: STORE }),
  }).catch((error: Error) => error);
  for (let waited = 0; fake.chatRequests.length === asked; waited += 20) {
    if (waited > 30_000) throw new Error('the query never reached the provider');
    await sleep(20);
  }
  // wrapped: an async function would wait for a promise it returns
  return { answer: pending };
}

async function lastStatus(): Promise<number | null> {
  const [row] = await orm.em
    .fork()
    .execute<{ status: number | null }[]>('select status from request_log where api_key_id = ? order by created_at desc limit 1', [owner.keyId]);
  return row?.status ?? null;
}

describe('SIGTERM', () => {
  test('an open request finishes within the grace period; the process then exits 0', async () => {
    fake.setChat(() => ({ text: 'The Moon pulls the oceans [1].', delayMs: 1500 }));
    const server = await serverWithProvider(30_000);
    const { answer } = await slowQuery(server);
    server.child.kill('SIGTERM');
    const res = await answer;
    expect(res).toBeInstanceOf(Response);
    expect((res as Response).status).toBe(200);
    expect(await (res as Response).json()).toMatchObject({ answer: 'The Moon pulls the oceans [1].' });
    expect(await server.finished).toEqual({ code: 0, signal: null });
    expect(await lastStatus()).toBe(200);
  });

  test('a request still open at the deadline is recorded as 503 and the process exits 1', async () => {
    fake.setChat(() => ({ text: 'Too late.', delayMs: 20_000 }));
    const server = await serverWithProvider(500);
    const { answer } = await slowQuery(server);
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.finished).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalled).toBeLessThan(15_000);
    // the connection was cut: the client gets no answer at all
    expect((await answer) instanceof Response).toBe(false);
    expect(await lastStatus()).toBe(503);
    expect(server.stderrTail()).toBe('');
  });
});
