import { afterAll, beforeAll, jest } from '@jest/globals';
import pg from 'pg';
import { stopAll } from './cleanup.js';
import { STARTUP_DEADLINE_MS, STOP_GRACE_MS } from './processes.js';

// Runs before every integration test file (setupFilesAfterEnv). Jest reads `testTimeout` only from
// the global configuration, not from a project's, hence here: every test and hook may take a
// startup (STARTUP_DEADLINE_MS) and then its own work, so a startup fails on its own deadline,
// with its stderr, before jest's timeout cuts it off.
jest.setTimeout(2 * STARTUP_DEADLINE_MS);

// The test files share one database, so each starts with an empty job queue and no payment notice
// left to process: a job another file left waiting (a notice its PayHere sandbox never listed,
// say) belongs to servers and fakes that are gone, and would otherwise run, fail and log in this
// file's server, whose start queues every notice not processed yet.
beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ job: string | null; notice: string | null }>(
      "select to_regclass('pgboss.job')::text as job, to_regclass('payment_notification')::text as notice",
    );
    if (rows[0]?.job) await client.query("delete from pgboss.job where state in ('created', 'retry', 'active')");
    if (rows[0]?.notice) await client.query("update payment_notification set processed_at = now(), outcome = 'left by an earlier test file' where processed_at is null");
  } finally {
    await client.end();
  }
});

afterAll(stopAll, 6 * STOP_GRACE_MS);
