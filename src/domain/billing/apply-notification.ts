import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CheckoutOrder, PaymentNotification, Subscription } from '../../db/entities.js';
import { hadPlanBefore, recordPlanChange } from './plan-changes.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { ConfirmedPayment, ListedRecurring, PaymentEvent, PaymentGateway } from '../ports/payment-gateway.js';
import { monthAfter } from './sri-lanka-time.js';
import { queueRecordedStops, recordStop } from './recurring-stops.js';
import { beginPlanChange } from './subscriptions.js';

/**
 * Applies one stored notification to the account it concerns, exactly once: the row is locked
 * and marked processed in the same transaction as the change. Safe to run again (a retried job).
 * Transitions (README "Subscriptions"): an order's first payment -> active on its plan, and a
 * renewal of the current order -> active, each for the month from the payment's date;
 * declined -> the order is declined, the subscription unchanged; stopped -> cancelled; charged
 * back -> expired, its recurring payments stopped; a failed renewal changes nothing (the paid
 * period runs out by itself).
 * A payment counts only as the gateway records it (its id, order, amount and date), and once; a
 * stop only once the gateway lists the plan's recurring payments stopped (the message type that
 * says so is not signed).
 */
export async function applyNotification(em: EntityManager, gateway: PaymentGateway, queue: JobQueue, notificationId: string, now: Date, waitForListing = false): Promise<string> {
  // recurring payments that no longer pay for the account's plan, recorded with the change (recordStop)
  const stop: string[] = [];
  const [stored] = await em.execute<{ body: string }[]>('select body from payment_notification where id = ? and processed_at is null', [notificationId]);
  const read = stored ? gateway.readNotification(Object.fromEntries(new URLSearchParams(stored.body))) : null;
  // asked before the transaction, so no lock is held while the gateway answers; a gateway that
  // cannot be asked fails the job, which the queue retries
  const event = read?.verified ? read.event : null;
  const paying = event !== null && (event.kind === 'paid' || event.kind === 'renewed');
  // a stop names the recurring payments it is about: only the gateway's list says whether they stopped
  const stopped = event?.kind === 'stopped' ? event.gatewaySubscriptionId : null;
  // a notice for no order of ours, or for another amount, is ignored without asking (or waiting for) the gateway
  const [order] = event && (paying || stopped) ? await em.execute<{ amount: string; currency: string }[]>('select amount, currency from checkout_order where id = ?', [event.orderId]) : [];
  const asking = paying && order !== undefined && sameAmount(event, order);
  const confirmed = asking ? await gateway.confirmPayment(event) : null;
  // a payment PayHere does not list yet may be listed in a moment: the queue tries again (with
  // backoff) before the notice is taken for a copy and ignored
  if (asking && !confirmed && waitForListing) throw new Error(`PayHere lists no payment ${event.paymentId} of order ${event.orderId} yet`);
  const checking = stopped && order !== undefined;
  const recurring = checking ? await gateway.listedRecurring(stopped) : null;
  // and so for recurring payments PayHere does not list yet
  if (checking && !recurring && waitForListing) throw new Error(`PayHere does not list recurring payments ${stopped} yet`);
  const outcome = await em.transactional(async (tx) => {
    const notification = await tx.findOne(PaymentNotification, { id: notificationId }, { lockMode: 4 /* pessimistic write */ });
    if (!notification || notification.processedAt || !read) return notification?.outcome ?? 'unknown notification';
    const result = read.verified ? await apply(tx, read.event, { confirmed, recurring }, stop, now) : `rejected: ${read.reason}`;
    for (const gatewaySubscriptionId of new Set(stop)) recordStop(tx, gatewaySubscriptionId, now);
    notification.processedAt = now;
    notification.outcome = result;
    return result;
  });
  // also when this is a retry of a job whose queueing failed after the commit
  await queueRecordedStops(em, queue);
  return outcome;
}

/** What the gateway's own lists, asked before the transaction, say of the notice's payment and of the recurring payments it says stopped. */
interface GatewayRecord {
  confirmed: ConfirmedPayment | null;
  recurring: ListedRecurring | null;
}

