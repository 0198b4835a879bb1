import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Account, Subscription, type SubscriptionState } from '../../db/entities.js';
import { isUsable } from '../accounts/subscriptions.js';
import { ConflictError, InvalidRequestError } from '../errors.js';
import { findPlanByCode } from '../plans/catalogue.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { SignedIn } from '../sign-in/sessions.js';
import { dispatchAccountEvents } from '../webhooks/dispatch.js';
import { queueRecordedStops, recordStop } from './recurring-stops.js';
import { hadPlanBefore, recordPlanChange } from './plan-changes.js';

// Subscription changes made in the dashboard (README "Subscriptions": the transition table).
// One subscription row per account, changed in place; the payment gateway's notifications change
// it too (apply-notification.ts).

/** The state a person sees: active and trialing only while they still give a plan. */
export function effectiveState(s: Pick<Subscription, 'state' | 'currentPeriodEnd' | 'trialEndsAt'>, now: Date): SubscriptionState {
  return (s.state === 'active' || s.state === 'trialing') && !isUsable(s, now) ? 'expired' : s.state;
}

/**
 * Starts a change of the account's plan: holds its row until the transaction ends, so that
 * changes to its plan (the dashboard's, and the payment gateway's notices) are made one at a time,
 * each on what the one before left, and fans out its pending webhook events under the plan they
 * happened on.
 */
export async function beginPlanChange(tx: EntityManager, accountId: string, now: Date): Promise<void> {
  // FOR UPDATE also waits for transactions still writing rows that reference the account (their
  // key-share lock): an event such a transaction commits is fanned out below, under the plan it
  // happened on, rather than later under the new one
  await tx.execute('select id from account where id = ? for update', [accountId]);
  await dispatchAccountEvents(tx, accountId, now);
}

async function latest(em: EntityManager, accountId: string): Promise<Subscription | null> {
  return em.findOne(Subscription, { account: accountId }, { orderBy: { createdAt: 'desc' }, populate: ['plan'] });
}

/** Recurring payments of a subscription that no longer applies are stopped at the gateway (recordStop), and its order no longer gives it. */
export function stopRecurring(tx: EntityManager, s: Subscription, now: Date): void {
  if (s.gatewaySubscriptionId) recordStop(tx, s.gatewaySubscriptionId, now);
  s.gatewaySubscriptionId = null;
  s.orderId = null;
}

/**
 * Free at once (no card), or a paid plan's trial (once per account, `trialDays` long, then expired
 * unless paid through checkout). A paid subscription given up for Free stops its recurring payments.
 */
export async function changeSubscription(db: EntityManager, queue: JobQueue, who: SignedIn, request: { plan: string; trial?: boolean }, trialDays: number, now: Date, log: Pick<Logger, 'warn'>): Promise<Subscription> {
  const changed = await db.transactional(async (em) => {
    await beginPlanChange(em, who.accountId, now);
    const plan = await findPlanByCode(em, request.plan);
    // a plan made for one customer is given by the operator (npm run keys), never chosen here
    if (!plan?.listed) throw new InvalidRequestError(`Unknown plan '${request.plan}': choose free, starter, pro or enterprise.`, [{ path: '/plan', message: 'unknown plan' }]);
    const paid = plan.priceLkr > 0;
    if (paid && !request.trial) throw new InvalidRequestError(`The ${plan.name} plan is paid: start a checkout for it, or a trial with "trial": true.`, [{ path: '/plan', message: 'paid plan: use checkout or a trial' }]);
    if (!paid && request.trial) throw new InvalidRequestError('The Free plan has no trial: subscribe to it without "trial".', [{ path: '/trial', message: 'only for paid plans' }]);
    const account = await em.findOneOrFail(Account, { id: who.accountId });
    if (request.trial && account.trialUsedAt) throw new ConflictError('This account has had its trial: subscribe to a plan through checkout.');
    let subscription = await latest(em, who.accountId);
    const hadPlan = hadPlanBefore(subscription, now);
    if (subscription) stopRecurring(em, subscription, now);
    subscription ??= em.create(Subscription, { id: randomUUID(), account, plan, state: 'active', currentPeriodStart: now, createdAt: now, chosenAt: now });
    subscription.plan = plan;
    subscription.chosenAt = now;
    subscription.currentPeriodStart = now;
    subscription.currentPeriodEnd = null;
    if (request.trial) {
      account.trialUsedAt = now;
      subscription.state = 'trialing';
      subscription.trialEndsAt = new Date(now.getTime() + trialDays * 86_400_000);
    } else {
      subscription.state = 'active';
      subscription.trialEndsAt = null;
    }
    recordPlanChange(em, { accountId: account.id, userId: who.user.id, plan, subscription, hadPlan }, now);
    return subscription;
  });
  await queueStopsOfCommittedChange(db, queue, log);
  return changed;
}

/** Cancels at once: the account's keys have no plan from their next request, and recurring payments stop. */
export async function cancelSubscription(db: EntityManager, queue: JobQueue, who: SignedIn, now: Date, log: Pick<Logger, 'warn'>): Promise<Subscription> {
  const cancelled = await db.transactional(async (em) => {
    await beginPlanChange(em, who.accountId, now);
    const subscription = await latest(em, who.accountId);
    if (!subscription || effectiveState(subscription, now) !== subscription.state || subscription.state === 'cancelled' || subscription.state === 'expired') {
      throw new ConflictError('There is no active subscription to cancel.');
    }
    stopRecurring(em, subscription, now);
    subscription.state = 'cancelled';
    // an order paid before this is no longer the latest choice, whenever its notice comes
    subscription.chosenAt = now;
    recordPlanChange(em, { accountId: who.accountId, userId: who.user.id, plan: subscription.plan, subscription, hadPlan: true }, now);
    return subscription;
  });
  await queueStopsOfCommittedChange(db, queue, log);
  return cancelled;
}

/**
 * Queues the stops a committed plan change recorded. The change stands whatever happens here: a
 * stop this fails to queue is queued by the billing worker's sweep (src/jobs/billing-worker.ts),
 * so the customer is not told that a change they have made failed; the operator is.
 */
async function queueStopsOfCommittedChange(db: EntityManager, queue: JobQueue, log: Pick<Logger, 'warn'>): Promise<void> {
  await queueRecordedStops(db, queue).catch((error: unknown) =>
    log.warn({ err: error }, 'could not queue the stop of recurring payments after a plan change: the billing sweep queues it (BILLING_SWEEP_MS)'),
  );
}
