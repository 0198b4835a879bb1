import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey, newPlan } from './support/accounts.js';
import { ManualClock } from './support/clock.js';
import { apiClient } from './support/contract.js';
import { HASH_SECRET, startServer, type TestServer } from './support/server.js';
import { admit } from '../../src/domain/limits/limiter.js';
import { hashKey } from '../../src/domain/keys/key-format.js';
import { RequestLog } from '../../src/db/request-log.js';

let server: TestServer;
const clock = new ManualClock('2026-03-10T12:00:00.000Z');
const usage = (key: string) => apiClient(server.url, key).GET('/api/v1/dev/usage');

beforeAll(async () => {
  server = await startServer({ clock });
});

function header(res: { response: Response }, name: string): number {
  return Number(res.response.headers.get(name));
}

/** Calls the admission function directly for `key`, at the time each call names. */
function admitAt(key: string): (time: string) => ReturnType<typeof admit> {
  const requests = new RequestLog(server.orm);
  const call = { keyHash: hashKey(key, HASH_SECRET), clientIp: '127.0.0.1', request: { requestId: 'r', method: 'GET', endpoint: '/api/v1/dev/usage' } };
  return (time) => admit(requests, call, new Date(time));
}

describe('per-minute sliding window (Free: 10 per minute)', () => {
  test('admits 10, refuses the 11th with 429 and Retry-After, and slides rather than resets', async () => {
    clock.set('2026-03-10T12:00:00.000Z');
    const { key } = await newKey(server.orm, { now: clock.now() });

    // 5 requests at t=0 s, 5 at t=30 s
    for (let i = 0; i < 5; i++) {
      const res = await usage(key);
      expect(res.response.status).toBe(200);
      expect(header(res, 'x-ratelimit-limit')).toBe(10);
      expect(header(res, 'x-ratelimit-remaining')).toBe(9 - i);
      expect(header(res, 'x-ratelimit-reset')).toBe(Date.parse('2026-03-10T12:01:00Z') / 1000);
    }
    clock.advance(30_000);
    for (let i = 0; i < 5; i++) expect((await usage(key)).response.status).toBe(200);

    const refused = await usage(key);
    expect(refused.response.status).toBe(429);
    expect(refused.error).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.stringContaining('10 requests per minute') } });
    expect(header(refused, 'retry-after')).toBe(30);
    expect(header(refused, 'x-ratelimit-remaining')).toBe(0);

    // at t=59.999 s the first five are still inside the window
    clock.set('2026-03-10T12:00:59.999Z');
    expect((await usage(key)).response.status).toBe(429);
    // at t=60 s they have left it: exactly five more fit, not ten (no fixed-interval reset)
    clock.set('2026-03-10T12:01:00.000Z');
    for (let i = 0; i < 5; i++) expect((await usage(key)).response.status).toBe(200);
    const again = await usage(key);
    expect(again.response.status).toBe(429);
    expect(header(again, 'retry-after')).toBe(30);

    // refused requests were not counted: 15 admitted in all
    clock.advance(60_000);
    expect((await usage(key)).data?.total_requests).toBe(16);
  });
});

describe('per-minute window after a downgrade', () => {
  test('a window holding more than the new limit gives the time a place frees, not the oldest request\'s expiry', async () => {
    clock.set('2026-03-11T12:00:00.000Z');
    const { key, accountId } = await newKey(server.orm, { plan: 'starter', now: clock.now() });
    // Starter (20 a minute): 10 requests at t=0 s and 10 at t=20 s
    for (let i = 0; i < 10; i++) expect((await usage(key)).response.status).toBe(200);
    clock.advance(20_000);
    for (let i = 0; i < 10; i++) expect((await usage(key)).response.status).toBe(200);
    const { setSubscription } = await import('../../src/domain/accounts/accounts.js');
    clock.advance(10_000);
    await setSubscription(server.orm.em.fork(), accountId, { planCode: 'free', state: 'active' }, clock.now());
    // Free (10 a minute) at t=30 s: the ten of t=0 s leave at t=60 s and still leave ten, so a
    // place frees only when those of t=20 s leave, at t=80 s
    const refused = await usage(key);
    expect(refused.response.status).toBe(429);
    expect(header(refused, 'retry-after')).toBe(50);
    // the reset names the oldest request's exit, as everywhere
    expect(header(refused, 'x-ratelimit-reset')).toBe(Date.parse('2026-03-11T12:01:00Z') / 1000);
    clock.set('2026-03-11T12:01:19.999Z');
    expect((await usage(key)).response.status).toBe(429);
    clock.set('2026-03-11T12:01:20.000Z');
    expect((await usage(key)).response.status).toBe(200);
  });
});

