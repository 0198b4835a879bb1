import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Subscription, type SubscriptionState } from '../../db/entities.js';
import { hadPlanBefore, recordPlanChange } from '../billing/plan-changes.js';
import { beginPlanChange, stopRecurring } from '../billing/subscriptions.js';
import { findPlanByCode } from '../plans/catalogue.js';

export async function createAccount(em: EntityManager, name: string, email?: string): Promise<Account> {
  const account = em.create(Account, { id: randomUUID(), name, email: email ?? null, createdAt: new Date() });
  await em.flush();
  return account;
}

export interface SubscriptionChange {
  planCode: string;
  state: SubscriptionState;
  periodEnd?: Date | null;
  trialEndsAt?: Date | null;
}

/**
 * Sets the account's subscription (one per account). The change applies to the account's keys
 * from their next request. Moving a paying account to another plan or state stops its recurring
 * payments, as the dashboard's plan changes do: the stop is recorded here, for queueRecordedStops.
 * The change is in the account's audit log (by the operator) and sent as a subscription.* event.
 */
export async function setSubscription(db: EntityManager, accountId: string, change: SubscriptionChange, now: Date): Promise<Subscription> {
  return db.transactional(async (em) => {
    const plan = await findPlanByCode(em, change.planCode);
    if (!plan) throw new Error(`Unknown plan '${change.planCode}'. Plans: free, starter, pro, enterprise, or one made with npm run keys -- plan create.`);
    const account = await em.findOneOrFail(Account, { id: accountId }, { failHandler: () => new Error(`No account with id ${accountId}.`) });
    await beginPlanChange(em, accountId, now);
    let subscription = await em.findOne(Subscription, { account }, { orderBy: { createdAt: 'desc' } });
    const hadPlan = hadPlanBefore(subscription, now);
    if (subscription && (subscription.plan.id !== plan.id || subscription.state !== change.state)) stopRecurring(em, subscription, now);
    subscription ??= em.create(Subscription, { id: randomUUID(), account, plan, state: change.state, currentPeriodStart: now, createdAt: now, chosenAt: now });
    subscription.plan = plan;
    subscription.chosenAt = now;
    subscription.state = change.state;
    subscription.currentPeriodEnd = change.periodEnd ?? null;
    subscription.trialEndsAt = change.state === 'trialing' ? (change.trialEndsAt ?? null) : null;
    // told as the dashboard's and the gateway's changes are: the account's audit log and its subscription.* webhook event
    recordPlanChange(em, { accountId, userId: null, plan, subscription, hadPlan, detail: { by: 'operator' } }, now);
    return subscription;
  });
}
