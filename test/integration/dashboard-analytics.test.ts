import { beforeAll, describe, expect, test } from '@jest/globals';
import { setSubscription } from '../../src/domain/accounts/accounts.js';
import { outcomesWritten } from './support/accounts.js';
import { apiClient, sendRaw } from './support/contract.js';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Usage analytics by plan, through the dashboard's operations: each level shows what its plan
// includes and refuses the rest, and every figure agrees with each key's own GET /usage.

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ services: testServices({}, { SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' }) });
});

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** A signed-in account on `plan` with two keys that made some requests (one of them refused with 400). */
async function accountWithTraffic(label: string, plan: 'free' | 'starter' | 'pro' | 'enterprise') {
  const browser = new DashboardBrowser(server.url);
  const session = await browser.signUp(uniqueEmail(label));
  await setSubscription(server.orm.em.fork(), session.account.id, { planCode: plan, state: 'active' }, new Date());
  const keys: string[] = [];
  for (const name of ['first', 'second']) {
    const { data } = await browser.client.POST('/dashboard/api/keys', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { name } });
    keys.push(data!.key);
  }
  await apiClient(server.url, keys[0]).GET('/api/v1/dev/plans');
  await apiClient(server.url, keys[0]).GET('/api/v1/dev/plans');
  await apiClient(server.url, keys[1]).GET('/api/v1/dev/plans');
  const bad = await sendRaw(server.url, 'query', { key: keys[1], headers: { 'Content-Type': 'application/json' }, body: '{"query": ""}' });
  expect(bad.status).toBe(400);
  const usages = [];
  for (const key of keys) usages.push((await apiClient(server.url, key).GET('/api/v1/dev/usage')).data!);
  await outcomesWritten(server.orm, session.account.id);
  return { browser, keys, usages, accountId: session.account.id };
}

