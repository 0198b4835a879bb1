import { describe, expect, it } from '@jest/globals';
import type { Orm } from '../../src/db/orm.js';
import { RequestLog, type LoggedOutcome } from '../../src/db/request-log.js';

const outcome: LoggedOutcome = { logId: '1', status: 200, model: 'svcai-fast', tokens: 10, costUsd: 0.001, durationMs: 5, storeId: 'default' };

/** A RequestLog on a pool whose statements fail with the given errors, in turn, then succeed. */
function logFailingWith(errors: object[]) {
  const statements: string[] = [];
  const pool = {
    query: (config: { name: string }) => {
      statements.push(config.name);
      const error = errors.shift();
      return error ? Promise.reject(Object.assign(new Error('failed'), error)) : Promise.resolve({ rows: [] });
    },
  };
  const orm = { em: { getConnection: () => ({ getNativeClient: () => Promise.resolve(pool) }) } } as unknown as Orm;
  return { log: new RequestLog(orm), statements };
}

describe('writing outcomes', () => {
  it('runs the statement again when PostgreSQL ended it as a deadlock', async () => {
    const { log, statements } = logFailingWith([{ code: '40P01' }, { code: '40P01' }]);
    await log.writeOutcomes([outcome]);
    expect(statements).toEqual(['write_outcomes', 'write_outcomes', 'write_outcomes']);
  });

  it('gives up after three deadlocks, and at once on any other error', async () => {
    const deadlocked = logFailingWith([{ code: '40P01' }, { code: '40P01' }, { code: '40P01' }]);
    await expect(deadlocked.log.writeOutcomes([outcome])).rejects.toMatchObject({ code: '40P01' });
    expect(deadlocked.statements).toHaveLength(3);
    const refused = logFailingWith([{ code: '23503' }]);
    await expect(refused.log.writeOutcomes([outcome])).rejects.toMatchObject({ code: '23503' });
    expect(refused.statements).toHaveLength(1);
  });
});