describe('monthly quota (Free: 300 per month)', () => {
  test('exhausting the quota gives 429 quota_exceeded until the 1st of the next month at 00:00 UTC', async () => {
    clock.set('2026-01-31T18:00:00.000Z');
    const { key } = await newKey(server.orm, { now: clock.now() });
    for (let i = 0; i < 300; i++) {
      if (i % 10 === 0) clock.advance(61_000);
      const res = await usage(key);
      expect(res.response.status).toBe(200);
    }
    clock.advance(61_000);
    const refused = await usage(key);
    expect(refused.response.status).toBe(429);
    expect(refused.error).toEqual({ error: { code: 'quota_exceeded', message: expect.stringContaining('300 requests per month') } });
    const now = clock.now().getTime();
    expect(header(refused, 'retry-after')).toBe(Math.ceil((Date.parse('2026-02-01T00:00:00Z') - now) / 1000));
    expect(header(refused, 'x-ratelimit-remaining')).toBe(10);

    clock.set('2026-01-31T23:59:59.999Z');
    expect((await usage(key)).response.status).toBe(429);
    clock.set('2026-02-01T00:00:00.000Z');
    const reset = await usage(key);
    expect(reset.response.status).toBe(200);
    expect(reset.data).toMatchObject({ total_requests: 1, quota_remaining: 299, period_start: '2026-02-01', period_end: '2026-02-01' });
  });

  test('a plan change applies to the next request without a new key', async () => {
    clock.set('2026-04-02T08:00:00.000Z');
    const { key, accountId } = await newKey(server.orm, { now: clock.now() });
    const before = await usage(key);
    expect(header(before, 'x-ratelimit-limit')).toBe(10);
    const { setSubscription } = await import('../../src/domain/accounts/accounts.js');
    await setSubscription(server.orm.em.fork(), accountId, { planCode: 'pro', state: 'active' }, clock.now());
    const after = await usage(key);
    expect(header(after, 'x-ratelimit-limit')).toBe(60);
    expect(after.data).toMatchObject({ plan: { name: 'Pro', monthly_quota: 10000 }, total_requests: 2 });
  });
});

describe('daily limit (limiter with a plan whose day limit is below its month limit)', () => {
  test('the day resets at 00:00:00 UTC while the month keeps counting', async () => {
    const plan = await newPlan(server.orm, { perMinute: 100, perDay: 3, perMonth: 5 });
    const { key } = await newKey(server.orm, { plan, now: new Date('2026-05-01T00:00:00Z') });
    const at = admitAt(key);

    for (const t of ['2026-05-20T10:00:00Z', '2026-05-20T11:00:00Z', '2026-05-20T23:00:00Z']) expect((await at(t)).admitted).toBe(true);
    const refused = await at('2026-05-20T23:59:59Z');
    expect(refused.admitted).toBe(false);
    if (!refused.admitted) expect(refused.error).toMatchObject({ kind: 'day', data: { retryAfterSeconds: 1 } });
    // a new UTC day: the day has room again; the month (5) allows two more
    expect((await at('2026-05-21T00:00:00Z')).admitted).toBe(true);
    expect((await at('2026-05-21T00:01:00Z')).admitted).toBe(true);
    const month = await at('2026-05-21T00:02:00Z');
    expect(month.admitted).toBe(false);
    if (!month.admitted) expect(month.error).toMatchObject({ kind: 'month' });
    expect((await at('2026-06-01T00:00:00Z')).admitted).toBe(true);
  });
});

