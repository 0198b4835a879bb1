import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../src/db/orm.js';
import { temporaryDirectory } from './support/cleanup.js';
import { inflatingPdf, repeatedStreamKeywords, sharedStreamPdf } from '../support/pdf.js';
import { newKey } from './support/accounts.js';
import { detailOf, sendRaw, type ApiResponse } from './support/contract.js';
import { runProcess } from './support/processes.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { connectDatabase } from './support/server.js';

// Hostile files against the compiled service in its own process, as in production, so that the
// latencies measured here are the server's alone. A budget of 2 seconds of processor time keeps
// the test short (the hostile files need far more); the caps are the defaults, stated.
const BUDGET = { HEAVY_WORK_CPU_MS: '2000', HEAVY_WORK_THREADS: '2', HEAVY_WORK_PER_ACCOUNT: '1' };
const slowPdf = sharedStreamPdf(160, 1 << 20);
const HOSTILE = [
  // the reader parses the shared 1 MB stream again for each of the 160 pages: seconds of processor time
  ...[1, 2, 3, 4].map((n) => ({ name: `shared-${n}.pdf`, bytes: slowPdf, detail: new RegExp(`^shared-${n}\\.pdf needs more work than allowed: reading it takes more than 2 seconds of processor time\\.`) })),
  // 280 KB of `stream` keywords: 2.7 s in the quadratic pre-scan this replaced
  { name: 'streams.pdf', bytes: repeatedStreamKeywords(40_000), detail: /^streams\.pdf is not a readable PDF: / },
  { name: 'bomb.pdf', bytes: inflatingPdf(70 * 1024 * 1024), detail: /^bomb\.pdf is not a readable PDF: its pages' content expands to more than 67108864 bytes, far more than any document's text needs \(images are not counted\); open it in a PDF viewer, print or save it to a new PDF, and upload that$/ },
];
/** 25 requests a second: enough samples, without the observers loading a busy machine themselves */
const PERIOD_MS = 40;

let service: ServerProcess;
let orm: Orm;

beforeAll(async () => {
  service = await startServerProcess(BUDGET);
  orm = await connectDatabase(undefined, 2);
});

/** Uploads one PDF to the query-multipart operation of `url`; the answer is checked against the contract. */
function upload(name: string, bytes: Uint8Array, key: string, url = service.url): Promise<ApiResponse> {
  const form = new FormData();
  form.append('query', 'What does this file say about photosynthesis?');
  form.append('files', new Blob([bytes], { type: 'application/pdf' }), name);
  return sendRaw(url, 'queryMultipart', { key, body: form });
}

/**
 * Latencies of GET /plans sent every PERIOD_MS until `until` settles. The server runs in its own
 * process, so requests keep going out on time while its event loop is held, and each shows the
 * stall; timing from the moment of sending leaves this process's own pauses out.
 */
