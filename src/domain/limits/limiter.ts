import type { EntityManager } from '@mikro-orm/postgresql';
import { admitRequest, requestsSince, type CounterPeriods, type LoggedRequest } from '../../db/request-log.js';
import type { Principal } from '../keys/principal.js';
import { startOfUtcDay, startOfUtcMonth, utcDate } from './periods.js';
import { decide, windowHeaders, WINDOW_MS, type Limits, type WindowHeaders } from './window.js';
import { LimitExceededError, type LimitKind } from '../errors.js';

export type Admission =
  | { admitted: true; logId: string; window: WindowHeaders }
  | { admitted: false; window: WindowHeaders; error: LimitExceededError };

function limitsOf(principal: Principal): Limits {
  const { plan } = principal;
  return { perMinute: plan.rateLimitPerMinute, perDay: plan.rateLimitPerDay, perMonth: plan.monthlyQuota };
}

function windowOf(em: EntityManager, keyId: string, now: Date) {
  return requestsSince(em, keyId, new Date(now.getTime() - WINDOW_MS));
}

/**
 * Admits one request for the key or refuses it, exactly: the database admits and counts it in
 * one call under the key's row lock (src/db/request-log.ts), so concurrent requests from any
 * number of server processes are counted one after another; the refusal is explained here.
 */
export async function admit(em: EntityManager, principal: Principal, request: LoggedRequest, now: Date): Promise<Admission> {
  const limits = limitsOf(principal);
  const periods: CounterPeriods = { day: utcDate(startOfUtcDay(now)), month: utcDate(startOfUtcMonth(now)) };
  const figures = await admitRequest(em, principal.keyId, request, now, new Date(now.getTime() - WINDOW_MS), periods, limits);
  const counts = { inWindow: figures.inWindow, oldestInWindow: figures.oldestInWindow, today: figures.today, thisMonth: figures.thisMonth };
  const decision = decide(limits, counts, now);
  // the database applied the same rule to the same figures
  if (decision.admitted !== (figures.logId !== null)) throw new Error('the limiter and the database disagree on an admission');
  if (!decision.admitted) {
    return {
      admitted: false,
      window: windowHeaders(limits.perMinute, counts.inWindow, counts.oldestInWindow, now),
      error: new LimitExceededError(decision.kind, decision.retryAfterSeconds, refusalMessage(decision.kind, principal)),
    };
  }
  return {
    admitted: true,
    logId: figures.logId!,
    window: windowHeaders(limits.perMinute, counts.inWindow + 1, counts.oldestInWindow ?? now, now),
  };
}

/** The per-minute window as it stands, for responses to requests that are not counted. */
export async function currentWindow(em: EntityManager, principal: Principal, now: Date): Promise<WindowHeaders> {
  const window = await windowOf(em, principal.keyId, now);
  return windowHeaders(principal.plan.rateLimitPerMinute, window.count, window.oldest, now);
}

function refusalMessage(kind: LimitKind, principal: Principal): string {
  const { plan } = principal;
  switch (kind) {
    case 'minute':
      return `Rate limit exceeded: ${plan.rateLimitPerMinute} requests per minute allowed on the ${plan.name} plan.`;
    case 'day':
      return `Rate limit exceeded: ${plan.rateLimitPerDay} requests per day allowed on the ${plan.name} plan. The daily limit resets at 00:00:00 UTC.`;
    case 'month':
      return `Monthly quota exceeded: ${plan.monthlyQuota} requests per month allowed on the ${plan.name} plan. The quota resets on the 1st of the month at 00:00:00 UTC.`;
  }
}
