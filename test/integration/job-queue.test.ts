import { describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { pino } from 'pino';
import { uuidOfName } from '../../src/domain/uuid.js';
import { PgBossQueue } from '../../src/jobs/pg-boss-queue.js';
import { onCleanup } from './support/cleanup.js';
import { until } from './support/until.js';

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

  test('a job sent again under its id adds nothing while it waits or after it failed, unless a failed one is to be replaced', async () => {
    const name = `once-${Math.random().toString(36).slice(2, 10)}`;
    const id = uuidOfName(name);
    const queue = new PgBossQueue(process.env.DATABASE_URL!);
    onCleanup(() => queue.stop());
    queue.define(name, { retryLimit: 0 });
    const pg = new Client({ connectionString: process.env.DATABASE_URL });
    await pg.connect();
    onCleanup(() => pg.end());
    const jobs = async () => (await pg.query<{ state: string }>('select state from pgboss.job where name = $1 order by created_on', [name])).rows.map((r) => r.state);
    // no worker yet: the first job waits, and sending it again (a restart's sweep) adds none
    await queue.send(name, { n: 1 }, { id, replaceFailed: true });
    await queue.send(name, { n: 2 }, { id, replaceFailed: true });
    expect(await jobs()).toEqual(['created']);
    const runs: number[] = [];
    await queue.work(name, (data) => {
      runs.push(Number(data.n));
      return runs.length === 1 ? Promise.reject(new Error('the gateway is out of reach')) : Promise.resolve();
    }, log);
    await until(jobs, (states) => states[0] === 'failed');
    await queue.send(name, { n: 3 }, { id });
    expect(await jobs()).toEqual(['failed']);
    await queue.send(name, { n: 4 }, { id, replaceFailed: true });
    await until(jobs, (states) => states[0] === 'completed');
    expect(await jobs()).toEqual(['completed']);
    expect(runs).toEqual([1, 4]);
    // a completed job stays the one job of its id
    await queue.send(name, { n: 5 }, { id, replaceFailed: true });
    expect(await jobs()).toEqual(['completed']);
  });
});
