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

/**
 * Runs `work` in one transaction that holds a row lock on the key, so that work on the same key
 * (from any number of server processes) runs one after another and sees what the previous one wrote.
 */
export async function withKeyLocked<T>(em: EntityManager, keyId: string, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    await tx.execute('select id from api_key where id = ? for update', [keyId]);
    return work(tx);
  });
}

/** How many of the key's requests were logged after `since`, and when the oldest of them was. */
export async function requestsSince(em: EntityManager, keyId: string, since: Date): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await em.execute<{ n: number; oldest: Date | null }[]>(
    'select count(*)::int as n, min(created_at) as oldest from request_log where api_key_id = ? and created_at > ?',
    [keyId, since],
  );
  return { count: row?.n ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
}

/** The key's counters for the day and the month (0 for a period without requests). */
export async function countersOf(em: EntityManager, keyId: string, periods: CounterPeriods): Promise<{ day: number; month: number }> {
  const rows = await em.execute<{ period: 'day' | 'month'; count: number }[]>(
    `select period, count from usage_counter where api_key_id = ?
       and ((period = 'day' and period_start = ?) or (period = 'month' and period_start = ?))`,
    [keyId, periods.day, periods.month],
  );
  return {
    day: rows.find((r) => r.period === 'day')?.count ?? 0,
    month: rows.find((r) => r.period === 'month')?.count ?? 0,
  };
}

/**
 * Counts an admitted request: its log row, one more on the day and month counters, and the
 * key's last use. Returns the id of the log row, which the outcome completes later.
 */
export async function logAdmitted(em: EntityManager, keyId: string, request: LoggedRequest, at: Date, periods: CounterPeriods): Promise<string> {
  const [logged] = await em.execute<{ id: string }[]>(
    'insert into request_log (api_key_id, request_id, method, endpoint, created_at) values (?, ?, ?, ?, ?) returning id',
    [keyId, request.requestId, request.method, request.endpoint, at],
  );
  await em.execute(
    `insert into usage_counter (api_key_id, period, period_start, count) values (?, 'day', ?, 1), (?, 'month', ?, 1)
     on conflict (api_key_id, period, period_start) do update set count = usage_counter.count + 1`,
    [keyId, periods.day, keyId, periods.month],
  );
  await em.execute('update api_key set last_used_at = ? where id = ?', [at, keyId]);
  return String(logged!.id);
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
