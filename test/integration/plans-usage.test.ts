import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey, newPlan } from './support/accounts.js';
import { ManualClock } from './support/clock.js';
import { apiClient } from './support/contract.js';
import { HASH_SECRET, startServer, type TestServer } from './support/server.js';
import { RequestLog } from '../../src/db/request-log.js';
import { admit } from '../../src/domain/limits/limiter.js';
import { hashKey } from '../../src/domain/keys/key-format.js';

let server: TestServer;
const clock = new ManualClock('2026-07-15T09:30:00.000Z');

beforeAll(async () => {
  server = await startServer({ clock });
});

describe('GET /api/v1/dev/plans', () => {
  test('returns the caller\'s plan and the whole catalogue from the database', async () => {
    const { key } = await newKey(server.orm, { plan: 'enterprise', now: clock.now() });
    const { response, data } = await apiClient(server.url, key).GET('/api/v1/dev/plans');
    expect(response.status).toBe(200);
    const body = data!;
    expect(body.current_plan.name).toBe('Enterprise');
    expect(body.current_plan.allowed_models).toEqual(['svcai-fast', 'svcai-thinking']);
    expect(body.available_plans.map((p) => [p.name, p.price_lkr, p.monthly_quota, p.rate_limit_per_minute, p.rate_limit_per_day, p.allowed_models])).toEqual([
      ['Free', 0, 300, 10, 300, ['svcai-fast']],
      ['Starter', 999, 2000, 20, 2000, ['svcai-fast']],
      ['Pro', 3499, 10000, 60, 10000, ['svcai-fast']],
      ['Enterprise', 14999, 50000, 200, 50000, ['svcai-fast', 'svcai-thinking']],
    ]);
    for (const plan of body.available_plans) expect(plan.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('a plan that is not listed is the current plan of its keys but never in the catalogue; listing it shows from the next request', async () => {
    const code = await newPlan(server.orm, { perMinute: 50, perDay: 500, perMonth: 5000 });
    const { key } = await newKey(server.orm, { plan: code, now: clock.now() });
    const client = apiClient(server.url, key);
    const hidden = (await client.GET('/api/v1/dev/plans')).data!;
    expect(hidden.current_plan).toMatchObject({ name: `Test ${code.slice(5)}`, rate_limit_per_minute: 50 });
    expect(hidden.available_plans.map((p) => p.name)).toEqual(['Free', 'Starter', 'Pro', 'Enterprise']);

    const em = server.orm.em.fork();
    await em.execute('update plan set listed = true where code = ?', [code]);
    try {
      const listed = (await client.GET('/api/v1/dev/plans')).data!;
      expect(listed.available_plans.map((p) => p.name)).toEqual(['Free', 'Starter', 'Pro', 'Enterprise', `Test ${code.slice(5)}`]);
    } finally {
      await em.execute('update plan set listed = false where code = ?', [code]);
    }
    expect((await client.GET('/api/v1/dev/plans')).data!.available_plans).toHaveLength(4);
  });
});

describe('GET /api/v1/dev/usage', () => {
  test('reports requests by endpoint, tokens, cost, period and quota for the calling key only', async () => {
    clock.set('2026-07-15T09:30:00.000Z');
    const { key, keyId } = await newKey(server.orm, { plan: 'starter', now: clock.now() });
    const other = await newKey(server.orm, { plan: 'starter', now: clock.now() });
    const client = apiClient(server.url, key);
    // requests of the previous month are not in this period (made first: a key's requests are
    // logged in time order, one stamped earlier than the last is logged at the last one's time)
    clock.set('2026-06-30T23:59:59.000Z');
    await client.GET('/api/v1/dev/plans');
    clock.set('2026-07-15T09:30:00.000Z');
    await client.GET('/api/v1/dev/plans');
    await client.GET('/api/v1/dev/plans');
    await apiClient(server.url, other.key).GET('/api/v1/dev/plans');
    clock.set('2026-07-15T09:31:00.000Z');

    // token use is written with the outcome of the answering operations; give two logged requests
    // some: once the server has written the outcomes of these calls (after answering them), take
    // two rows back to "admitted, outcome not yet written", as a query's row is while it answers
    const em = server.orm.em.fork();
    const select = "select id, status from request_log where api_key_id = ? and created_at >= '2026-07-01' order by id";
    let rows = await em.execute<{ id: string; status: number | null }[]>(select, [keyId]);
    for (let tries = 0; rows.some((row) => row.status === null) && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      rows = await em.execute<{ id: string; status: number | null }[]>(select, [keyId]);
    }
    expect(rows.map((row) => row.status)).toEqual([200, 200]);
    await em.execute('update request_log set status = null where id in (?, ?)', [rows[0]!.id, rows[1]!.id]);
    const log = new RequestLog(server.orm);
    await log.writeOutcomes([
      { logId: rows[0]!.id, status: 200, model: 'svcai-fast', tokens: 1200, costUsd: 0.0018, durationMs: 40, storeId: 'default' },
      { logId: rows[1]!.id, status: 200, model: 'svcai-fast', tokens: 345, costUsd: 0.000517, durationMs: 25, storeId: 'default' },
    ]);
    // a request's outcome is written once: a second write (a cut request finishing after all) changes nothing
    await log.writeOutcomes([{ logId: rows[0]!.id, status: 503, model: null, tokens: 999, costUsd: 1, durationMs: 1, storeId: null }]);
    const [first] = await em.execute<{ status: number; tokens: number }[]>('select status, tokens from request_log where id = ?', [rows[0]!.id]);
    expect(first).toEqual({ status: 200, tokens: 1200 });

    const { response, data } = await client.GET('/api/v1/dev/usage');
    expect(response.status).toBe(200);
    expect(data).toEqual({
      total_requests: 3,
      total_tokens: 1545,
      total_cost_usd: 0.002317,
      by_endpoint: { '/api/v1/dev/plans': 2, '/api/v1/dev/usage': 1 },
      period_start: '2026-07-01',
      period_end: '2026-07-15',
      plan: { name: 'Starter', rate_limit_per_minute: 20, rate_limit_per_day: 2000, monthly_quota: 2000 },
      quota_remaining: 1997,
      quota_percentage: 0.15,
    });
  });

  test('a request stamped before the key\'s last one is logged at that one\'s time, and counted in its day and month, with its tokens', async () => {
    clock.set('2026-09-30T23:00:00.000Z');
    const { key, keyId } = await newKey(server.orm, { plan: 'starter', now: clock.now() });
    const client = apiClient(server.url, key);
    // two processes' requests around midnight at the end of September: the one stamped later takes the key's lock first
    clock.set('2026-10-01T00:00:00.500Z');
    expect((await client.GET('/api/v1/dev/plans')).response.status).toBe(200);
    clock.set('2026-09-30T23:59:59.500Z');
    expect((await client.GET('/api/v1/dev/plans')).response.status).toBe(200);
    const em = server.orm.em.fork();
    const counters = await em.execute<{ period: string; start: string; count: number }[]>(
      "select period::text, to_char(period_start, 'YYYY-MM-DD') as start, count from usage_counter where api_key_id = ? order by period, period_start",
      [keyId],
    );
    expect(counters).toEqual([
      { period: 'day', start: '2026-10-01', count: 2 },
      { period: 'month', start: '2026-10-01', count: 2 },
    ]);
    clock.set('2026-10-01T00:01:00.000Z');
    const { data } = await client.GET('/api/v1/dev/usage');
    expect(data).toMatchObject({ total_requests: 3, by_endpoint: { '/api/v1/dev/plans': 2, '/api/v1/dev/usage': 1 }, period_start: '2026-10-01' });
  });

  test('the admission reads the month in the same call, its own request counted; refused, it reads nothing; the function of the code before still admits', async () => {
    clock.set('2026-08-03T10:00:00.000Z');
    const plan = await newPlan(server.orm, { perMinute: 2, perDay: 100, perMonth: 100 });
    const { key } = await newKey(server.orm, { plan, now: clock.now() });
    const requests = new RequestLog(server.orm);
    const call = (endpoint: string, withUsage: boolean) => ({ keyHash: hashKey(key, HASH_SECRET), clientIp: '127.0.0.1', request: { requestId: 'r', method: 'GET', endpoint }, withUsage });

    const plans = await admit(requests, call('/api/v1/dev/plans', false), new Date('2026-08-03T10:00:00.000Z'));
    expect(plans.admitted && plans.usage).toBe(null);
    const usage = await admit(requests, call('/api/v1/dev/usage', true), new Date('2026-08-03T10:00:01.000Z'));
    expect(usage.admitted && usage.usage).toEqual({
      periods: { day: '2026-08-03', month: '2026-08-01' },
      byEndpoint: [
        { endpoint: '/api/v1/dev/plans', requests: 1, tokens: 0, costUsd: 0 },
        { endpoint: '/api/v1/dev/usage', requests: 1, tokens: 0, costUsd: 0 },
      ],
    });
    // the minute's third request is over the plan's limit of two
    const refused = await admit(requests, call('/api/v1/dev/usage', true), new Date('2026-08-03T10:00:02.000Z'));
    expect(refused.admitted).toBe(false);

    // a process still running the code before calls the 10-argument function: it admits and counts as before
    const [before] = await server.orm.em.fork().getConnection().execute<{ outcome: string; this_month: number }[]>(
      `select outcome, this_month from authenticate_and_admit(?, false, '127.0.0.1', 'r', 'GET', '/api/v1/dev/plans',
        '2026-08-03T10:01:30Z', '2026-08-03T10:00:30Z', '2026-08-03', '2026-08-01')`,
      [hashKey(key, HASH_SECRET)],
    );
    expect(before).toEqual({ outcome: 'admitted', this_month: 2 });
    const after = await admit(requests, call('/api/v1/dev/usage', true), new Date('2026-08-03T10:01:31.000Z'));
    expect(after.admitted && after.usage?.byEndpoint.map((e) => [e.endpoint, e.requests])).toEqual([
      ['/api/v1/dev/plans', 2],
      ['/api/v1/dev/usage', 2],
    ]);
  });
});
