import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable } from './availability.js';
import type { LoggedOutcome } from './request-log.js';

/** Outcomes written in one statement at most; more wait for the next. */
const MAX_BATCH = 500;
/** Waits before writing again a batch the database could not be reached for: a restart or failover takes seconds. */
const RETRY_DELAYS_MS = [100, 500, 2_000];

export interface OutcomeWriterOptions {
  /** Pauses before each new attempt at a statement that could not reach the database. */
  retryDelaysMs?: readonly number[];
  /**
   * How long an outcome nobody waits for may wait for others to share its statement. Under load
   * most outcomes are of requests already answered, and one statement for many of them costs the
   * database far less than one each; 0 writes as soon as the previous statement is done.
   */
  lingerMs?: number;
}

interface Entry {
  outcome: LoggedOutcome;
  urgent: boolean;
  queuedAt: number;
  settle: (error?: Error) => void;
}

/**
 * Writes the final status of finished requests to their log rows, as a group commit: one
 * statement at a time, and every outcome that arrives while one is being written, or while the
 * oldest waiting outcome lingers (`lingerMs`), goes into the next, so under load many requests
 * share one statement and one commit instead of each paying a second transaction. An outcome
 * written `urgent` (its caller waits for it: a query, whose tokens the next GET /usage must
 * see) ends the lingering, and so does `idle()`. Each `write` settles when its outcome is committed.
 *
 * Crash safety: the log row and the counters were written at admission, in the same commit, so
 * a request counts toward every limit and toward usage whatever happens after. What a crash
 * (kill -9, power loss) can lose is only the status of requests that finished in the last
 * `lingerMs` and statement's time (milliseconds), or, for a crash of PostgreSQL itself, in the
 * fraction of a second before its WAL reached the disk (the statement commits without waiting
 * for the flush, src/db/request-log.ts): their rows keep a null status, which reads "the process
 * ended before this request's outcome was written". A graceful stop waits for `idle()`. A
 * statement that could not reach the database is run again after pauses (2.6 s in all); one the
 * database refused is split into one statement per outcome, so only the outcome at fault is lost.
 */
export class OutcomeWriter {
  private queue: Entry[] = [];
  private draining: Promise<void> | null = null;
  /** Set by `idle()` until the queue is empty: nothing lingers. */
  private flushing = false;
  /** Ends the current lingering early. */
  private wake: (() => void) | null = null;
  private readonly retryDelaysMs: readonly number[];
  private readonly lingerMs: number;

  constructor(
    private readonly writeBatch: (outcomes: LoggedOutcome[]) => Promise<void>,
    options: OutcomeWriterOptions = {},
  ) {
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.lingerMs = options.lingerMs ?? 0;
  }

  /** Queues the outcome; `urgent` when the caller waits for it, so that it is written without lingering. */
  write(outcome: LoggedOutcome, urgent = false): Promise<void> {
    const written = new Promise<void>((resolve, reject) =>
      this.queue.push({ outcome, urgent, queuedAt: performance.now(), settle: (error) => (error === undefined ? resolve() : reject(error)) }),
    );
    if (urgent || this.queue.length >= MAX_BATCH) this.wake?.();
    this.draining ??= this.drain();
    return written;
  }

  /** Settles once every outcome given so far is written (or failed), writing them without lingering. */
  async idle(): Promise<void> {
    if (!this.draining) return;
    this.flushing = true;
    this.wake?.();
    await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const lingering = this.linger();
      // awaited only when it waits, so that without lingering the first outcome of an idle writer
      // leaves at once, in the same turn
      if (lingering) await lingering;
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
    this.flushing = false;
  }

  /** Waits until the oldest queued outcome has lingered its time, unless something asks for the queue now; null when nothing waits. */
  private linger(): Promise<void> | null {
    const remaining = this.lingerMs - (performance.now() - this.queue[0]!.queuedAt);
    if (remaining <= 0 || this.flushing || this.queue.length >= MAX_BATCH || this.queue.some((entry) => entry.urgent)) return null;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, remaining);
      this.wake = done;
    });
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
