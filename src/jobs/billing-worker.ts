import type { Orm } from '../db/orm.js';
import type { Clock } from '../clock.js';
import type { Logger } from 'pino';
import { applyNotification } from '../domain/billing/apply-notification.js';
import { NOTIFICATION_QUEUE, queueUnprocessedNotifications } from '../domain/billing/notifications.js';
import { CANCEL_RECURRING_QUEUE, queueRecordedStops, stopDone } from '../domain/billing/recurring-stops.js';
import type { PaymentGateway } from '../domain/ports/payment-gateway.js';
import type { PgBossQueue, QueuePolicy } from './pg-boss-queue.js';
import { repeatEvery } from './repeat-every.js';

/**
 * Both billing queues wait on PayHere (confirming a payment, stopping recurring payments), so
 * their jobs outlast a long gateway outage: backoff up to 15 minutes, about 12 hours in all.
 */
export const GATEWAY_POLICY: Partial<QueuePolicy> = { retryLimit: 60, retryDelay: 2, retryBackoff: true, retryDelayMax: 900 };

export interface BillingSettings {
  /** attempts of a notification's job that wait for PayHere to list its payment before ignoring it */
  unlistedRetries: number;
  /** how often the sweep queues again what is left undone */
  sweepMs: number;
}

/**
 * Processes payment notifications, and stops recurring payments at the gateway, from the queue in
 * this process. At start and then every `sweepMs`, verified notifications not processed yet, and
 * recorded stops not done yet, are queued again: those stored but never queued (a stop between the
 * two, a queue that failed after a plan change was committed), and those whose retries were spent
 * (a gateway down for more than their 12 hours: recurring payments that no plan is paid by keep
 * being stopped until they are). Queueing one again adds nothing while its job waits or runs.
 * Returns a function that stops the sweep, once the one running (if any) has ended.
 */
export async function startBillingWorker(queue: PgBossQueue, orm: Orm, gateway: PaymentGateway, settings: BillingSettings, clock: Clock, log: Logger): Promise<() => Promise<void>> {
  const sweep = async () => {
    await queueUnprocessedNotifications(orm.em.fork(), queue);
    await queueRecordedStops(orm.em.fork(), queue);
  };
  await sweep();
  await queue.work(NOTIFICATION_QUEUE, async (data, attempt) => {
    const outcome = await applyNotification(orm.em.fork(), gateway, queue, String(data.notificationId), clock.now(), attempt.retryCount < settings.unlistedRetries);
    log.info({ notification: data.notificationId, outcome }, 'payment notification processed');
  }, log);
  await queue.work(CANCEL_RECURRING_QUEUE, async (data) => {
    const outcome = await gateway.cancelRecurring(String(data.gatewaySubscriptionId));
    // a job queued before stops were recorded has no stopId
    if (typeof data.stopId === 'string') await stopDone(orm.em.fork(), data.stopId);
    log.info({ gatewaySubscription: data.gatewaySubscriptionId, outcome }, 'recurring payments stopped at the gateway');
  }, log);
  return repeatEvery(settings.sweepMs, sweep, log, 'could not queue again the payment notifications and recurring-payment stops left undone');
}
