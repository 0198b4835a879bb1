import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { repeatEvery } from '../../src/jobs/repeat-every.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that keeps the messages of its warnings. */
function warnings() {
  const messages: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void messages.push((JSON.parse(line) as { msg: string }).msg) });
  return { log, messages };
}

describe('a task repeated on a timer', () => {
  it('runs one at a time, and stopping waits for the run in progress', async () => {
    const { log } = warnings();
    let running = 0;
    let most = 0;
    let runs = 0;
    let finished = 0;
    const stop = repeatEvery(
      5,
      async () => {
        runs += 1;
        running += 1;
        most = Math.max(most, running);
        await sleep(40);
        running -= 1;
        finished += 1;
      },
      log,
      'failed',
    );
    await sleep(60);
    await stop();
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(most).toBe(1);
    expect(finished).toBe(runs);
    await sleep(30);
    expect(runs).toBe(finished);
  });

  it('tells a long run that it is being stopped, so that stopping need not wait for all of it', async () => {
    const { log } = warnings();
    let steps = 0;
    let started = false;
    const stop = repeatEvery(
      5,
      async (stopping) => {
        started = true;
        for (let i = 0; i < 100 && !stopping.aborted; i++) {
          steps += 1;
          await sleep(10);
        }
      },
      log,
      'failed',
    );
    while (!started) await sleep(5);
    await stop();
    expect(steps).toBeGreaterThanOrEqual(1);
    expect(steps).toBeLessThan(100);
  });

  it('logs a failed run and runs again at the next tick', async () => {
    const { log, messages } = warnings();
    let runs = 0;
    const stop = repeatEvery(
      5,
      () => {
        runs += 1;
        return Promise.reject(new Error('database down'));
      },
      log,
      'could not sweep',
    );
    while (runs < 2) await sleep(5);
    await stop();
    expect(messages.slice(0, 2)).toEqual(['could not sweep', 'could not sweep']);
  });
});
