import { accountAnalytics } from '../domain/usage/analytics.js';
import type { KeylessHandler } from './types.js';

export const getAnalytics: KeylessHandler<'getAnalytics'> = async ({ query, em, session, now }) => {
  const r = await accountAnalytics(em, session!.accountId, { from: query?.from, to: query?.to }, now);
  const totals = (t: { requests: number; tokens: number; costUsd: number }) => ({ requests: t.requests, tokens: t.tokens, cost_usd: t.costUsd });
  return {
    status: 200,
    body: {
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
    },
  };
};
