import { usageReport } from '../domain/usage/usage.js';
import type { Handler } from './types.js';

export const getUsage: Handler<'getUsage'> = async ({ requests, principal, now }) => {
  const report = await usageReport(requests, principal, now);
  return {
    body: {
      total_requests: report.totalRequests,
      total_tokens: report.totalTokens,
      total_cost_usd: report.totalCostUsd,
      by_endpoint: report.byEndpoint,
      period_start: report.periodStart,
      period_end: report.periodEnd,
      plan: {
        name: report.plan.name,
        rate_limit_per_minute: report.plan.rateLimitPerMinute,
        rate_limit_per_day: report.plan.rateLimitPerDay,
        monthly_quota: report.plan.monthlyQuota,
      },
      quota_remaining: report.quotaRemaining,
      quota_percentage: report.quotaPercentage,
    },
  };
};
