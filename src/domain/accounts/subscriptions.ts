import type { EntityManager } from '@mikro-orm/postgresql';
import { Subscription, type SubscriptionState } from '../../db/entities.js';

/**
 * The subscription that gives an account its plan at `now`: active and inside its period, or a
 * trial that has not ended. Expired, cancelled and ended trials give no plan.
 */
export async function currentSubscription(em: EntityManager, accountId: string, now: Date): Promise<Subscription | null> {
  const candidates = await em.find(
    Subscription,
    { account: accountId, state: { $in: ['active', 'trialing'] satisfies SubscriptionState[] } },
    { populate: ['plan'], orderBy: { createdAt: 'desc' } },
  );
  return candidates.find((s) => isUsable(s, now)) ?? null;
}

export function isUsable(s: Pick<Subscription, 'state' | 'currentPeriodEnd' | 'trialEndsAt'>, now: Date): boolean {
  if (s.currentPeriodEnd && s.currentPeriodEnd <= now) return false;
  if (s.state === 'active') return true;
  return s.state === 'trialing' && s.trialEndsAt !== null && s.trialEndsAt !== undefined && s.trialEndsAt > now;
}
