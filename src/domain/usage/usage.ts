import type { Plan } from '../../db/entities.js';
import type { CounterPeriods, EndpointUsage } from '../../db/request-log.js';
import { roundedUsd } from '../answering/cost.js';

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

/** A key's usage of the month as its request's admission read it (src/domain/limits/limiter.ts). */
export interface MonthUsage {
  /** the request's day (the period's last so far) and month (its first day), `YYYY-MM-DD` in UTC */
  periods: CounterPeriods;
  byEndpoint: EndpointUsage[];
}

/** Usage of the calling key in the current billing period (the UTC calendar month), up to its admitted request. */
export function usageReport({ periods, byEndpoint: rows }: MonthUsage, plan: Plan): UsageReport {
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
  const quota = plan.monthlyQuota;
  return {
    totalRequests,
    totalTokens,
    totalCostUsd: roundedUsd(totalCostUsd),
    byEndpoint,
    periodStart: periods.month,
    periodEnd: periods.day,
    plan,
    quotaRemaining: Math.max(0, quota - totalRequests),
    quotaPercentage: quotaPercentage(totalRequests, quota),
  };
}

export function quotaPercentage(used: number, quota: number): number {
  return quota > 0 ? Math.round((used / quota) * 10000) / 100 : 100;
}
