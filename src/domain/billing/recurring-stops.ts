import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { RecurringStop } from '../../db/entities.js';
import type { JobQueue } from '../ports/job-queue.js';
import { uuidOfName } from '../uuid.js';

// Recurring payments that no longer pay for a plan are stopped at the gateway by a durable job.
// The stop is written in the transaction of the change that ends the plan, and its job queued
// once that has committed; the row goes once the gateway has stopped them. A stop whose queueing
// failed, or whose job spent its retries, is queued again by the next processed notification, at
// every start and by the billing worker's sweep (BILLING_SWEEP_MS).

export const CANCEL_RECURRING_QUEUE = 'billing-cancel-recurring';

/** Records, in the caller's transaction, that the recurring payments are to be stopped. */
export function recordStop(tx: EntityManager, gatewaySubscriptionId: string, now: Date): void {
  tx.create(RecurringStop, { id: randomUUID(), gatewaySubscriptionId, requestedAt: now });
}

/**
 * Queues a job for each recorded stop, under one job id per stop: queueing one again adds nothing
 * while its job waits, runs or waits for a retry, and replaces a job whose retries are spent.
 */
export async function queueRecordedStops(em: EntityManager, queue: JobQueue): Promise<void> {
  for (const stop of await em.find(RecurringStop, {}, { orderBy: { requestedAt: 'asc' } })) {
    await queue.send(CANCEL_RECURRING_QUEUE, { stopId: stop.id, gatewaySubscriptionId: stop.gatewaySubscriptionId }, { id: uuidOfName(`${CANCEL_RECURRING_QUEUE}:${stop.id}`), replaceFailed: true });
  }
}

/** The gateway has stopped them: the stop is done. */
export async function stopDone(em: EntityManager, stopId: string): Promise<void> {
  await em.nativeDelete(RecurringStop, { id: stopId });
}
