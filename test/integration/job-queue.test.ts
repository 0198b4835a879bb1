import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { PgBossQueue } from '../../src/jobs/pg-boss-queue.js';
import { onCleanup } from './support/cleanup.js';

const log = pino({ level: 'silent' });
const { Client } = pg;

// The durable job queue on the test PostgreSQL: what ingestion, billing and webhooks rely on.
describe('PgBossQueue', () => {
  test('a backlog sent before any worker ran drains without waiting for the idle poll between jobs', async () => {
    const queue = new PgBossQueue(process.env.DATABASE_URL!);
    onCleanup(() => queue.stop());
    const name = `backlog-${Math.random().toString(36).slice(2, 10)}`;
    const jobs = 8;
    for (let n = 1; n <= jobs; n++) await queue.send(name, { n });
    const started = Date.now();
    const seen: number[] = [];
    const drained = new Promise<void>((resolve) => {
      void queue.work(
        name,
        (data) => {
          seen.push(Number(data.n));
          if (seen.length === jobs) resolve();
          return Promise.resolve();
        },
        log,
        { concurrency: 2 },
      );
    });
    await drained;
    // each worker of the two takes four jobs in turn; waiting for pg-boss's 30 s NOTIFY-mode poll
    // between them took over a minute and a half
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  }, 120_000);

  test('a queue made before takes the retries and times its code now defines', async () => {
    const name = `policy-${Math.random().toString(36).slice(2, 10)}`;
    const before = new PgBossQueue(process.env.DATABASE_URL!);
    onCleanup(() => before.stop());
    await before.send(name, {});
    const after = new PgBossQueue(process.env.DATABASE_URL!);
    onCleanup(() => after.stop());
    after.define(name, { retryLimit: 60, retryDelayMax: 900 });
    await after.send(name, {});
    const pg = new Client({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    onCleanup(() => pg.end());
    const { rows } = await pg.query<{ retry_limit: number; retry_delay_max: number }>('select retry_limit, retry_delay_max from pgboss.queue where name = $1', [name]);
    expect(rows).toEqual([{ retry_limit: 60, retry_delay_max: 900 }]);
  });
});
