import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../../db/entities.js';
import { accountLatency, accountStoreUsage, accountUsage, type AccountUsageRow } from '../../db/request-log.js';
import type { Analytics } from '../../generated/contract-values.js';
import { currentSubscription } from '../accounts/subscriptions.js';
import { roundedUsd } from '../answering/cost.js';
import { ForbiddenError, InvalidRequestError } from '../errors.js';
import { keyRecord } from '../keys/key-record.js';
import { startOfNextUtcDay, startOfUtcDay, startOfUtcMonth, utcDate } from '../limits/periods.js';
import { quotaPercentage } from './usage.js';

// Usage analytics of a whole account, in four levels by plan (the plan's `analytics` feature):
// basic (this period's totals and each key's quota), standard (+ requests per day by endpoint),
// advanced (+ per key, per model, tokens and cost per day, error rates, 90 days of history, CSV),
// custom (+ any date range). Every figure comes from the request log, like GET /api/v1/dev/usage,
// so a key's figures here equal its own /usage for the same period.

const DAY_MS = 86_400_000;
const HISTORY_DAYS: Record<Analytics, number | null> = { basic: 0, standard: 0, advanced: 90, custom: null };
/** the longest range one report covers, so a report's work stays bounded */
const MAX_RANGE_DAYS = 400;

export interface Totals {
  requests: number;
  tokens: number;
  costUsd: number;
}

export interface AnalyticsReport {
  level: Analytics;
  plan: string | null;
  from: string;
  /** last day included */
  to: string;
  totals: Totals;
  quota: { keyId: string; name: string; displayPrefix: string; used: number; limit: number; percentage: number }[];
  perDay?: { day: string; requests: number; byEndpoint: Record<string, number>; tokens?: number; costUsd?: number }[];
  perKey?: ({ keyId: string; name: string; displayPrefix: string } & Totals)[];
  perModel?: ({ model: string } & Totals)[];
  errors?: { requests: number; clientErrors: number; serverErrors: number; rate: number };
  latencyMs?: { p50: number | null; p95: number | null };
  perStore?: ({ storeId: string } & Totals)[];
}

const LEVELS: Analytics[] = ['basic', 'standard', 'advanced', 'custom'];
export const atLeast = (level: Analytics, wanted: Analytics) => LEVELS.indexOf(level) >= LEVELS.indexOf(wanted);

function parseDay(value: string, field: string): Date {
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime()) || utcDate(date) !== value) throw new InvalidRequestError(`Query parameter '${field}' must be a date like 2026-11-01, not '${value}'.`, [{ path: `/${field}`, message: 'not a date' }]);
  return date;
}

/** The analytics of `accountId` at the level of its plan, for [from, to] (days, UTC; default this billing period). */
export async function accountAnalytics(em: EntityManager, accountId: string, range: { from?: string; to?: string }, now: Date): Promise<AnalyticsReport> {
  const subscription = await currentSubscription(em, accountId, now);
  const level = (subscription?.plan.analytics ?? 'basic') as Analytics;
  const from = range.from ? parseDay(range.from, 'from') : startOfUtcMonth(now);
  const last = range.to ? parseDay(range.to, 'to') : startOfUtcDay(now);
  if (last < from) throw new InvalidRequestError("'to' is before 'from'.", [{ path: '/to', message: 'before from' }]);
  if ((last.getTime() - from.getTime()) / DAY_MS >= MAX_RANGE_DAYS) throw new InvalidRequestError(`A report covers at most ${MAX_RANGE_DAYS} days: narrow 'from' and 'to'.`, [{ path: '/from', message: 'range too long' }]);
  const history = HISTORY_DAYS[level];
  const earliest = history === null ? null : history === 0 ? startOfUtcMonth(now) : new Date(startOfUtcDay(now).getTime() - (history - 1) * DAY_MS);
  if ((earliest && from < earliest) || (history !== null && last > startOfUtcDay(now))) {
    const plan = subscription?.plan.name ?? 'no plan';
    const allowed = history === 0 ? 'the current billing period' : `the last ${history} days`;
    throw new ForbiddenError(`Analytics on the ${plan} plan (${level}) cover ${allowed}; any date range needs the Enterprise plan.`);
  }
  const end = startOfNextUtcDay(last);
  const rows = await accountUsage(em, accountId, from, end);
  // each key's quota is counted over this billing period, whatever range was asked for
  const month = startOfUtcMonth(now);
  const periodEnd = startOfNextUtcDay(now);
  const monthRows = from <= month && end >= periodEnd ? rows.filter((r) => r.day >= utcDate(month)) : await accountUsage(em, accountId, month, periodEnd);
  const keys = await em.find(ApiKey, { account: accountId }, { orderBy: { createdAt: 'asc' } });
  const report = shape(level, subscription?.plan.name ?? null, subscription?.plan.monthlyQuota ?? 0, utcDate(from), utcDate(last), rows, monthRows, keys, now);
  if (atLeast(level, 'advanced')) {
    const latency = await accountLatency(em, accountId, from, end);
    report.latencyMs = { p50: latency.p50 === null ? null : Math.round(latency.p50 * 10) / 10, p95: latency.p95 === null ? null : Math.round(latency.p95 * 10) / 10 };
  }
  if (atLeast(level, 'custom')) report.perStore = (await accountStoreUsage(em, accountId, from, end)).map(rounded);
  return report;
}