async function apply(tx: EntityManager, event: PaymentEvent, { confirmed, recurring }: GatewayRecord, stop: string[], now: Date): Promise<string> {
  // notices of one order, and changes to one account's plan, are applied one at a time
  const [locked] = await tx.execute<{ account_id: string }[]>('select account_id from checkout_order where id = ? for update', [event.orderId]);
  if (!locked) return 'ignored: unknown order';
  await beginPlanChange(tx, locked.account_id, now);
  const order = await tx.findOneOrFail(CheckoutOrder, { id: event.orderId }, { populate: ['plan', 'account'] });
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
    case 'stopped': {
      if (!subscription || !current) return 'stopped: not the current subscription';
      const named = event.gatewaySubscriptionId;
      // a stop of the order's other recurring payments (its form paid twice, the newer one stopped) leaves the plan
      if (subscription.gatewaySubscriptionId && named !== subscription.gatewaySubscriptionId) return `stopped: recurring payments ${named ?? '(none named)'} are not the plan's`;
      if (subscription.state !== 'active') return `stopped: the subscription is ${subscription.state}`;
      // the notice's message type is not signed (a copy of the order's payment notice can say
      // RECURRING_STOPPED): the plan ends only once the gateway lists its recurring payments
      // stopped; while it lists them charging, the plan they pay for stays. Those recorded for the
      // plan are the order's (its payments list tied them to it); others only as the list says.
      if (!named) return 'ignored: the notice names no recurring payments';
      if (!recurring) return `ignored: the gateway does not list recurring payments ${named}`;
      if (!subscription.gatewaySubscriptionId && recurring.orderId !== order.id) return `ignored: the gateway lists recurring payments ${named} for another order`;
      if (!recurring.stopped) return `ignored: the gateway lists recurring payments ${named} as ${recurring.status || 'not stopped'}`;
      // PayHere has stopped them: nothing to stop later
      subscription.state = 'cancelled';
      subscription.gatewaySubscriptionId = null;
      recordPlanChange(tx, { accountId: order.account.id, userId: null, plan: order.plan, subscription, hadPlan: true, detail: { by: 'payment gateway' } }, now);
      return 'stopped';
    }
    case 'charged_back':
      if (!subscription || !current) return 'charged_back: not the current subscription';
      subscription.state = 'expired';
      // a charged-back plan's recurring payments would go on taking money for no plan, so they
      // stop (those the notice names are not signed)
      if (subscription.gatewaySubscriptionId) stop.push(subscription.gatewaySubscriptionId);
      subscription.gatewaySubscriptionId = null;
      recordPlanChange(tx, { accountId: order.account.id, userId: null, plan: order.plan, subscription, hadPlan: true, detail: { by: 'payment gateway' } }, now);
      return 'charged_back';
    case 'paid':
    case 'renewed':
      break;
  }
  if (!sameAmount(event, order)) return `ignored: paid ${event.amount} ${event.currency}, the order is ${order.amount} ${order.currency}`;
  if (!confirmed) return `ignored: the gateway lists no payment ${event.paymentId} received for the order`;
  if (!sameAmount(confirmed, order)) {
    return `ignored: the gateway lists payment ${event.paymentId} as ${confirmed.amount} ${confirmed.currency}, the order is ${order.amount} ${order.currency}`;
  }
  // each payment pays for the month from when it was taken, whenever (and in whatever order) its notice arrives
  const paidAt = confirmed.paidAt ?? now;
  const periodEnd = monthAfter(paidAt);
  const [invoice] = await tx.execute<{ id: string }[]>(
    `insert into invoice (id, account_id, order_id, payment_id, plan_name, amount, currency, period_start, period_end, paid_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (payment_id) do nothing returning id`,
    [randomUUID(), order.account.id, order.id, event.paymentId, order.plan.name, order.amount, order.currency, paidAt, periodEnd, paidAt],
  );
  // another notice for the same payment (its message type, for one, is not signed) pays for nothing more
  if (!invoice) return `ignored: payment ${event.paymentId} is counted already`;
  // the plan paid for again (a renewal, or the same plan bought anew) keeps the time already paid
  const samePlan = current || (subscription?.plan.id === order.plan.id && subscription.state === 'active');
  const previousEnd = samePlan ? subscription.currentPeriodEnd : null;
  // the order's first payment is the earliest seen of it: a renewal's notice may come before the
  // first payment's (held up, or lost), and then the order's paid date moves back to it
  const earliest = order.paidAt ?? null;
  const firstPayment = earliest === null || (!current && paidAt < earliest);
  order.state = 'paid';
  if (firstPayment) order.paidAt = paidAt;
  const recorded = subscription?.gatewaySubscriptionId ?? null;
  const gatewayId = confirmed.gatewaySubscriptionId;
  // The first payment of an order is a choice of plan and replaces any other, unless the plan the
  // account has now was chosen after it was paid (another order paid later whose notice came
  // first, a cancel, a change in the dashboard). Any other notice (a renewal, the same form paid
  // twice) only carries on the account's current order while it is active, on the recurring
  // payments recorded for it: a cancelled plan, or one replaced by Free, a trial or another
  // order, is never brought back by its late notices.
  // a payment the gateway gives no date for was made after its checkout was opened, no earlier;
  // the gateway dates payments to the second, and within one the notice received last (this one) wins
  const paidLater = !current && subscription !== null && subscription.chosenAt.getTime() >= (confirmed.paidAt ?? order.createdAt).getTime() + 1000;
  const carriesOn = current && subscription.state === 'active' && (!recorded || !gatewayId || gatewayId === recorded);
  // a renewal that is the first payment seen of its order (whose first notice is late or lost)
  // chooses its plan as the first payment would have, unless the account chose a plan after the
  // checkout was opened: then only the first payment's own date can tell which came last
  const renewalFirst = event.kind === 'renewed' && earliest === null && (subscription === null || subscription.chosenAt <= order.createdAt);
  const choosesPlan = (event.kind === 'paid' || renewalFirst) && firstPayment && !paidLater;
  if (!choosesPlan && !carriesOn) {
    // money taken for recurring payments no plan is paid by: they stop; but not those of a renewal
    // whose order's first payment is still unseen: that notice, when it comes, decides by its own
    // date, and a stop could not be taken back
    const waitsForFirst = event.kind === 'renewed' && earliest === null && !paidLater;
    if (gatewayId && gatewayId !== recorded && !waitsForFirst) stop.push(gatewayId);
    // and so do those recorded for the order while it gives no plan (charged back)
    if (current && recorded && subscription.state !== 'active') {
      stop.push(recorded);
      subscription.gatewaySubscriptionId = null;
    }
    const why = paidLater
      ? 'the plan the account has was chosen after this payment'
      : waitsForFirst
        ? "the order's first payment is not seen yet: its notice decides"
        : !current
        ? 'the order no longer gives the plan'
        : subscription.state !== 'active'
          ? `the subscription is ${subscription.state}`
          : `the order's recurring payments are ${recorded}`;
    return `${event.kind}: invoice recorded, ${why}`;
  }
  const hadPlan = hadPlanBefore(subscription, now);
  const target =
    subscription ??
    tx.create(Subscription, { id: randomUUID(), account: order.account, plan: order.plan, state: 'active', currentPeriodStart: now, createdAt: now, chosenAt: paidAt });
  if (!current) {
    // chosen with the first payment; a renewal standing for it was chosen at the latest when its checkout was opened
    target.chosenAt = event.kind === 'paid' ? paidAt : order.createdAt;
    // the plan this order replaces stops charging
    if (target.gatewaySubscriptionId && target.gatewaySubscriptionId !== gatewayId) stop.push(target.gatewaySubscriptionId);
    target.gatewaySubscriptionId = null;
  }
  target.plan = order.plan;
  target.state = 'active';
  target.trialEndsAt = null;
  target.orderId = order.id;
  // recorded once the gateway's list ties them to the order (at the latest, with the first renewal)
  target.gatewaySubscriptionId = gatewayId ?? target.gatewaySubscriptionId;
  // the period is the latest payment's (renewals' notices may come out of order, also before the first payment's)
  // (a raw query's timestamptz comes as text)
  const [latest] = current ? [] : await tx.execute<{ paid_at: string | null }[]>('select max(paid_at) as paid_at from invoice where order_id = ?', [order.id]);
  const latestPaid = latest?.paid_at ? new Date(latest.paid_at) : null;
  const periodFrom = latestPaid && latestPaid > paidAt ? latestPaid : paidAt;
  // the plan runs a few days past the paid month, while the next month's charge and its notice arrive
  const periodUntil = new Date(monthAfter(periodFrom).getTime() + RENEWAL_GRACE_MS);
  const extended = !previousEnd || periodUntil >= previousEnd;
  if (extended) {
    target.currentPeriodStart = periodFrom;
    target.currentPeriodEnd = periodUntil;
  }
  // a late notice of the plan's own order that pays for no later time changes nothing the customer sees
  if (current && !extended) return event.kind;
  recordPlanChange(tx, { accountId: order.account.id, userId: null, plan: order.plan, subscription: target, hadPlan, detail: { by: 'payment gateway', payment: event.paymentId } }, now);
  return event.kind;
}

const RENEWAL_GRACE_MS = 3 * 86_400_000;

interface Money {
  amount: string | number;
  currency: string;
}

/** What a notice or the gateway says was paid, against the order's price (`5000` and `5000.00` are the same). */
function sameAmount(paid: Money, order: Money): boolean {
  return Number(paid.amount) === Number(order.amount) && paid.currency === order.currency;
}
