import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Subscription, type SubscriptionState } from '../../db/entities.js';
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
 * Sets the account's subscription (one per account here; billing would own this). The change
 * applies to the account's keys from their next request.
 */
export async function setSubscription(em: EntityManager, accountId: string, change: SubscriptionChange, now: Date): Promise<Subscription> {
  const plan = await findPlanByCode(em, change.planCode);
  if (!plan) throw new Error(`Unknown plan '${change.planCode}'. Plans: free, starter, pro, enterprise.`);
  const account = await em.findOneOrFail(Account, { id: accountId }, { failHandler: () => new Error(`No account with id ${accountId}.`) });
  let subscription = await em.findOne(Subscription, { account }, { orderBy: { createdAt: 'desc' } });
  if (!subscription) {
    subscription = em.create(Subscription, {
      id: randomUUID(),
      account,
      plan,
      state: change.state,
      currentPeriodStart: now,
      createdAt: now,
    });
  }
  subscription.plan = plan;
  subscription.state = change.state;
  subscription.currentPeriodEnd = change.periodEnd ?? null;
  subscription.trialEndsAt = change.state === 'trialing' ? (change.trialEndsAt ?? null) : null;
  await em.flush();
  return subscription;
}
