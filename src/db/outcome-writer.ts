import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable } from './availability.js';
import type { LoggedOutcome } from './request-log.js';

/** Outcomes written in one statement at most; more wait for the next. */
const MAX_BATCH = 500;
/** Waits before writing again a batch the database could not be reached for: a restart or failover takes seconds. */
const RETRY_DELAYS_MS = [100, 500, 2_000];

/**
 * Writes the final status of finished requests to their log rows, as a group commit: one
 * statement at a time, and every outcome that arrives while one is being written goes into the
 * next, so under load many requests share one statement and one commit instead of each paying a
 * second transaction. Each `write` settles when its outcome is committed, for callers that must
 * not answer before it is (a request that used tokens: GET /usage must see them).
 *
 * Crash safety: the log row and the counters were written at admission, in the same commit, so
 * a request counts toward every limit and toward usage whatever happens after. What a crash
 * (kill -9, power loss) can lose is only the status of requests that finished in the last
 * statement's time (a few milliseconds), or, for a crash of PostgreSQL itself, in the fraction of a
 * second before its WAL reached the disk (the statement commits without waiting for the flush,
 * src/db/request-log.ts): their rows keep a null status, which reads "the process ended before
 * this request's outcome was written". A graceful stop waits for `idle()`. A statement that could
 * not reach the database is run again after pauses (2.6 s in all); one the database refused is
 * split into one statement per outcome, so only the outcome at fault is lost.
 */
export class OutcomeWriter {
  private queue: { outcome: LoggedOutcome; settle: (error?: Error) => void }[] = [];
  private draining: Promise<void> | null = null;

  constructor(
    private readonly writeBatch: (outcomes: LoggedOutcome[]) => Promise<void>,
    private readonly retryDelaysMs: readonly number[] = RETRY_DELAYS_MS,
  ) {}

  write(outcome: LoggedOutcome): Promise<void> {
    const written = new Promise<void>((resolve, reject) => this.queue.push({ outcome, settle: (error) => (error === undefined ? resolve() : reject(error)) }));
    this.draining ??= this.drain();
    return written;
  }

  /** Settles once every outcome given so far is written (or failed). */
  async idle(): Promise<void> {
    await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      const failure = await this.attempt(batch.map((entry) => entry.outcome));
      if (failure && batch.length > 1 && !isDatabaseUnavailable(failure)) {
        // one outcome the database refuses must not cost the others theirs
        for (const entry of batch) entry.settle(await this.attempt([entry.outcome]));
      } else {
        // reported to each request's own promise, whose caller logs it
        for (const entry of batch) entry.settle(failure);
      }
    }
    this.draining = null;
  }

  /** Writes the outcomes, again after a pause while the database cannot be reached; the last error if never. */
  private async attempt(outcomes: LoggedOutcome[]): Promise<Error | undefined> {
    for (let retry = 0; ; retry++) {
      try {
        await this.writeBatch(outcomes);
        return undefined;
      } catch (error) {
        const delay = this.retryDelaysMs[retry];
        if (delay === undefined || !isDatabaseUnavailable(error)) return error instanceof Error ? error : new Error(`the outcomes could not be written: ${String(error)}`);
        await sleep(delay);
      }
    }
  }
}
