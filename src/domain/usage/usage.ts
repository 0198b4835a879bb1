import type { Plan } from '../../db/entities.js';
import type { RequestLog } from '../../db/request-log.js';
import type { Principal } from '../keys/principal.js';
import { startOfUtcMonth, utcDate } from '../limits/periods.js';

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
export async function usageReport(requests: RequestLog, principal: Principal, now: Date): Promise<UsageReport> {
  const from = startOfUtcMonth(now);
  const rows = await requests.usageByEndpoint(principal.keyId, utcDate(from));
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
