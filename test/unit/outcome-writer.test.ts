import { describe, expect, it } from '@jest/globals';
import { OutcomeWriter } from '../../src/db/outcome-writer.js';
import type { LoggedOutcome } from '../../src/db/request-log.js';

const outcome = (logId: string, status = 200): LoggedOutcome => ({ logId, status, model: null, tokens: 0, costUsd: 0, durationMs: null, storeId: null });

/** A batch writer whose writes finish when the test says so. */
function controlledWriter(lingerMs = 0) {
  const batches: string[][] = [];
  const finish: ((error?: Error) => void)[] = [];
  const writer = new OutcomeWriter(
    (outcomes) =>
      new Promise<void>((resolve, reject) => {
        batches.push(outcomes.map((o) => o.logId));
        finish.push((error) => (error ? reject(error) : resolve()));
      }),
    { lingerMs },
  );
  return { writer, batches, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('outcome writer (group commit)', () => {
  it('writes the first outcome at once and every outcome that arrives meanwhile in the next statement', async () => {
    const { writer, batches, finish } = controlledWriter();
    const first = writer.write(outcome('1'));
    const later = ['2', '3', '4'].map((id) => writer.write(outcome(id)));
    await tick();
    expect(batches).toEqual([['1']]);
    finish[0]!();
    await first;
    await tick();
    expect(batches).toEqual([['1'], ['2', '3', '4']]);
    finish[1]!();
    await Promise.all(later);
    await writer.idle();
  });

  it('rejects the outcomes of a failed statement only, and goes on with the next', async () => {
    const { writer, batches, finish } = controlledWriter();
    const failed = writer.write(outcome('1'));
    const next = writer.write(outcome('2'));
    await tick();
    finish[0]!(new Error('database down'));
    await expect(failed).rejects.toThrow('database down');
    await tick();
    expect(batches).toEqual([['1'], ['2']]);
    finish[1]!();
    await expect(next).resolves.toBeUndefined();
  });

  it('writes again, after a pause, a statement that could not reach the database', async () => {
    const tries: string[][] = [];
    const writer = new OutcomeWriter((outcomes) => {
      tries.push(outcomes.map((o) => o.logId));
      return tries.length < 3 ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })) : Promise.resolve();
    }, { retryDelaysMs: [1, 1, 1] });
    await expect(writer.write(outcome('1'))).resolves.toBeUndefined();
    expect(tries).toEqual([['1'], ['1'], ['1']]);
  });

  it('gives up on an unreachable database after its last pause, with the database error', async () => {
    let tries = 0;
    const writer = new OutcomeWriter(() => {
      tries++;
      return Promise.reject(new Error('Connection terminated unexpectedly'));
    }, { retryDelaysMs: [1, 1] });
    await expect(writer.write(outcome('1'))).rejects.toThrow('Connection terminated unexpectedly');
    expect(tries).toBe(3);
  });

  it('writes each outcome of a refused statement on its own, so only the one at fault fails', async () => {
    const statements: string[][] = [];
    const writer = new OutcomeWriter((outcomes) => {
      statements.push(outcomes.map((o) => o.logId));
      return outcomes.some((o) => o.status === 999) ? Promise.reject(new Error('value out of range')) : Promise.resolve();
    }, { retryDelaysMs: [] });
    const first = writer.write(outcome('1'));
    const rest = [writer.write(outcome('2')), writer.write(outcome('3', 999)), writer.write(outcome('4'))];
    await first;
    const settled = await Promise.allSettled(rest);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(statements).toEqual([['1'], ['2', '3', '4'], ['2'], ['3'], ['4']]);
  });

  it('is idle only once every outcome given so far is written', async () => {
    const { writer, finish } = controlledWriter();
    void writer.write(outcome('1'));
    let idle = false;
    const waiting = writer.idle().then(() => (idle = true));
    await tick();
    expect(idle).toBe(false);
    finish[0]!();
    await waiting;
    expect(idle).toBe(true);
  });
});

describe('outcome writer, lingering for company', () => {
  it('holds the outcomes nobody waits for until the first has lingered, then writes them in one statement', async () => {
    const { writer, batches, finish } = controlledWriter(1_000);
    const written = ['1', '2'].map((id) => writer.write(outcome(id)));
    await tick();
    expect(batches).toEqual([]);
    written.push(writer.write(outcome('3')));
    while (batches.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(batches).toEqual([['1', '2', '3']]);
    finish[0]!();
    await Promise.all(written);
  });

  it('writes at once when an outcome is awaited, taking the lingering ones with it', async () => {
    const { writer, batches, finish } = controlledWriter(60_000);
    const lingering = writer.write(outcome('1'));
    await tick();
    expect(batches).toEqual([]);
    const awaited = writer.write(outcome('2'), true);
    await tick();
    expect(batches).toEqual([['1', '2']]);
    finish[0]!();
    await Promise.all([lingering, awaited]);
  });

  it('writes at once what lingers when asked to be idle (a graceful stop)', async () => {
    const { writer, batches, finish } = controlledWriter(60_000);
    const lingering = writer.write(outcome('1'));
    await tick();
    expect(batches).toEqual([]);
    const idle = writer.idle();
    await tick();
    expect(batches).toEqual([['1']]);
    finish[0]!();
    await Promise.all([lingering, idle]);
    // lingering applies again to what comes after
    void writer.write(outcome('2'));
    await tick();
    expect(batches).toEqual([['1']]);
    void writer.idle();
    await tick();
    finish[1]!();
    await writer.idle();
    expect(batches).toEqual([['1'], ['2']]);
  });
});
