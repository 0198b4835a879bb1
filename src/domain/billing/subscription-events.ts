import type { EntityManager } from '@mikro-orm/postgresql';
import type { Subscription } from '../../db/entities.js';
import { recordEvent } from '../webhooks/events.js';

/**
 * The webhook event of a subscription change, in the caller's unit of work: `activated` when the
 * account had no plan before it, `updated` when it had one, `cancelled` and `expired` by state.
 */
export function recordSubscriptionEvent(em: EntityManager, accountId: string, planCode: string, subscription: Subscription, hadPlan: boolean, now: Date): void {
  const type =
    subscription.state === 'cancelled' ? 'subscription.cancelled'
    : subscription.state === 'expired' ? 'subscription.expired'
    : hadPlan ? 'subscription.updated'
    : 'subscription.activated';
  recordEvent(em, accountId, type, {
    plan: planCode,
    state: subscription.state,
    current_period_start: subscription.currentPeriodStart.toISOString(),
    current_period_end: subscription.currentPeriodEnd?.toISOString() ?? null,
    trial_ends_at: subscription.trialEndsAt?.toISOString() ?? null,
  }, now);
}
