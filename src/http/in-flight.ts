import type { Orm } from '../db/orm.js';
import { recordOutcome } from '../domain/usage/usage.js';

/**
 * The admitted requests still being answered by this process. Each has a request-log row
 * without a status; when shutdown must cut them, they are recorded as 503 so that no admitted
 * request is left without an outcome.
 */
export class InFlightRequests {
  private readonly logIds = new Set<string>();

  add(logId: string): void {
    this.logIds.add(logId);
  }

  delete(logId: string): void {
    this.logIds.delete(logId);
  }

  get size(): number {
    return this.logIds.size;
  }

  /** Records the requests still open as cut (503); returns how many. */
  async cut(orm: Orm): Promise<number> {
    const ids = [...this.logIds];
    const em = orm.em.fork();
    for (const id of ids) await recordOutcome(em, id, { status: 503 });
    this.logIds.clear();
    return ids.length;
  }
}
