import type { LoggedRequest, RequestLog } from '../../db/request-log.js';
import type { MonthUsage } from '../usage/usage.js';
import { keyRefusal } from '../keys/authenticate.js';
import type { Principal } from '../keys/principal.js';
import { checkKeyRestrictions, isReadMethod, parsedAddress } from '../keys/restrictions.js';
import { startOfUtcDay, startOfUtcMonth, utcDate } from './periods.js';
import { decide, windowHeaders, WINDOW_MS, type Limits, type WindowHeaders } from './window.js';
import { LimitExceededError, type LimitKind, type ServiceError } from '../errors.js';

export type Admission =
  | { admitted: true; principal: Principal; logId: string; catalogueVersion: string; window: WindowHeaders; usage: MonthUsage | null }
  | { admitted: false; principal: Principal; window: WindowHeaders; error: ServiceError };

export interface AdmissionCall {
  /** HMAC of the presented key, already checked for format and environment. */
  keyHash: string;
  /** The client's address as the HTTP layer sees it. */
  clientIp: string;
  request: LoggedRequest;
  /** Also read the key's usage of the month, this request counted (GET /usage), in the same call. */
  withUsage?: boolean;
}

function limitsOf(principal: Principal): Limits {
  const { plan } = principal;
  return { perMinute: plan.rateLimitPerMinute, perDay: plan.rateLimitPerDay, perMonth: plan.monthlyQuota };
}

/**
 * Authenticates the key, checks its restrictions and admits one request or refuses it, exactly,
 * in one database call (src/db/request-log.ts) under the key's row lock, so concurrent requests
 * from any number of server processes are counted one after another; the refusal is explained
 * here. Throws the key's refusal when the key is unknown or revoked or its account has no plan;
 * refusals for restrictions and limits come back with the minute window's headers.
 */
export async function admit(requests: RequestLog, call: AdmissionCall, now: Date): Promise<Admission> {
  const periods = { day: utcDate(startOfUtcDay(now)), month: utcDate(startOfUtcMonth(now)) };
  const figures = await requests.admit({
    keyHash: call.keyHash,
    write: !isReadMethod(call.request.method),
    clientIp: parsedAddress(call.clientIp),
    request: call.request,
    at: now,
    windowStart: new Date(now.getTime() - WINDOW_MS),
    periods,
    withUsage: call.withUsage ?? false,
  });
  if (figures.outcome === 'unknown_key') throw keyRefusal('invalid');
  if (figures.outcome === 'revoked') throw keyRefusal('revoked');
  if (figures.outcome === 'expired') throw keyRefusal('expired');
  if (figures.outcome === 'no_subscription' || !figures.plan) throw keyRefusal('no_subscription');
  const principal: Principal = {
    keyId: figures.keyId!,
    accountId: figures.accountId!,
    readOnly: figures.readOnly,
    allowedIps: figures.allowedIps,
    plan: figures.plan,
  };
  const limits = limitsOf(principal);
  const counts = { inWindow: figures.inWindow, oldestInWindow: figures.oldestInWindow, limitThNewest: figures.limitThNewest, today: figures.today, thisMonth: figures.thisMonth };
  const window = windowHeaders(limits.perMinute, counts.inWindow, counts.oldestInWindow, now);
  if (figures.outcome === 'read_only' || figures.outcome === 'address_not_allowed') {
    try {
      checkKeyRestrictions(principal, call.request.method, call.clientIp);
    } catch (error) {
      return { admitted: false, principal, window, error: error as ServiceError };
    }
    throw new Error('the key restrictions and the database disagree');
  }
  const decision = decide(limits, counts, now);
  // the database applied the same rule to the same figures
  if (decision.admitted !== (figures.outcome === 'admitted')) throw new Error('the limiter and the database disagree on an admission');
  if (!decision.admitted) {
    return { admitted: false, principal, window, error: new LimitExceededError(decision.kind, decision.retryAfterSeconds, refusalMessage(decision.kind, principal)) };
  }
  return {
    admitted: true,
    principal,
    logId: figures.logId!,
    catalogueVersion: figures.catalogueVersion,
    window: windowHeaders(limits.perMinute, counts.inWindow + 1, counts.oldestInWindow ?? now, now),
    usage: figures.monthUsage && { periods, byEndpoint: figures.monthUsage },
  };
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
