import type { components } from '../generated/api-types.js';
import type { Plan as PlanRow } from '../db/entities.js';
import type { Handler } from './types.js';

type Plan = components['schemas']['Plan'];

export function toPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    rate_limit_per_minute: row.rateLimitPerMinute,
    rate_limit_per_day: row.rateLimitPerDay,
    monthly_quota: row.monthlyQuota,
    price_lkr: Number(row.priceLkr),
    allowed_models: row.allowedModels,
    features: {
      custom_knowledge_bases: row.customKnowledgeBases,
      webhooks: row.webhooks,
      analytics: row.analytics as Plan['features']['analytics'],
      support: row.support as Plan['features']['support'],
    },
  };
}

export const getPlans: Handler<'getPlans'> = async ({ listedPlans, principal }) => {
  const plans = await listedPlans();
  return { body: { current_plan: toPlan(principal.plan), available_plans: plans.map(toPlan) } };
};
