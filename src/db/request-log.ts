import type { EntityManager } from '@mikro-orm/postgresql';

// The storage behind the limiter and the usage figures: one request_log row per admitted request,
// each key's day and month counters (usage_counter) and its api_key.last_used_at. The rules that
// read these figures live in src/domain/limits and src/domain/usage.

/** An admitted request as it is logged. */
export interface LoggedRequest {
  requestId: string;
  method: string;
  /** The operation's path template, e.g. /api/v1/dev/query */
  endpoint: string;
}

/** The day and the month a request counts toward, each as the `YYYY-MM-DD` of its first day (UTC). */
export interface CounterPeriods {
  day: string;
  month: string;
}

/** How many of the key's requests were logged after `since`, and when the oldest of them was. */
export async function requestsSince(em: EntityManager, keyId: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await em.execute<{ n: number; oldest: Date | null }[]>(
    'select count(*)::int as n, min(created_at) as oldest from request_log where api_key_id = ? and created_at > ?',
    [keyId, since],
  );
  return { count: row?.n ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
}

/** The limits a request is admitted under, and the figures they were checked against. */
export interface AdmissionLimits {
  perMinute: number;
  perDay: number;
  perMonth: number;
}

export interface AdmissionFigures {
  /** The new log row when the request was admitted, else null. */
  logId: string | null;
  /** Before this request: the key's requests after `windowStart`, the oldest of them, and its counters. */
  inWindow: number;
  oldestInWindow: Date | null;
  today: number;
  thisMonth: number;
}

/**
 * Admits the request if the window, the day and the month all have room, in one call of the
 * database function admit_request (Migration20261123010000): under the key's row lock, so that
 * requests on the same key from any number of server processes are counted one after another.
 * An admitted request gets its log row, one more on its day and month counters, and the key's
 * last use.
 */
export async function admitRequest(
  em: EntityManager,
  keyId: string,
  request: LoggedRequest,
  at: Date,
  windowStart: Date,
  periods: CounterPeriods,
  limits: AdmissionLimits,
): Promise<AdmissionFigures> {
  const [row] = await em.execute<{ log_id: string | null; in_window: number; oldest: Date | null; today: number; this_month: number }[]>(
    'select * from admit_request(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [keyId, request.requestId, request.method, request.endpoint, at, windowStart, periods.day, periods.month, limits.perMinute, limits.perDay, limits.perMonth],
  );
  return {
    logId: row?.log_id == null ? null : String(row.log_id),
    inWindow: row?.in_window ?? 0,
    oldestInWindow: row?.oldest ? new Date(row.oldest) : null,
    today: row?.today ?? 0,
    thisMonth: row?.this_month ?? 0,
  };
}

export interface LoggedOutcome {
  status: number;
  model: string | null;
  tokens: number;
  costUsd: number;
}

/** Completes a log row once the response is known. */
export async function recordOutcome(em: EntityManager, logId: string, outcome: LoggedOutcome): Promise<void> {
  await em.execute('update request_log set status = ?, model = ?, tokens = ?, cost_usd = ? where id = ?', [
    outcome.status,
    outcome.model,
    outcome.tokens,
    outcome.costUsd,
    logId,
  ]);
}

export interface EndpointUsage {
  endpoint: string;
  requests: number;
  tokens: number;
  costUsd: number;
}

/** The key's requests made in [from, to), summed per endpoint, in endpoint order. */
export async function usageByEndpoint(em: EntityManager, keyId: string, from: Date, to: Date): Promise<EndpointUsage[]> {
  const rows = await em.execute<{ endpoint: string; requests: number; tokens: string; cost: string }[]>(
    `select endpoint, count(*)::int as requests, coalesce(sum(tokens), 0)::bigint as tokens, coalesce(sum(cost_usd), 0) as cost
       from request_log where api_key_id = ? and created_at >= ? and created_at < ? group by endpoint order by endpoint`,
    [keyId, from, to],
  );
  // bigint and numeric arrive as strings
  return rows.map((row) => ({ endpoint: row.endpoint, requests: row.requests, tokens: Number(row.tokens), costUsd: Number(row.cost) }));
}

export interface AccountUsageRow {
  day: string;
  keyId: string;
  endpoint: string;
  model: string | null;
  status: number | null;
  requests: number;
  tokens: number;
  costUsd: number;
}

/** Admitted requests of every key of an account in [from, to), grouped by UTC day, key, endpoint, model and status. */
export async function accountUsage(em: EntityManager, accountId: string, from: Date, to: Date): Promise<AccountUsageRow[]> {
  const rows = await em.execute<{ day: string; key_id: string; endpoint: string; model: string | null; status: number | null; requests: number; tokens: string; cost: string }[]>(
    `select to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, r.api_key_id as key_id, r.endpoint, r.model, r.status,
            count(*)::int as requests, coalesce(sum(r.tokens), 0)::bigint as tokens, coalesce(sum(r.cost_usd), 0) as cost
       from request_log r join api_key k on k.id = r.api_key_id
      where k.account_id = ? and r.created_at >= ? and r.created_at < ?
      group by 1, 2, 3, 4, 5 order by 1, 2, 3`,
    [accountId, from, to],
  );
  return rows.map((r) => ({ day: r.day, keyId: r.key_id, endpoint: r.endpoint, model: r.model, status: r.status, requests: r.requests, tokens: Number(r.tokens), costUsd: Number(r.cost) }));
}
