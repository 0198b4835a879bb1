import { describe, expect, test } from '@jest/globals';
import { RequestLog, type LoggedOutcome } from '../../src/db/request-log.js';
import { newKey } from './support/accounts.js';
import { connectDatabase } from './support/server.js';

// Outcomes written after the answer add their tokens and cost to the per-endpoint month that
// GET /usage reads; that sum must stay the sum of the log rows.
describe('request log outcomes', () => {
  test('the month adds the cost as each log row stores it, and a counter row that is missing is created', async () => {
    const orm = await connectDatabase();
    const { keyId } = await newKey(orm, { plan: 'pro' });
    const em = orm.em.fork();
    const rows = await em.execute<{ id: string }[]>(
      `insert into request_log (api_key_id, request_id, method, endpoint, created_at)
        select ?, 'outcome-' || n, 'POST', '/api/v1/dev/query', now() from generate_series(1, 4) as n returning id`,
      [keyId],
    );
    // admitted as a process older than the per-endpoint counters would have: no counter row yet
    await em.execute('delete from endpoint_usage where api_key_id = ?', [keyId]);
    const outcome = (logId: string, costUsd: number): LoggedOutcome => ({ logId, status: 200, model: 'svcai-fast', tokens: 7, costUsd, durationMs: 3, storeId: 'default' });
    // each below the log's sixth decimal: stored as 0, so the month must not gain 0.0000012
    const costs = [0.0000004, 0.0000004, 0.0000004, 0.0012345678];
    await new RequestLog(orm).writeOutcomes(rows.map((row, i) => outcome(row.id, costs[i]!)));
    const [logged] = await em.execute<{ tokens: number; cost: number }[]>('select sum(tokens)::int as tokens, sum(cost_usd)::float8 as cost from request_log where api_key_id = ?', [keyId]);
    const counters = await em.execute('select endpoint, requests, tokens::int as tokens, cost_usd::float8 as cost from endpoint_usage where api_key_id = ?', [keyId]);
    expect(logged).toEqual({ tokens: 28, cost: 0.001235 });
    expect(counters).toEqual([{ endpoint: '/api/v1/dev/query', requests: 0, tokens: 28, cost: 0.001235 }]);
  });
});
