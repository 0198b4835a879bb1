import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Orm } from '../../src/db/orm.js';
import { newKey, newPlan } from './support/accounts.js';
import { apiClient } from './support/contract.js';
import { connectDatabase } from './support/server.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';

// Two real server processes share one database: the limit must hold across them.
let orm: Orm;
const processes: ServerProcess[] = [];

beforeAll(async () => {
  orm = await connectDatabase();
  // each has its own startup deadline and is stopped after this file, even if the other fails
  processes.push(...(await Promise.all([startServerProcess(), startServerProcess()])));
});

describe('limits under concurrency across two server processes', () => {
  test.each([
    ['free', 10, 40],
    ['starter', 20, 50],
  ] as const)('%s: of %i allowed, exactly that many of %i simultaneous requests are admitted', async (plan, limit, fired) => {
    const { key, keyId } = await newKey(orm, { plan });
    const responses = await Promise.all(
      Array.from({ length: fired }, async (_, i) => (await apiClient(processes[i % 2]!.url, key).GET('/api/v1/dev/plans')).response),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(fired - limit);
    // the remaining counts handed out are each distinct: no two requests saw the same slot
    const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining')));
    expect(new Set(remaining).size).toBe(limit);
    const [logged] = await orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from request_log where api_key_id = ?', [keyId]);
    expect(logged?.n).toBe(limit);
  });
});

describe('every limit exact under load across two server processes', () => {
  const ROOM = 1000;
  test.each([
    ['per minute', { perMinute: 7, perDay: ROOM, perMonth: ROOM }, 'rate_limit_exceeded'],
    ['per day', { perMinute: ROOM, perDay: 9, perMonth: ROOM }, 'rate_limit_exceeded'],
    ['per month', { perMinute: ROOM, perDay: ROOM, perMonth: 11 }, 'quota_exceeded'],
  ] as const)('%s: exactly the limit of 40 simultaneous requests is admitted, each logged once with its status', async (_, limits, code) => {
    const limit = Math.min(limits.perMinute, limits.perDay, limits.perMonth);
    const { key, keyId } = await newKey(orm, { plan: await newPlan(orm, limits) });
    const fired = 40;
    // both processes, both light operations, all at once
    const results = await Promise.all(
      Array.from({ length: fired }, async (_, i) => {
        const client = apiClient(processes[i % 2]!.url, key);
        const { response, error } = i % 4 < 2 ? await client.GET('/api/v1/dev/plans') : await client.GET('/api/v1/dev/usage');
        return { status: response.status, code: (error as { error?: { code?: string } } | undefined)?.error?.code };
      }),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(limit);
    expect(results.filter((r) => r.status === 429 && r.code === code)).toHaveLength(fired - limit);

    const em = orm.em.fork();
    const [counters] = await em.execute<{ day: number; month: number }[]>(
      "select sum(count) filter (where period = 'day')::int as day, sum(count) filter (where period = 'month')::int as month from usage_counter where api_key_id = ?",
      [keyId],
    );
    expect(counters).toEqual({ day: limit, month: limit });
    // outcomes are written in batches after the responses: wait for them, within a generous deadline
    let logged: { status: number | null; n: number }[] = [];
    for (let waited = 0; waited < 20_000; waited += 100) {
      logged = await em.execute<{ status: number | null; n: number }[]>('select status, count(*)::int as n from request_log where api_key_id = ? group by status', [keyId]);
      if (logged.every((row) => row.status !== null)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(logged).toEqual([{ status: 200, n: limit }]);
  });
});
