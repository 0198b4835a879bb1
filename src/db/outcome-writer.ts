import type { LoggedOutcome } from './request-log.js';

/** Outcomes written in one statement at most; more wait for the next. */
const MAX_BATCH = 500;

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
 * this request's outcome was written". A graceful stop waits for `idle()`.
 */
export class OutcomeWriter {
  private queue: { outcome: LoggedOutcome; settle: (error?: Error) => void }[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly writeBatch: (outcomes: LoggedOutcome[]) => Promise<void>) {}

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
      let failure: Error | undefined;
      try {
        await this.writeBatch(batch.map((entry) => entry.outcome));
      } catch (error) {
        // reported to each request's own promise, whose caller logs it
        failure = error instanceof Error ? error : new Error(`the outcomes could not be written: ${String(error)}`);
      }
      for (const entry of batch) entry.settle(failure);
    }
    this.draining = null;
  }
}