describe('usage analytics by plan', () => {
  test('basic (Free): this period\'s totals and each key\'s quota, equal to the keys\' own /usage; nothing more', async () => {
    const { browser, usages } = await accountWithTraffic('basic', 'free');
    const { data } = await browser.client.GET('/dashboard/api/analytics');
    expect(data!.level).toBe('basic');
    expect(data!.totals.requests).toBe(usages[0]!.total_requests + usages[1]!.total_requests);
    expect(data!.totals.tokens).toBe(usages[0]!.total_tokens + usages[1]!.total_tokens);
    expect(data!.quota.map((q) => q.used).sort()).toEqual(usages.map((u) => u.total_requests).sort());
    expect(data!.quota[0]!.limit).toBe(300);
    expect(data!.per_day).toBeUndefined();
    expect(data!.per_key).toBeUndefined();
    expect((await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-40) } } })).response.status).toBe(403);
    expect((await browser.client.GET('/dashboard/api/analytics/export')).response.status).toBe(403);
  });

  test('standard (Starter): requests per day by endpoint, summing to the keys\' by_endpoint', async () => {
    const { browser, usages } = await accountWithTraffic('standard', 'starter');
    const { data } = await browser.client.GET('/dashboard/api/analytics');
    expect(data!.level).toBe('standard');
    const byEndpoint: Record<string, number> = {};
    for (const d of data!.per_day!) for (const [endpoint, n] of Object.entries(d.by_endpoint)) byEndpoint[endpoint] = (byEndpoint[endpoint] ?? 0) + n;
    const expected: Record<string, number> = {};
    for (const u of usages) for (const [endpoint, n] of Object.entries(u.by_endpoint)) expected[endpoint] = (expected[endpoint] ?? 0) + n;
    expect(byEndpoint).toEqual(expected);
    expect(data!.per_day![0]!.tokens).toBeUndefined();
    expect(data!.per_key).toBeUndefined();
  });

  test('advanced (Pro): per key equal to each key\'s /usage, per model, error rate, 90 days back, CSV', async () => {
    const { browser, usages } = await accountWithTraffic('advanced', 'pro');
    const { data } = await browser.client.GET('/dashboard/api/analytics');
    expect(data!.level).toBe('advanced');
    expect(data!.per_key!.map((k) => k.requests).sort()).toEqual(usages.map((u) => u.total_requests).sort());
    expect(data!.errors).toMatchObject({ client_errors: 1, server_errors: 0 });
    expect(data!.errors!.requests).toBe(data!.totals.requests);
    expect(data!.latency_ms!.p50).toEqual(expect.any(Number));
    expect(data!.latency_ms!.p95!).toBeGreaterThanOrEqual(data!.latency_ms!.p50!);
    expect(data!.per_store).toBeUndefined();
    expect((await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-80) } } })).response.status).toBe(200);
    expect((await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-100) } } })).response.status).toBe(403);
    const csv = await fetch(`${server.url}/dashboard/api/analytics/export`, { headers: { Cookie: `svc_session=${browser.cookie}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('date,key,endpoint,model,status,requests,tokens,cost_usd');
    expect(lines.slice(1).reduce((sum, line) => sum + Number(line.split(',')[5]), 0)).toBe(data!.totals.requests);
  });

  test('custom (Enterprise): any date range, per store, each active key\'s quota of this period whatever the range; a malformed date is a 400 naming the parameter', async () => {
    const { browser, keys, accountId } = await accountWithTraffic('custom', 'enterprise');
    const asked = await apiClient(server.url, keys[0]).POST('/api/v1/dev/query', { body: { query: 'What is photosynthesis?' } });
    expect(asked.response.status).toBe(200);
    await outcomesWritten(server.orm, accountId);
    const stores = await browser.client.GET('/dashboard/api/analytics');
    expect(stores.data!.per_store).toEqual([expect.objectContaining({ store_id: 'default', requests: 1 })]);
    const year = await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-365), to: day(0) } } });
    expect(year.response.status).toBe(200);
    expect(year.data!.level).toBe('custom');
    // each key's quota counts this billing period whatever range is asked for
    expect(stores.data!.quota.map((q) => q.used > 0)).toEqual([true, true]);
    const past = await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-365), to: day(-35) } } });
    expect(past.data!.totals.requests).toBe(0);
    expect(past.data!.quota).toEqual(stores.data!.quota);
    // and lists active keys only: not one past its expiry
    await server.orm.em.fork().execute("update api_key set expires_at = now() - interval '1 second' where account_id = ? and name = 'second'", [accountId]);
    expect((await browser.client.GET('/dashboard/api/analytics')).data!.quota.map((q) => q.name)).toEqual(['first']);
    const bad = await fetch(`${server.url}/dashboard/api/analytics?from=2026-02-30`, { headers: { Cookie: `svc_session=${browser.cookie}` } });
    expect(bad.status).toBe(400);
    // errors[].path is a JSON Pointer to the parameter
    expect(((await bad.json()) as { errors: unknown }).errors).toEqual([{ path: '/from', message: expect.stringContaining("'from'") }]);
    const backwards = await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(0), to: day(-1) } } });
    expect([backwards.response.status, (backwards.error as { errors: unknown }).errors]).toEqual([400, [{ path: '/to', message: 'before from' }]]);
    const tooLong = await browser.client.GET('/dashboard/api/analytics', { params: { query: { from: day(-400), to: day(0) } } });
    expect([tooLong.response.status, (tooLong.error as { errors: unknown }).errors]).toEqual([400, [{ path: '/from', message: 'range too long' }]]);
  });

  test('one account never sees another\'s figures', async () => {
    await accountWithTraffic('busy', 'pro');
    const quiet = new DashboardBrowser(server.url);
    await quiet.signUp(uniqueEmail('quiet'));
    const { data } = await quiet.client.GET('/dashboard/api/analytics');
    expect(data!.totals).toEqual({ requests: 0, tokens: 0, cost_usd: 0 });
    expect(data!.quota).toEqual([]);
  });
});
