import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ConfigError, loadHeavyWorkSettings } from '../../src/config.js';
import { countTokensOf } from '../../src/domain/answering/cost.js';
import { InvalidRequestError } from '../../src/domain/errors.js';
import { JobFailedError, OverBudgetError, OwnerBusyError, ServiceBusyError } from '../../src/domain/ports/heavy-work.js';
import { sharedStreamPdf } from '../support/pdf.js';
import { requirePopplerTools } from '../../src/worker-pool/poppler.js';
import { WorkerPool } from '../../src/worker-pool/pool.js';
import { testPool } from './support/pool.js';

// Real worker threads running the TypeScript sources (src/worker-pool/worker-from-sources.mjs).
// Jobs over budget run for their budget of a second, and threads start cold after each stop.

const sample = new Uint8Array(readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf'));
/** Takes the PDF reader seconds of processor time: it parses the shared 1 MB stream again for each page. */
const slow = sharedStreamPdf(160, 1 << 20);

/** The PDF reader's tools this process runs now (each under `timeout`, a child of this process). */
function readerTools(): string[] {
  const children = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'args='], { encoding: 'utf8' }).split('\n');
  return children.filter((args) => /^timeout .*\bpdf(totext|info|fonts)\b/.test(args));
}

/** Resolves once `done` holds, polled every 50 ms; fails after 10 s. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 50) {
    if (waited > 10_000) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Resolves when `promise` settles, with the milliseconds since `since`. */
const settledAfter = (promise: Promise<unknown>, since: number) =>
  promise.then(
    () => performance.now() - since,
    () => performance.now() - since,
  );

