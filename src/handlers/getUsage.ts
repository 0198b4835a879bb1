import { usageReport } from '../domain/usage/usage.js';
import type { Handler } from './types.js';

export const getUsage: Handler<'getUsage'> = ({ usage, principal }) => {
  if (!usage) throw new Error('GET /usage was admitted without the month\'s usage');
  const report = usageReport(usage, principal.plan);
  return Promise.resolve({
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
  });
};
