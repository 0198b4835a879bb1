import type { EntityManager } from '@mikro-orm/postgresql';
import type { components } from '../generated/api-types.js';
import { Subscription } from '../db/entities.js';
import { effectiveState } from '../domain/billing/subscriptions.js';
import { keyRecord } from '../domain/keys/key-record.js';
import type { AnalyticsReport } from '../domain/usage/analytics.js';
import type { SignedIn } from '../domain/sign-in/sessions.js';
import { csrfToken } from '../domain/sign-in/tokens.js';
import type { SignInSettings } from '../domain/sign-in/settings.js';

// The dashboard operations' answers, in the contract's shapes.

type Schemas = components['schemas'];

export function subscriptionView(s: Subscription, now: Date): Schemas['SubscriptionInfo'] {
  return {
    plan: s.plan.name,
    state: effectiveState(s, now),
    current_period_start: s.currentPeriodStart.toISOString(),
    current_period_end: s.currentPeriodEnd?.toISOString() ?? null,
    trial_ends_at: s.trialEndsAt?.toISOString() ?? null,
  };
}

/** A key as the dashboard lists it (the same record its webhook events carry). */
export const keyView = keyRecord;

/** The signed-in person's view: who, which account, its latest subscription, and the CSRF token. */
export async function sessionView(em: EntityManager, session: Pick<SignedIn, 'user' | 'token'>, settings: SignInSettings, now: Date): Promise<Schemas['DashboardSession']> {
  const { user } = session;
  const subscription = await em.findOne(Subscription, { account: user.account.id }, { orderBy: { createdAt: 'desc' }, populate: ['plan'] });
  const account = await em.populate(user, ['account']);
  return {
    user: { id: user.id, email: user.email, email_verified: user.emailVerifiedAt !== null && user.emailVerifiedAt !== undefined },
    account: { id: account.account.id, name: account.account.name },
    subscription: subscription ? subscriptionView(subscription, now) : null,
    csrf_token: csrfToken(session.token, settings.secret),
  };
}

const totals = (t: { requests: number; tokens: number; costUsd: number }) => ({ requests: t.requests, tokens: t.tokens, cost_usd: t.costUsd });

export function analyticsView(r: AnalyticsReport): Schemas['AnalyticsReport'] {
  return {
    level: r.level,
    plan: r.plan,
    from: r.from,
    to: r.to,
    totals: totals(r.totals),
    quota: r.quota.map((q) => ({ key_id: q.keyId, name: q.name, display_prefix: q.displayPrefix, used: q.used, limit: q.limit, percentage: q.percentage })),
    ...(r.perDay && {
      per_day: r.perDay.map((d) => ({ day: d.day, requests: d.requests, by_endpoint: d.byEndpoint, ...(d.tokens !== undefined && { tokens: d.tokens, cost_usd: d.costUsd }) })),
    }),
    ...(r.perKey && { per_key: r.perKey.map((k) => ({ key_id: k.keyId, name: k.name, display_prefix: k.displayPrefix, ...totals(k) })) }),
    ...(r.perModel && { per_model: r.perModel.map((m) => ({ model: m.model, ...totals(m) })) }),
    ...(r.errors && { errors: { requests: r.errors.requests, client_errors: r.errors.clientErrors, server_errors: r.errors.serverErrors, rate: r.errors.rate } }),
    ...(r.latencyMs && { latency_ms: r.latencyMs }),
    ...(r.perStore && { per_store: r.perStore.map((st) => ({ store_id: st.storeId, ...totals(st) })) }),
  };
}