describe('budgets', () => {
  const pool = testPool({ cpuMs: 1000 });
  const small = testPool({ memoryMb: 64 });

  test('a job over its processor time is stopped with OverBudgetError, and the event loop stays free meanwhile', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const since = performance.now();
    const error = await pool.run('pdfText', slow, 'a').catch((e: unknown) => e);
    const took = performance.now() - since;
    delay.disable();
    expect(error).toBeInstanceOf(OverBudgetError);
    expect(error).toMatchObject({ budget: 'time', message: 'more than 1 second of processor time' });
    // on the event loop the same file would hold it for the whole job; the bound is relative, as a
    // busy machine's scheduler alone delays the loop by hundreds of milliseconds
    expect(delay.max / 1e6).toBeLessThan(Math.max(200, took / 4));
  });

  test('a job over its memory is stopped with OverBudgetError, counting the memory of the reader it runs', async () => {
    // one page drawing 20 MB of text: pdftotext's layout of it needs far more than the 64 MB of this job
    const error = await small.run('pdfText', sharedStreamPdf(1, 20 << 20), 'a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OverBudgetError);
    expect(error).toMatchObject({ budget: 'memory', message: 'more than 64 MB of memory' });
  });

  test('a stopped thread is replaced: the next job runs', async () => {
    await expect(pool.run('pdfText', slow, 'a')).rejects.toThrow(OverBudgetError);
    expect(await pool.run('pdfText', sample, 'a')).toHaveLength(4);
  });

  test("a step's own failure comes back with its name and message", async () => {
    const error = await pool.run('pdfText', new TextEncoder().encode('%PDF-1.7\nnot really'), 'a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobFailedError);
    expect(error).toMatchObject({ name: 'Error', message: expect.stringMatching(/^it cannot be parsed \(.+\): the file is damaged or incomplete \(a cut-short upload or download\?\); open it in a PDF viewer, print or save it to a new PDF, and upload that$/) as unknown });
  });

  test('an answer whose texts take too long to count is refused with a readable 400', async () => {
    // byte-pair encoding of one long word takes time that grows with the square of its length
    const error = await countTokensOf(pool, 'a', ['ක'.repeat(40_000)]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe(
      'The question and its attachments need more work than allowed to count their tokens: more than 1 second of processor time. Send shorter attachments.',
    );
  });
});

describe('caps', () => {
  const onePerOwner = testPool({ threads: 3, perOwner: 1, cpuMs: 1000 });
  const oneThread = testPool({ threads: 1, perOwner: 1, cpuMs: 1000 });
  const shortQueues = testPool({ threads: 1, perOwner: 1, queuePerOwner: 2, queue: 3, cpuMs: 1000 });
  const shortWait = testPool({ threads: 1, waitMs: 300, cpuMs: 1000 });
  const ownWait = testPool({ threads: 2, perOwner: 1, waitMs: 300, cpuMs: 1000 });
  // a budget the slow file stays within: only its signal ends it early
  const roomyThread = testPool({ threads: 1, perOwner: 1 });

  test('an owner runs one job at a time; another owner does not wait behind it', async () => {
    const since = performance.now();
    const [first, second, other] = await Promise.all([
      settledAfter(onePerOwner.run('pdfText', slow, 'a'), since),
      settledAfter(onePerOwner.run('pdfText', slow, 'a'), since),
      settledAfter(onePerOwner.run('pdfText', sample, 'b'), since),
    ]);
    // the second job of 'a' starts when the first is stopped and then uses its own second
    expect(second - first).toBeGreaterThan(900);
    expect(other).toBeLessThan(first);
  });

  test('owners take turns: a waiting owner goes before the next job of the owner that just ran', async () => {
    const order: string[] = [];
    const track = (name: string, job: Promise<unknown>) => job.then(() => order.push(name), () => order.push(name));
    await Promise.all([
      track('a1', oneThread.run('pdfText', slow, 'a')),
      track('a2', oneThread.run('tokens', ['a'], 'a')),
      track('b1', oneThread.run('tokens', ['b'], 'b')),
    ]);
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });

  test("jobs beyond an owner's queue are refused at once with 429, beyond the service's queue with 503", async () => {
    const admitted = [shortQueues.run('pdfText', slow, 'a'), shortQueues.run('tokens', ['x'], 'a'), shortQueues.run('tokens', ['x'], 'a')];
    const overOwner = await shortQueues.run('tokens', ['x'], 'a').catch((e: unknown) => e);
    expect(overOwner).toBeInstanceOf(OwnerBusyError);
    expect(overOwner).toMatchObject({
      code: 'rate_limit_exceeded',
      data: { retryAfterSeconds: 1 },
      message: 'Too many files are being read for this account at once: at most 1 at a time and 2 waiting. Retry when your earlier requests have finished.',
    });
    admitted.push(shortQueues.run('tokens', ['x'], 'b'));
    const overService = await shortQueues.run('tokens', ['x'], 'c').catch((e: unknown) => e);
    expect(overService).toBeInstanceOf(ServiceBusyError);
    expect(overService).toMatchObject({ code: 'dependency_unavailable' });
    const outcomes = await Promise.allSettled(admitted);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });

  test('a job that waits longer than allowed for its turn is refused with 503', async () => {
    const since = performance.now();
    const running = shortWait.run('pdfText', slow, 'a');
    const late = shortWait.run('tokens', ['x'], 'b');
    await expect(late).rejects.toThrow(ServiceBusyError);
    expect(performance.now() - since).toBeLessThan(1000);
    await expect(running).rejects.toThrow(OverBudgetError);
  });

  test("a job waiting for its own owner's jobs (one request's files) is not refused for the time that takes", async () => {
    const running = ownWait.run('pdfText', slow, 'a').catch((e: unknown) => e);
    // it waits a second for the slow one, more than the 300 ms allowed for a thread others hold
    await expect(ownWait.run('tokens', ['x'], 'a')).resolves.toEqual([1]);
    expect(await running).toBeInstanceOf(OverBudgetError);
  });

  test("a job's signal drops it while it waits and stops it while it runs, its reader's tools ended; the next job runs", async () => {
    const request = new AbortController();
    // read whole, this file would take the reader most of a minute, writing nothing as it goes
    // (so that no broken output pipe is what ends its tools)
    const running = roomyThread.run('pdfText', sharedStreamPdf(2000, 1 << 20, { text: false }), 'a', request.signal).then(() => 'read', (e: Error) => e.message);
    const waiting = roomyThread.run('tokens', ['x'], 'a', request.signal);
    const other = roomyThread.run('tokens', ['y'], 'b');
    // once the reader reads the pages
    await until(() => readerTools().some((args) => /\bpdftotext\b/.test(args)));
    request.abort(new Error('the request went away'));
    await expect(waiting).rejects.toThrow('the request went away');
    await expect(roomyThread.run('tokens', ['x'], 'a', request.signal)).rejects.toThrow('the request went away');
    expect(await running).toBe('the request went away');
    await expect(other).resolves.toEqual([1]);
    await until(() => readerTools().length === 0);
    await expect(roomyThread.run('pdfText', sample, 'a')).resolves.toHaveLength(4);
  });
});

describe('token counting', () => {
  test('ordinary text is counted on the spot, so concurrent queries of one key never queue for it', async () => {
    const unused = { run: () => Promise.reject(new Error('the pool was asked')) };
    const texts = ['What do plants need for photosynthesis?', 'ප්‍රභාසංශ්ලේෂණය සඳහා ශාක වලට ආලෝකය අවශ්‍ය වේ. '.repeat(400)];
    await expect(countTokensOf(unused, 'a', texts)).resolves.toEqual([expect.any(Number), expect.any(Number)]);
    // a long run without whitespace is what makes the tokenizer slow: that goes to the pool
    await expect(countTokensOf(unused, 'a', ['x'.repeat(300)])).rejects.toThrow('the pool was asked');
  });
});

describe('starting', () => {
  test("without poppler's tools on PATH the reader refuses to start, saying what to install", () => {
    expect(() => requirePopplerTools({ PATH: '/nonexistent' })).toThrow(
      new ConfigError(
        'Cannot read PDFs: pdfinfo, pdffonts, pdftotext, timeout, prlimit not found on PATH. Install poppler-utils (Debian: apt-get install poppler-utils), or run scripts/setup.sh.',
      ),
    );
  });

  test('with the tools installed the service\'s pool starts and reads', async () => {
    const pool = WorkerPool.fromSettings(loadHeavyWorkSettings({}));
    try {
      expect(await pool.run('pdfText', sample, 'a')).toHaveLength(4);
    } finally {
      await pool.close();
    }
  });
});
