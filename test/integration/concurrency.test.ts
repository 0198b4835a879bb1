import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Orm } from '../../src/db/orm.js';
import { newKey } from './support/accounts.js';
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
