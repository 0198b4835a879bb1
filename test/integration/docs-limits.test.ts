import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Orm } from '../../src/db/orm.js';
import { newKey } from './support/accounts.js';
import { ManualClock } from './support/clock.js';
import { newAddress, startDocsServer, type DocsServer } from './support/docs-server.js';
import { connectDatabase } from './support/server.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// The documentation site's limits: 100 requests an hour per client address without a key, 1,000
// per key with a valid one, exact across server processes, never charged to the key's API usage.
let orm: Orm;
let docs: DocsServer;
const clock = new ManualClock('2026-04-02T10:00:00.000Z');
const processes: ServerProcess[] = [];

beforeAll(async () => {
  orm = await connectDatabase();
  docs = await startDocsServer({ clock });
  processes.push(...(await Promise.all([startServerProcess({ TRUST_PROXY: 'true' }), startServerProcess({ TRUST_PROXY: 'true' })])));
});

function get(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${url}/guides/keys.md`, { headers });
}
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe('the hourly sliding window (in one process, on a test clock)', () => {
  test('100 per address: headers count down, the 101st is 429 with Retry-After, and the window slides', async () => {
    clock.set('2026-04-02T10:00:00.000Z');
    const client = { 'X-Forwarded-For': newAddress() };
    for (let i = 0; i < 60; i++) {
      const res = await get(docs.url, client);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(99 - i));
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBe(seconds('2026-04-02T11:00:00Z'));
      await res.arrayBuffer();
    }
    clock.set('2026-04-02T10:30:00.000Z');
    for (let i = 0; i < 40; i++) expect((await get(docs.url, client)).status).toBe(200);

    const refused = await get(docs.url, client);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1800');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.json()).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.stringContaining('100 requests per hour') } });

    // another address is not held back
    expect((await get(docs.url, { 'X-Forwarded-For': newAddress() })).status).toBe(200);
    // an hour after the first 60, exactly those 60 have left the window (refusals were not counted)
    clock.set('2026-04-02T10:59:59.999Z');
    expect((await get(docs.url, client)).status).toBe(429);
    clock.set('2026-04-02T11:00:00.000Z');
    for (let i = 0; i < 60; i++) expect((await get(docs.url, client)).status).toBe(200);
    expect((await get(docs.url, client)).status).toBe(429);
  });

  test('a valid key has 1,000 an hour of its own; an invalid key counts as no key', async () => {
    clock.set('2026-04-02T13:00:00.000Z');
    const { key } = await newKey(orm);
    const address = newAddress();
    const withKey = await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': key });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(withKey.headers.get('x-ratelimit-remaining')).toBe('999');
    // the address's own allowance was untouched by the key's request
    const unknownKey = await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': `svc_${'x'.repeat(40)}` });
    expect(unknownKey.status).toBe(200);
    expect(unknownKey.headers.get('x-ratelimit-limit')).toBe('100');
    expect(unknownKey.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  test('past 60 failed keys a minute from an address, a key not seen to work is not looked up; a key outside its allow-list counts as no key', async () => {
    clock.set('2026-04-02T14:00:00.000Z');
    const known = (await newKey(orm)).key;
    const fresh = (await newKey(orm)).key;
    const address = newAddress();
    expect((await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': known })).headers.get('x-ratelimit-limit')).toBe('1000');
    for (let i = 0; i < 60; i++) {
      const res = await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': `svc_${'x'.repeat(40)}` });
      expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    }
    // the allowance no longer tells whether a guessed key is valid (it used to answer 1000 for one)
    expect((await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': fresh })).headers.get('x-ratelimit-limit')).toBe('100');
    expect((await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': known })).headers.get('x-ratelimit-limit')).toBe('1000');
    expect((await get(docs.url, { 'X-Forwarded-For': newAddress(), 'X-API-Key': fresh })).headers.get('x-ratelimit-limit')).toBe('1000');
    // a minute later the address's failures are forgotten
    clock.set('2026-04-02T14:01:00.001Z');
    expect((await get(docs.url, { 'X-Forwarded-For': address, 'X-API-Key': fresh })).headers.get('x-ratelimit-limit')).toBe('1000');

    const { key: restricted } = await newKey(orm, { allowedIps: ['203.0.113.0/24'] });
    expect((await get(docs.url, { 'X-Forwarded-For': newAddress(), 'X-API-Key': restricted })).headers.get('x-ratelimit-limit')).toBe('100');
    expect((await get(docs.url, { 'X-Forwarded-For': '203.0.113.9', 'X-API-Key': restricted })).headers.get('x-ratelimit-limit')).toBe('1000');
  });
});

describe('exact under concurrency, across two server processes', () => {
  test('without a key: exactly 100 of 130 simultaneous requests from one address are admitted', async () => {
    const client = { 'X-Forwarded-For': newAddress() };
    const responses = await Promise.all(Array.from({ length: 130 }, (_, i) => get(processes[i % 2]!.docsUrl, client)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    for (const r of responses.filter((r) => r.status === 429)) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(3500);
    // no two admitted requests saw the same slot
    const remaining = responses.filter((r) => r.status === 200).map((r) => r.headers.get('x-ratelimit-remaining'));
    expect(new Set(remaining).size).toBe(100);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
  });

  test('with a key: exactly 1,000 of 1,040 are admitted, and none is charged to the key', async () => {
    const { key, keyId } = await newKey(orm);
    const responses: Response[] = [];
    // in waves of 130 simultaneous requests, from many addresses: the key's allowance is the key's
    for (let wave = 0; wave < 8; wave++) {
      responses.push(
        ...(await Promise.all(
          Array.from({ length: 130 }, async (_, i) => {
            const res = await get(processes[i % 2]!.docsUrl, { 'X-Forwarded-For': newAddress(), 'X-API-Key': key });
            await res.arrayBuffer();
            return res;
          }),
        )),
      );
    }
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1000);
    expect(statuses.filter((s) => s === 429)).toHaveLength(40);
    expect(responses.every((r) => r.headers.get('x-ratelimit-limit') === '1000')).toBe(true);
    const em = orm.em.fork();
    const [logged] = await em.execute<{ n: number }[]>('select count(*)::int as n from request_log where api_key_id = ?', [keyId]);
    const [counted] = await em.execute<{ n: number }[]>('select count(*)::int as n from usage_counter where api_key_id = ?', [keyId]);
    expect(logged?.n).toBe(0);
    expect(counted?.n).toBe(0);
  });
});
