import type { EntityManager } from '@mikro-orm/postgresql';
import { PaymentNotification } from '../../db/entities.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { PaymentGateway } from '../ports/payment-gateway.js';
import { uuidOfName } from '../uuid.js';

export const NOTIFICATION_QUEUE = 'billing-notification';

export type Receipt = { outcome: 'queued' | 'duplicate' | 'order busy' } | { outcome: 'rejected'; reason: string };

/**
 * The most notifications of one order that may wait to be processed. PayHere sends about one a
 * month for an order; the signature leaves the payment id out, so a customer who had their own
 * order's notice sent to them could send it on under any number of new payment ids, each asking
 * PayHere's merchant API several times before it is ignored.
 */
export const MAX_WAITING_PER_ORDER = 20;

/**
 * Keeps a gateway notification as received, checks its signature, and hands a new verified one
 * to the durable queue. A repeat of one already received (same order, payment, status and message) is
 * stored but never processed twice; a notification whose signature fails is stored (unless
 * `storeRefused` is false: its address sent too many) and refused; a new one of an order with
 * MAX_WAITING_PER_ORDER waiting already is not stored.
 */
export async function receiveNotification(em: EntityManager, gateway: PaymentGateway, queue: JobQueue, body: string, fields: Record<string, string>, now: Date, storeRefused = true): Promise<Receipt> {
  const read = gateway.readNotification(fields);
  // kept for lookups only when it looks like an order id: a forged one may carry anything (a NUL byte included)
  const orderId = /^[\x21-\x7e]{1,64}$/.test(fields.order_id ?? '') ? fields.order_id! : null;
  if (!read.verified) {
    if (storeRefused) {
      em.create(PaymentNotification, { receivedAt: now, body, verified: false, orderId, outcome: `rejected: ${read.reason}`, processedAt: now });
      await em.flush();
    }
    return { outcome: 'rejected', reason: read.reason };
  }
  const row = await em.transactional(async (tx) => {
    // the order's notifications are counted and stored one at a time, so that simultaneous ones keep to the cap
    await tx.execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`payment_notification:${orderId}`]);
    // a repeat of one received is told so whatever waits: PayHere repeats a notice until it is answered 200
    const [seen] = await tx.execute<{ id: string }[]>('select id from payment_notification where dedupe_key = ?', [read.dedupeKey]);
    if (seen) return undefined;
    const [waiting] = await tx.execute<{ n: number }[]>('select count(*)::int as n from payment_notification where order_id = ? and verified and processed_at is null', [orderId]);
    if (waiting!.n >= MAX_WAITING_PER_ORDER) return 'order busy' as const;
    const [inserted] = await tx.execute<{ id: string }[]>(
      `insert into payment_notification (received_at, body, verified, dedupe_key, order_id) values (?, ?, true, ?, ?)
       on conflict (dedupe_key) do nothing returning id`,
      [now, body, read.dedupeKey, orderId],
    );
    return inserted;
  });
  if (row === 'order busy') return { outcome: 'order busy' };
  if (!row) {
    em.create(PaymentNotification, { receivedAt: now, body, verified: true, orderId, outcome: 'duplicate', processedAt: now });
    await em.flush();
    // the first may be stored but not queued (its queueing failed): PayHere's repeat queues it,
    // which adds nothing while its job exists
    const [first] = await em.execute<{ id: string }[]>('select id::text as id from payment_notification where dedupe_key = ? and processed_at is null', [read.dedupeKey]);
    if (first) await queueNotification(queue, first.id);
    return { outcome: 'duplicate' };
  }
  await queueNotification(queue, String(row.id));
  return { outcome: 'queued' };
}

/**
 * Queues the processing of a stored notification under one job id of its own, so that queueing it
 * again adds nothing while its job waits, runs or waits for a retry. A job whose retries are spent
 * (PayHere out of reach for hours) is replaced: the next start or billing sweep tries such a notice again.
 */
function queueNotification(queue: JobQueue, notificationId: string): Promise<void> {
  return queue.send(NOTIFICATION_QUEUE, { notificationId }, { id: uuidOfName(`${NOTIFICATION_QUEUE}:${notificationId}`), replaceFailed: true });
}

/**
 * At start and at every billing sweep: verified notifications not processed yet are queued again,
 * those the process stopped between storing and queueing among them.
 */
export async function queueUnprocessedNotifications(em: EntityManager, queue: JobQueue): Promise<void> {
  const rows = await em.find(PaymentNotification, { verified: true, processedAt: null, dedupeKey: { $ne: null } }, { fields: ['id'] });
  for (const { id } of rows) await queueNotification(queue, id);
}
