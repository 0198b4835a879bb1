import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../../db/entities.js';
import * as requestLog from '../../db/request-log.js';
import type { Principal } from '../keys/principal.js';
import { startOfNextUtcMonth, startOfUtcMonth, utcDate } from '../limits/periods.js';

export interface Outcome {
  status: number;
  model?: string;
  tokens?: number;
  costUsd?: number;
}

/** Completes the request's log row once the response is known (status, model, tokens, cost). */
export async function recordOutcome(em: EntityManager, logId: string, outcome: Outcome): Promise<void> {
  await requestLog.recordOutcome(em, logId, { status: outcome.status, model: outcome.model ?? null, tokens: outcome.tokens ?? 0, costUsd: outcome.costUsd ?? 0 });
}

export interface UsageReport {
  totalRequests: number;
  totalTokens: number;
  totalCostUsd: number;
  byEndpoint: Record<string, number>;
  periodStart: string;
  periodEnd: string;
  plan: Plan;
  quotaRemaining: number;
  quotaPercentage: number;
}

/** Usage of the calling key in the current billing period (the UTC calendar month). */
export async function usageReport(em: EntityManager, principal: Principal, now: Date): Promise<UsageReport> {
  const from = startOfUtcMonth(now);
  const rows = await requestLog.usageByEndpoint(em, principal.keyId, from, startOfNextUtcMonth(now));
  const byEndpoint: Record<string, number> = {};
  let totalRequests = 0;
  let totalTokens = 0;
  let totalCostUsd = 0;
  for (const row of rows) {
    byEndpoint[row.endpoint] = row.requests;
    totalRequests += row.requests;
    totalTokens += row.tokens;
    totalCostUsd += row.costUsd;
  }
  const quota = principal.plan.monthlyQuota;
  return {
    totalRequests,
    totalTokens,
    totalCostUsd: Math.round(totalCostUsd * 1e6) / 1e6,
    byEndpoint,
    periodStart: utcDate(from),
    periodEnd: utcDate(now),
    plan: principal.plan,
    quotaRemaining: Math.max(0, quota - totalRequests),
    quotaPercentage: quotaPercentage(totalRequests, quota),
  };
}

export function quotaPercentage(used: number, quota: number): number {
  return quota > 0 ? Math.round((used / quota) * 10000) / 100 : 100;
}