function add(t: Totals, r: AccountUsageRow): void {
  t.requests += r.requests;
  t.tokens += r.tokens;
  t.costUsd += r.costUsd;
}
const zero = (): Totals => ({ requests: 0, tokens: 0, costUsd: 0 });
const rounded = <T extends Totals>(t: T): T => ({ ...t, costUsd: roundedUsd(t.costUsd) });

function shape(level: Analytics, plan: string | null, monthlyQuota: number, from: string, to: string, rows: AccountUsageRow[], monthRows: AccountUsageRow[], keys: ApiKey[], now: Date): AnalyticsReport {
  const totals = zero();
  for (const r of rows) add(totals, r);
  const thisMonth = new Map<string, number>();
  for (const r of monthRows) thisMonth.set(r.keyId, (thisMonth.get(r.keyId) ?? 0) + r.requests);
  const report: AnalyticsReport = {
    level,
    plan,
    from,
    to,
    totals: rounded(totals),
    quota: keys
      .filter((k) => keyRecord(k, now).state === 'active')
      .map((k) => ({ keyId: k.id, name: k.name, displayPrefix: k.displayPrefix, used: thisMonth.get(k.id) ?? 0, limit: monthlyQuota, percentage: quotaPercentage(thisMonth.get(k.id) ?? 0, monthlyQuota) })),
  };
  if (!atLeast(level, 'standard')) return report;
  const days = new Map<string, { day: string; requests: number; byEndpoint: Record<string, number>; tokens: number; costUsd: number }>();
  for (const r of rows) {
    const day = days.get(r.day) ?? { day: r.day, requests: 0, byEndpoint: {}, tokens: 0, costUsd: 0 };
    day.requests += r.requests;
    day.byEndpoint[r.endpoint] = (day.byEndpoint[r.endpoint] ?? 0) + r.requests;
    day.tokens += r.tokens;
    day.costUsd += r.costUsd;
    days.set(r.day, day);
  }
  const advanced = atLeast(level, 'advanced');
  report.perDay = [...days.values()].map((d) => (advanced ? rounded(d) : { day: d.day, requests: d.requests, byEndpoint: d.byEndpoint }));
  if (!advanced) return report;
  const byKey = new Map<string, Totals>();
  const byModel = new Map<string, Totals>();
  const errors = { requests: 0, clientErrors: 0, serverErrors: 0, rate: 0 };
  for (const r of rows) {
    add(byKey.get(r.keyId) ?? byKey.set(r.keyId, zero()).get(r.keyId)!, r);
    if (r.model) add(byModel.get(r.model) ?? byModel.set(r.model, zero()).get(r.model)!, r);
    errors.requests += r.requests;
    if (r.status !== null && r.status >= 400 && r.status < 500) errors.clientErrors += r.requests;
    if (r.status !== null && r.status >= 500) errors.serverErrors += r.requests;
  }
  errors.rate = errors.requests > 0 ? Math.round(((errors.clientErrors + errors.serverErrors) / errors.requests) * 10_000) / 10_000 : 0;
  report.perKey = keys.filter((k) => byKey.has(k.id)).map((k) => rounded({ keyId: k.id, name: k.name, displayPrefix: k.displayPrefix, ...byKey.get(k.id)! }));
  report.perModel = [...byModel].map(([model, t]) => rounded({ model, ...t }));
  report.errors = errors;
  return report;
}

/** The report's rows as CSV (advanced and custom levels): one line per day, key, endpoint, model and status. */
export async function analyticsCsv(em: EntityManager, accountId: string, range: { from?: string; to?: string }, now: Date): Promise<string> {
  const report = await accountAnalytics(em, accountId, range, now);
  if (!atLeast(report.level, 'advanced')) throw new ForbiddenError(`CSV export needs the Pro or Enterprise plan (analytics: ${report.level}).`);
  const rows = await accountUsage(em, accountId, new Date(`${report.from}T00:00:00Z`), startOfNextUtcDay(new Date(`${report.to}T00:00:00Z`)));
  const names = new Map((await em.find(ApiKey, { account: accountId })).map((k) => [k.id, k.displayPrefix]));
  const cell = (v: string | number | null) => (v === null ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));
  const lines = rows.map((r) => [r.day, names.get(r.keyId) ?? r.keyId, r.endpoint, r.model, r.status, r.requests, r.tokens, roundedUsd(r.costUsd)].map(cell).join(','));
  return ['date,key,endpoint,model,status,requests,tokens,cost_usd', ...lines].join('\n') + '\n';
}
