import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan, Subscription } from '../../db/entities.js';
import { isUsable } from '../accounts/subscriptions.js';
import { recordAudit } from '../audit/audit-log.js';
import { recordEvent } from '../webhooks/events.js';

/** Whether the account has a plan before a change to `subscription` (its latest, if any). */
export function hadPlanBefore(subscription: Subscription | null, now: Date): boolean {
  return subscription !== null && isUsable(subscription, now);
}

export interface PlanChange {
  accountId: string;
  /** the person who made it in the dashboard; null for the operator and the payment gateway */
  userId: string | null;
  plan: Pick<Plan, 'name' | 'code'>;
  /** the subscription as changed */
  subscription: Subscription;
  /** what hadPlanBefore said before the change */
  hadPlan: boolean;
  /** added to the audit entry's detail after the new state (who made it, the payment) */
  detail?: Record<string, unknown>;
}

/**
 * Tells a change of an account's subscription, whoever made it, in the caller's unit of work: its
 * audit entry (`subscription.changed`) and its webhook event, `activated` when the account had no
 * plan before it, `updated` when it had one, `cancelled` and `expired` by state.
 */
export function recordPlanChange(em: EntityManager, change: PlanChange, now: Date): void {
  const { subscription } = change;
  recordAudit(em, { accountId: change.accountId, userId: change.userId, action: 'subscription.changed', subject: change.plan.name, detail: { state: subscription.state, ...change.detail } }, now);
  const type =
    subscription.state === 'cancelled' ? 'subscription.cancelled'
    : subscription.state === 'expired' ? 'subscription.expired'
    : change.hadPlan ? 'subscription.updated'
    : 'subscription.activated';
  recordEvent(em, change.accountId, type, {
    plan: change.plan.code,
    state: subscription.state,
    current_period_start: subscription.currentPeriodStart.toISOString(),
    current_period_end: subscription.currentPeriodEnd?.toISOString() ?? null,
    trial_ends_at: subscription.trialEndsAt?.toISOString() ?? null,
  }, now);
}
