import type { Orm } from '../../../src/db/orm.js';

/**
 * Resolves once `statements` statements matching `query` (an ILIKE pattern) wait for a lock in the test
 * database: a request a test holds back with a transaction of its own is then under way.
 */
export async function waitsForLock(orm: Orm, query: string, what: string, statements = 1): Promise<void> {
  for (let waited = 0; ; waited += 50) {
    const [row] = await orm.em
      .fork()
      .execute<{ waiting: number }[]>(`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike ?`, [query]);
    if (row!.waiting >= statements) return;
    if (waited > 10_000) throw new Error(`${what} never waited for a lock`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
