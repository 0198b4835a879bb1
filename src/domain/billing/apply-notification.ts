import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckoutOrder, PaymentNotification, Subscription } from '../../db/entities.js';
import { isUsable } from '../accounts/subscriptions.js';
import { recordAudit } from '../audit/audit-log.js';
import { recordSubscriptionEvent } from './subscription-events.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { PaymentEvent, PaymentGateway } from '../ports/payment-gateway.js';
import { CANCEL_RECURRING_QUEUE } from './subscriptions.js';

const MONTH_MS = 30 * 86_400_000;
/**
 * PayHere's signature covers the merchant, order, amount, currency and status, not the payment id
 * or the next charge date: a next date further than two billing periods and a few days' grace
 * from now is not believed (a copy of a real notice with a new payment id and a date years ahead
 * would otherwise pay for those years). Two, because a notice delivered late may already name the
 * charge after next.
 */
const MAX_AHEAD_MS = 65 * 86_400_000;

/**
 * Applies one stored notification to the account it concerns, exactly once: the row is locked
 * and marked processed in the same transaction as the change. Safe to run again (a retried job).
 * Transitions (README "Subscriptions"): an order's first payment -> active on its plan, and a
 * renewal of the current order -> active, until the next charge date;
 * declined -> the order is declined, the subscription unchanged; stopped -> cancelled; charged
 * back -> expired; a failed renewal changes nothing (the paid period runs out by itself).
 */
export async function applyNotification(em: EntityManager, gateway: PaymentGateway, queue: JobQueue, notificationId: string, now: Date): Promise<string> {
  // recurring payments that no longer pay for the account's plan, stopped once the change is committed
  const stop: string[] = [];
  const outcome = await em.transactional(async (tx) => {
    const notification = await tx.findOne(PaymentNotification, { id: notificationId }, { lockMode: 4 /* pessimistic write */ });
    if (!notification || notification.processedAt) return notification?.outcome ?? 'unknown notification';
    const read = gateway.readNotification(Object.fromEntries(new URLSearchParams(notification.body)));
    const result = read.verified ? await apply(tx, read.event, stop, now) : `rejected: ${read.reason}`;
    notification.processedAt = now;
    notification.outcome = result;
    return result;
  });
  for (const gatewaySubscriptionId of stop) await queue.send(CANCEL_RECURRING_QUEUE, { gatewaySubscriptionId });
  return outcome;
}

async function apply(tx: EntityManager, event: PaymentEvent, stop: string[], now: Date): Promise<string> {
  const order = await tx.findOne(CheckoutOrder, { id: event.orderId }, { populate: ['plan', 'account'] });
  if (!order) return 'ignored: unknown order';
  const subscription = await tx.findOne(Subscription, { account: order.account }, { orderBy: { createdAt: 'desc' } });
  const current = subscription?.orderId === order.id;
  switch (event.kind) {
    case 'pending':
      return 'pending: nothing to do yet';
    case 'declined':
      if (order.state === 'pending') order.state = 'declined';
      return 'declined';
    case 'renewal_failed':
      return 'renewal failed: the paid period runs out by itself';
    case 'stopped':
    case 'charged_back':
      if (!subscription || !current) return `${event.kind}: not the current subscription`;
      subscription.state = event.kind === 'stopped' ? 'cancelled' : 'expired';
      recordAudit(tx, { accountId: order.account.id, userId: null, action: 'subscription.changed', subject: order.plan.name, detail: { state: subscription.state, by: 'payment gateway' } }, now);
      recordSubscriptionEvent(tx, order.account.id, order.plan.code, subscription, true, now);
      return event.kind;
    case 'paid':
    case 'renewed':
      break;
  }
  if (Number(event.amount) !== Number(order.amount) || event.currency !== order.currency) {
    return `ignored: paid ${event.amount} ${event.currency}, the order is ${order.amount} ${order.currency}`;
  }
  const next = event.nextChargeOn;
  const believable = next !== null && next > now && next.getTime() - now.getTime() <= MAX_AHEAD_MS;
  const periodEnd = believable ? next : new Date(now.getTime() + MONTH_MS);
  const previousEnd = current ? subscription.currentPeriodEnd : null;
  // a renewal pays for the month before its next charge, whenever (and in whatever order) its notice arrives
  const periodStart = event.kind === 'renewed' ? monthBefore(periodEnd) : now;
  await tx.execute(
    `insert into invoice (id, account_id, order_id, payment_id, plan_name, amount, currency, period_start, period_end, paid_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (payment_id) do nothing`,
    [randomUUID(), order.account.id, order.id, event.paymentId, order.plan.name, order.amount, order.currency, periodStart, periodEnd, now],
  );
  const firstPayment = order.paidAt === null;
  order.state = 'paid';
  order.paidAt ??= now;
  const recorded = subscription?.gatewaySubscriptionId ?? null;
  const gatewayId = event.gatewaySubscriptionId;
  // The first payment of an order is the most recent choice of plan and replaces any other (the
  // order it was created in does not matter). Any other notice (a renewal, a repeat, the same form
  // paid twice) only carries on the account's current order while it is active, on the recurring
  // payments recorded for it: a cancelled plan, or one replaced by Free, a trial or another order,
  // is never brought back by its late notices.
  const carriesOn = current && subscription.state === 'active' && (!recorded || !gatewayId || gatewayId === recorded);
  if (!(event.kind === 'paid' && firstPayment) && !carriesOn) {
    // money taken for recurring payments no plan is paid by: they stop
    if (gatewayId && gatewayId !== recorded) stop.push(gatewayId);
    const why = !current ? 'the order no longer gives the plan' : subscription.state !== 'active' ? `the subscription is ${subscription.state}` : `the order's recurring payments are ${recorded}`;
    return `${event.kind}: invoice recorded, ${why}`;
  }
  const hadPlan = subscription !== null && isUsable(subscription, now);
  const target =
    subscription ??
    tx.create(Subscription, { id: randomUUID(), account: order.account, plan: order.plan, state: 'active', currentPeriodStart: now, createdAt: now });
  if (!current) {
    target.currentPeriodStart = now;
    // the plan this order replaces stops charging
    if (target.gatewaySubscriptionId && target.gatewaySubscriptionId !== event.gatewaySubscriptionId) stop.push(target.gatewaySubscriptionId);
  }
  target.plan = order.plan;
  target.state = 'active';
  target.trialEndsAt = null;
  target.orderId = order.id;
  target.gatewaySubscriptionId = event.gatewaySubscriptionId ?? target.gatewaySubscriptionId ?? null;
  target.currentPeriodEnd = previousEnd && previousEnd > periodEnd ? previousEnd : periodEnd;
  recordAudit(tx, { accountId: order.account.id, userId: null, action: 'subscription.changed', subject: order.plan.name, detail: { state: 'active', by: 'payment gateway', payment: event.paymentId } }, now);
  recordSubscriptionEvent(tx, order.account.id, order.plan.code, target, hadPlan, now);
  return event.kind;
}

function monthBefore(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - 1, date.getUTCDate()));
}
