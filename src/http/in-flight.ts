import { OutcomeWriter } from '../db/outcome-writer.js';
import type { RequestLog } from '../db/request-log.js';

/** How long the outcome of an answered request may wait to share its statement with others (src/db/outcome-writer.ts). */
const OUTCOME_LINGER_MS = 10;

export interface Outcome {
  status: number;
  model?: string;
  tokens?: number;
  costUsd?: number;
  /** from admission to the answer */
  durationMs?: number;
  /** the store a query asked */
  storeId?: string;
}

/**
 * The admitted requests still being answered by this process, and the writer of their outcomes.
 * Each has a request-log row without a status until `finish`; when shutdown must cut them, they
 * are recorded as 503 so that no admitted request is left without an outcome.
 */
export class InFlightRequests {
  private readonly logIds = new Set<string>();
  private readonly outcomes: OutcomeWriter;

  constructor(readonly requests: RequestLog) {
    this.outcomes = new OutcomeWriter((batch) => requests.writeOutcomes(batch), { lingerMs: OUTCOME_LINGER_MS });
  }

  add(logId: string): void {
    this.logIds.add(logId);
  }

  /**
   * The request is answered: its outcome is written with others (settles once committed);
   * `awaited` when the caller waits for it, so that it does not linger.
   */
  finish(logId: string, outcome: Outcome, awaited = false): Promise<void> {
    this.logIds.delete(logId);
    return this.write(logId, outcome, awaited);
  }

  get size(): number {
    return this.logIds.size;
  }

  /** Settles once every outcome given so far is written. */
  idle(): Promise<void> {
    return this.outcomes.idle();
  }

  /**
   * Records the requests still open as cut (503); returns how many. A handler that still finishes
   * afterwards finds its row with an outcome already (a row takes one), so the 503 stands.
   */
  async cut(): Promise<number> {
    const ids = [...this.logIds];
    this.logIds.clear();
    await Promise.all(ids.map((id) => this.write(id, { status: 503 }, true)));
    // the outcomes of requests answered just before may still linger
    await this.outcomes.idle();
    return ids.length;
  }

  private write(logId: string, outcome: Outcome, urgent: boolean): Promise<void> {
    return this.outcomes.write(
      {
        logId,
        status: outcome.status,
        model: outcome.model ?? null,
        tokens: outcome.tokens ?? 0,
        costUsd: outcome.costUsd ?? 0,
        durationMs: outcome.durationMs === undefined ? null : Math.round(outcome.durationMs),
        storeId: outcome.storeId ?? null,
      },
      urgent,
    );
  }
}
