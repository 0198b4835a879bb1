import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey, newPlan } from './support/accounts.js';
import { ManualClock } from './support/clock.js';
import { apiClient } from './support/contract.js';
import { startServer, type TestServer } from './support/server.js';
import { RequestLog } from '../../src/db/request-log.js';

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
});