describe('the minute window counted by request numbers (Migration20261125000000)', () => {
  const logged = async (key: string) =>
    server.orm.em.fork().getConnection().execute<{ key_seq: string | null; created_at: Date }[]>(
      `select r.key_seq, r.created_at from request_log r join api_key k on k.id = r.api_key_id where k.key_hash = ? order by r.id`,
      [hashKey(key, HASH_SECRET)],
    );

  test('a request stamped earlier than its key\'s last one (a process whose clock is behind) counts from the later time', async () => {
    const plan = await newPlan(server.orm, { perMinute: 5, perDay: 100, perMonth: 100 });
    const { key } = await newKey(server.orm, { plan, now: new Date('2026-07-01T00:00:00Z') });
    const at = admitAt(key);

    expect((await at('2026-07-01T12:00:30.000Z')).admitted).toBe(true);
    for (let i = 0; i < 4; i++) expect((await at('2026-07-01T12:00:10.000Z')).admitted).toBe(true);
    const full = await at('2026-07-01T12:00:10.000Z');
    expect(full.admitted).toBe(false);
    // all five count from 12:00:30, so none leaves the window before 12:01:30
    expect((await at('2026-07-01T12:01:29.999Z')).admitted).toBe(false);
    const freed = await at('2026-07-01T12:01:30.000Z');
    expect(freed.admitted).toBe(true);
    if (freed.admitted) expect(freed.window.remaining).toBe(4);

    const rows = await logged(key);
    expect(rows.map((r) => Number(r.key_seq))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.map((r) => new Date(r.created_at).toISOString())).toEqual([...Array<string>(5).fill('2026-07-01T12:00:30.000Z'), '2026-07-01T12:01:30.000Z']);
  });

  test('requests logged before the numbering are counted, and the numbers start after them', async () => {
    const plan = await newPlan(server.orm, { perMinute: 5, perDay: 100, perMonth: 100 });
    const { key, keyId } = await newKey(server.orm, { plan, now: new Date('2026-07-02T00:00:00Z') });
    await server.orm.em.fork().getConnection().execute(
      `insert into request_log (api_key_id, request_id, method, endpoint, status, created_at)
       select ?, 'before', 'GET', '/api/v1/dev/usage', 200, '2026-07-02T12:00:00.000Z' from generate_series(1, 3)`,
      [keyId],
    );
    const at = admitAt(key);

    const first = await at('2026-07-02T12:00:20.000Z');
    expect(first.admitted).toBe(true);
    if (first.admitted) expect(first.window.remaining).toBe(1);
    expect((await at('2026-07-02T12:00:20.000Z')).admitted).toBe(true);
    const refused = await at('2026-07-02T12:00:40.000Z');
    expect(refused.admitted).toBe(false);
    if (!refused.admitted) expect(refused.error).toMatchObject({ kind: 'minute', data: { retryAfterSeconds: 20 } });
    // the three leave at 12:01:00: three places, counted by number from then on
    for (let i = 0; i < 3; i++) expect((await at('2026-07-02T12:01:00.000Z')).admitted).toBe(true);
    expect((await at('2026-07-02T12:01:00.000Z')).admitted).toBe(false);
    expect((await logged(key)).map((r) => r.key_seq && Number(r.key_seq))).toEqual([null, null, null, 1, 2, 3, 4, 5]);
  });

  test('a plan with webhooks and a quota above 21 million admits (its threshold arithmetic fits)', async () => {
    const plan = await newPlan(server.orm, { perMinute: 100, perDay: 2_000_000_000, perMonth: 2_000_000_000, webhooks: true });
    const { key } = await newKey(server.orm, { plan, now: new Date('2026-07-03T00:00:00Z') });
    expect((await admitAt(key)('2026-07-03T12:00:00Z')).admitted).toBe(true);
  });
});