async function plansLatencies(keys: string[], until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: Promise<number>[] = [];
  const start = performance.now();
  for (let i = 0; !done; i++) {
    await sleep(Math.max(0, start + i * PERIOD_MS - performance.now()));
    const sent = performance.now();
    latencies.push(
      fetch(`${service.url}/api/v1/dev/plans`, { headers: { 'X-API-Key': keys[i % keys.length]! } }).then(async (res) => {
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET /plans answered ${res.status}`);
        return performance.now() - sent;
      }),
    );
  }
  return Promise.all(latencies);
}

describe('hostile files are read off the event loop, within budgets', () => {
  test('while one key sends them, GET /plans of other keys is never held up by them; each is refused with 400 {detail}', async () => {
    // 200 requests a minute per Enterprise key: five keys cover 25 a second for a round
    const observers = () => Promise.all(Array.from({ length: 5 }, async () => (await newKey(orm, { plan: 'enterprise' })).key));
    // the same figure with no hostile file, on this machine now: a machine busy with other work
    // (CI neighbours, another core's load) delays every process, which no service can undo
    const quiet = (await plansLatencies(await observers(), sleep(3000))).sort((a, b) => a - b);
    // Each of these files takes at least the 2-second budget: read on the event loop, it would
    // hold every request for seconds, in every round (far more than 1% of the samples). A machine
    // shared with other work delays every process by tens of milliseconds now and then, so the
    // bound is a quarter of a second over the quiet figure, and the best of four rounds is taken;
    // the figures are printed.
    const limit = quiet[Math.ceil(quiet.length * 0.99) - 1]! + 250;
    const rounds: number[] = [];
    while (rounds.length < 4 && !rounds.some((p99) => p99 < limit)) {
      const [hostile, keys] = [(await newKey(orm, { plan: 'enterprise' })).key, await observers()];
      const answers = Promise.all(HOSTILE.map((file) => upload(file.name, file.bytes, hostile)));
      const latencies = (await plansLatencies(keys, answers)).sort((a, b) => a - b);
      for (const [i, res] of (await answers).entries()) {
        expect(res.status).toBe(400);
        expect(detailOf(res.body)).toMatch(HOSTILE[i]!.detail);
      }
      expect(latencies.length).toBeGreaterThan(175);
      rounds.push(latencies[Math.ceil(latencies.length * 0.99) - 1]!);
    }
    console.log(`GET /plans p99: ${quiet[Math.ceil(quiet.length * 0.99) - 1]!.toFixed(1)} ms without the files, ${rounds.map((p99) => p99.toFixed(1)).join(', ')} ms with them`);
    expect(Math.min(...rounds)).toBeLessThan(limit);
  }, 180_000);

  test("one key's slow files do not hold up another key's upload", async () => {
    const hostile = (await newKey(orm, { plan: 'enterprise' })).key;
    const other = (await newKey(orm, { plan: 'enterprise' })).key;
    const since = performance.now();
    const settled = (res: Promise<ApiResponse>) => res.then((r) => ({ status: r.status, after: performance.now() - since }));
    const slow = [1, 2, 3].map((n) => settled(upload(`shared-${n}.pdf`, slowPdf, hostile)));
    await sleep(300);
    const normal = await settled(upload('notes.pdf', readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf'), other));
    expect(normal.status).toBe(200);
    const [first, second, third] = (await Promise.all(slow)).map((r) => r.after).sort((a, b) => a - b);
    // the hostile key reads one file at a time, each for its budget of 2 s of processor time (its
    // reader's tools count too, and may run beside the thread: CI once saw 1.3 s between two), so
    // they end apart; read side by side on the two threads, they would end together ...
    expect(second! - first!).toBeGreaterThan(500);
    expect(third! - second!).toBeGreaterThan(500);
    // ... so the other thread stays free: the other key's file is read beside them, not after
    expect(normal.after).toBeLessThan(first!);
  });

  test("an account's keys share its one file at a time: two keys of one account do not take both threads", async () => {
    const { key: first, accountId } = await newKey(orm, { plan: 'enterprise' });
    const { key: second } = await newKey(orm, { plan: 'enterprise', accountId });
    const other = (await newKey(orm, { plan: 'enterprise' })).key;
    const since = performance.now();
    const settled = (res: Promise<ApiResponse>) => res.then((r) => ({ status: r.status, after: performance.now() - since }));
    const slow = [settled(upload('shared-1.pdf', slowPdf, first)), settled(upload('shared-2.pdf', slowPdf, second))];
    await sleep(300);
    const normal = await settled(upload('notes.pdf', readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf'), other));
    expect(normal.status).toBe(200);
    const [a, b] = (await Promise.all(slow)).map((r) => r.after).sort((x, y) => x - y);
    // one after the other, ending apart (per key, they ran side by side and the other account waited)
    expect(b! - a!).toBeGreaterThan(500);
    expect(normal.after).toBeLessThan(a!);
  });
});

describe('a key over its share of waiting files', () => {
  let small: ServerProcess;
  beforeAll(async () => {
    small = await startServerProcess({ ...BUDGET, HEAVY_WORK_QUEUE_PER_ACCOUNT: '1' });
  });

  test('is refused with 429 at once, as documented; its files already admitted are still read', async () => {
    const key = (await newKey(orm, { plan: 'enterprise' })).key;
    const send = (n: number) => upload(`shared-${n}.pdf`, slowPdf, key, small.url);
    // one file runs and one waits: the third is one too many
    const [running, waiting] = [send(1), send(2)];
    await sleep(300);
    const refused = await send(3);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: 'Too many files are being read for this account at once: at most 1 at a time and 1 waiting. Retry when your earlier requests have finished.',
      },
    });
    expect([(await running).status, (await waiting).status]).toEqual([400, 400]);
  });
});

describe('npm run extract', () => {
  // made when the tests run: a describe's own code runs even when its tests are filtered out
  let dir: string;
  beforeAll(() => {
    dir = temporaryDirectory('extract-');
  });
  const extract = (...args: string[]) => runProcess(process.execPath, ['dist/scripts/extract.js', ...args], { env: { ...process.env, ...BUDGET } });

  test('prints the text of each page after its marker', async () => {
    const result = await extract('samples/curriculum/pdf/grade10-science-photosynthesis.pdf');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^--- PAGE 1 ---\nPhotosynthesis: How Plants Make Food\n/);
    expect(result.stdout.match(/^--- PAGE \d+ ---$/gm)).toEqual(['--- PAGE 1 ---', '--- PAGE 2 ---', '--- PAGE 3 ---', '--- PAGE 4 ---']);
  });

  test('a file the service refuses prints the message the API answers with, and exits 1', async () => {
    const file = join(dir, 'shared-1.pdf');
    writeFileSync(file, slowPdf);
    const result = await extract(file);
    const api = await upload('shared-1.pdf', slowPdf, (await newKey(orm, { plan: 'enterprise' })).key);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(detailOf(api.body));
    expect(result.stderr).toMatch(HOSTILE[0]!.detail);
  });

  test('--help explains the command; no file is a usage error', async () => {
    const help = await extract('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('usage: npm run extract -- <file>');
    const missing = await extract();
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('give exactly one file');
  });
});
