import type { Orm } from '../db/orm.js';
import type { Clock } from '../clock.js';
import type { Logger } from 'pino';
import { applyNotification } from '../domain/billing/apply-notification.js';
import { NOTIFICATION_QUEUE, queueUnprocessedNotifications } from '../domain/billing/notifications.js';
import { CANCEL_RECURRING_QUEUE, queueRecordedStops, stopDone } from '../domain/billing/recurring-stops.js';
import type { PaymentGateway } from '../domain/ports/payment-gateway.js';
import type { PgBossQueue, QueuePolicy } from './pg-boss-queue.js';

/**
 * Both billing queues wait on PayHere (confirming a payment, stopping recurring payments), so
 * their jobs outlast a long gateway outage: backoff up to 15 minutes, about 12 hours in all.
 */
export const GATEWAY_POLICY: Partial<QueuePolicy> = { retryLimit: 60, retryDelay: 2, retryBackoff: true, retryDelayMax: 900 };

/**
 * Processes payment notifications, and stops recurring payments at the gateway, from the queue in this process. At start, verified
 * notifications not processed yet, and recorded stops not done yet, are queued again: those stored but never queued (a stop between
 * the two), and those whose retries were spent.
 */
export async function startBillingWorker(queue: PgBossQueue, orm: Orm, gateway: PaymentGateway, unlistedRetries: number, clock: Clock, log: Logger): Promise<void> {
  await queueUnprocessedNotifications(orm.em.fork(), queue);
  await queueRecordedStops(orm.em.fork(), queue);
  await queue.work(NOTIFICATION_QUEUE, async (data, attempt) => {
    const outcome = await applyNotification(orm.em.fork(), gateway, queue, String(data.notificationId), clock.now(), attempt.retryCount < unlistedRetries);
    log.info({ notification: data.notificationId, outcome }, 'payment notification processed');
  }, log);
  await queue.work(CANCEL_RECURRING_QUEUE, async (data) => {
    const outcome = await gateway.cancelRecurring(String(data.gatewaySubscriptionId));
    // a job queued before stops were recorded has no stopId
    if (typeof data.stopId === 'string') await stopDone(orm.em.fork(), data.stopId);
    log.info({ gatewaySubscription: data.gatewaySubscriptionId, outcome }, 'recurring payments stopped at the gateway');
  }, log);
}
