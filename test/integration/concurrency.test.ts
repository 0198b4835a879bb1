import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { connect, type Orm } from '../../src/db/orm.js';
import { newKey } from './support/accounts.js';
import { call } from './support/contract.js';
import { HASH_SECRET, databaseUrl } from './support/server.js';

// Two real server processes share one database: the limit must hold across them.
let orm: Orm;
const processes: ChildProcess[] = [];
const urls: string[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startProcess(): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, PORT: String(port), KEY_HASH_SECRET: HASH_SECRET, DATABASE_URL: databaseUrl(), LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  processes.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/api/v1/dev/plans`);
      return url;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('server process did not start');
}

beforeAll(async () => {
  orm = await connect(databaseUrl());
  urls.push(await startProcess(), await startProcess());
});
afterAll(async () => {
  for (const p of processes) p.kill('SIGTERM');
  await orm.close();
});

describe('limits under concurrency across two server processes', () => {
  test.each([
    ['free', 10, 40],
    ['starter', 20, 50],
  ] as const)('%s: of %i allowed, exactly that many of %i simultaneous requests are admitted', async (plan, limit, fired) => {
    const { key, keyId } = await newKey(orm, { plan });
    const responses = await Promise.all(
      Array.from({ length: fired }, (_, i) => call(`${urls[i % 2]}/api/v1/dev/plans`, { key })),
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
