import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../../db/entities.js';
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
  await em.execute('update request_log set status = ?, model = ?, tokens = ?, cost_usd = ? where id = ?', [
    outcome.status,
    outcome.model ?? null,
    outcome.tokens ?? 0,
    outcome.costUsd ?? 0,
    logId,
  ]);
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
  const rows = await em.execute<{ endpoint: string; requests: number; tokens: string; cost: string }[]>(
    `select endpoint, count(*)::int as requests, coalesce(sum(tokens), 0)::bigint as tokens, coalesce(sum(cost_usd), 0) as cost
       from request_log where api_key_id = ? and created_at >= ? and created_at < ? group by endpoint order by endpoint`,
    [principal.keyId, from, startOfNextUtcMonth(now)],
  );
  const byEndpoint: Record<string, number> = {};
  let totalRequests = 0;
  let totalTokens = 0;
  let totalCostUsd = 0;
  for (const row of rows) {
    byEndpoint[row.endpoint] = row.requests;
    totalRequests += row.requests;
    totalTokens += Number(row.tokens);
    totalCostUsd += Number(row.cost);
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
