import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool, QueryConfig } from 'pg';
import type { Plan } from './entities.js';
import type { Orm } from './orm.js';
import { againOnConflict } from './availability.js';

// The storage behind authentication, the limiter and the usage figures, on the request's hot
// path: one request_log row per admitted request, each key's day and month counters
// (usage_counter), its month's figures per endpoint (endpoint_usage) and its api_key.last_used_at. Raw prepared statements on the ORM's own pg pool:
// no unit of work, no entity mapping, one round trip each. The rules that read these figures
// live in src/domain/keys, src/domain/limits and src/domain/usage.

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

export interface AdmissionRequest {
  /** HMAC of the presented key (src/domain/keys/key-format.ts). */
  keyHash: string;
  /** True unless the method only reads: a read-only key is refused. */
  write: boolean;
  /** The client's address as parsed (an IPv4 client seen through IPv6 unwrapped), null when unreadable. */
  clientIp: string | null;
  request: LoggedRequest;
  at: Date;
  windowStart: Date;
  periods: CounterPeriods;
  /** Also read the key's month per endpoint once this request is counted (GET /usage), in the same call. */
  withUsage: boolean;
}

export type AdmissionOutcome = 'unknown_key' | 'revoked' | 'expired' | 'no_subscription' | 'read_only' | 'address_not_allowed' | 'limited' | 'admitted';

/** What authenticate_and_admit found and decided (Migration20261125000000, Migration20261126000000). */
export interface AdmissionFigures {
  outcome: AdmissionOutcome;
  /** Set from `revoked` on. */
  keyId: string | null;
  accountId: string | null;
  readOnly: boolean;
  allowedIps: string[];
  /** The plan of the account's current subscription; set from `read_only` on. */
  plan: Plan | null;
  /** The new log row when the request was admitted, else null. */
  logId: string | null;
  /** Before this request: the key's requests after `windowStart` (counted up to the plan's limit), the oldest of them, and its counters. */
  inWindow: number;
  oldestInWindow: Date | null;
  /** The oldest of the key's newest requests up to the plan's limit: a place frees when it leaves the window. */
  limitThNewest: Date | null;
  today: number;
  thisMonth: number;
  /** Version of the plan catalogue as this call saw it. */
  catalogueVersion: string;
  /** Asked `withUsage` and admitted: the key's month per endpoint, this request counted, in endpoint order; else null. */
  monthUsage: EndpointUsage[] | null;
}

interface AdmissionRow {
  outcome: AdmissionOutcome;
  key_id: string | null;
  account_id: string | null;
  read_only: boolean | null;
  allowed_ips: string[] | null;
  plan_id: string | null;
  plan_code: string;
  plan_name: string;
  plan_description: string;
  price_lkr: number;
  per_minute: number;
  per_day: number;
  per_month: number;
  allowed_models: string[];
  custom_knowledge_bases: boolean;
  webhooks: boolean;
  analytics: string;
  support: string;
  sort_order: number;
  listed: boolean;
  log_id: string | null;
  in_window: number | null;
  oldest_ms: number | null;
  frees_ms: number | null;
  today: number | null;
  this_month: number | null;
  catalogue_version: string | null;
  month_usage?: { endpoint: string; requests: number; tokens: number; cost: number }[] | null;
}

const PLAN_COLUMNS = `id as plan_id, code as plan_code, name as plan_name, description as plan_description, price_lkr::float8 as price_lkr,
  rate_limit_per_minute as per_minute, rate_limit_per_day as per_day, monthly_quota as per_month, allowed_models,
  custom_knowledge_bases, webhooks, analytics, support, sort_order, listed`;

type PlanRow = Pick<AdmissionRow, 'plan_id' | 'plan_code' | 'plan_name' | 'plan_description' | 'price_lkr' | 'per_minute' | 'per_day' | 'per_month' | 'allowed_models' | 'custom_knowledge_bases' | 'webhooks' | 'analytics' | 'support' | 'sort_order' | 'listed'>;

function planOf(row: PlanRow): Plan {
  return {
    id: row.plan_id!,
    code: row.plan_code,
    name: row.plan_name,
    description: row.plan_description,
    priceLkr: row.price_lkr,
    rateLimitPerMinute: row.per_minute,
    rateLimitPerDay: row.per_day,
    monthlyQuota: row.per_month,
    allowedModels: row.allowed_models,
    customKnowledgeBases: row.custom_knowledge_bases,
    webhooks: row.webhooks,
    analytics: row.analytics,
    support: row.support,
    sortOrder: row.sort_order,
    listed: row.listed,
  };
}

/** A request's final status and what it used, written once the response is known. */
export interface LoggedOutcome {
  logId: string;
  status: number;
  model: string | null;
  tokens: number;
  costUsd: number;
  durationMs: number | null;
  storeId: string | null;
}

export interface EndpointUsage {
  endpoint: string;
  requests: number;
  tokens: number;
  costUsd: number;
}

// Named statements: each pooled connection parses and plans them once.
const ADMIT = 'select * from authenticate_and_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)';
const ADMIT_WITH_USAGE = 'select * from authenticate_and_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, true)';
const LISTED_PLANS = `select ${PLAN_COLUMNS} from plan where listed order by sort_order`;
// Committed without waiting for the WAL's flush to disk (synchronous_commit off for this
// statement's transaction only): the outcomes are visible to every reader at once, so GET /usage
// sees them, and only a crash of PostgreSQL itself (not of this process) in the next fraction of a
// second (3 x wal_writer_delay) could lose them; admissions, which the limits count, stay durable.
// A row takes its outcome once (`status is null`): the tokens and cost it adds to its endpoint's
// month (endpoint_usage, Migration20261124200000) are then added once too, in the same statement,
// as stored (rounded to the log's scale), so the month's sum equals the sum of its log rows. The
// counters are taken in key order, so two processes' statements never lock them crosswise; a
// counter row missing (a request admitted by a process older than the table) is created.
const WRITE_OUTCOMES = `with commit_mode as (select set_config('synchronous_commit', 'off', true)),
  written as (
    update request_log r set status = o.status, model = o.model, tokens = o.tokens, cost_usd = o.cost, duration_ms = o.duration, store_id = o.store
    from unnest($1::bigint[], $2::int[], $3::varchar[], $4::int[], $5::numeric[], $6::int[], $7::varchar[]) as o(id, status, model, tokens, cost, duration, store), commit_mode
    where r.id = o.id and r.status is null
    returning r.api_key_id, r.created_at, r.endpoint, r.tokens, r.cost_usd),
  used as (
    select api_key_id, date_trunc('month', created_at at time zone 'UTC')::date as month, endpoint, sum(tokens) as tokens, sum(cost_usd) as cost
    from written where tokens <> 0 or cost_usd <> 0 group by 1, 2, 3)
  insert into endpoint_usage as e (api_key_id, month, endpoint, requests, tokens, cost_usd)
  select api_key_id, month, endpoint, 0, tokens, cost from used order by api_key_id, month, endpoint
  on conflict (api_key_id, month, endpoint) do update set tokens = e.tokens + excluded.tokens, cost_usd = e.cost_usd + excluded.cost_usd`;

export class RequestLog {
  private pool: Pool | undefined;

  constructor(private readonly orm: Orm) {}

  private async query<R extends object>(name: string, text: string, values: unknown[]): Promise<R[]> {
    this.pool ??= await this.orm.em.getConnection().getNativeClient();
    const config: QueryConfig = { name, text, values };
    return (await this.pool.query<R>(config)).rows;
  }

  /**
   * Authenticates the key and admits the request if its restrictions and every limit allow, in
   * one call of authenticate_and_admit: under the key's row lock, so that requests on the same
   * key from any number of server processes are counted one after another. An admitted request
   * gets its log row (without a status yet), one more on its day and month counters, and the
   * key's last use; the key's state and its plan are read in the same call, so a revocation or a
   * plan change applies to the next request. Asked for, the key's usage of the month comes back
   * from the same call.
   */
  async admit(input: AdmissionRequest): Promise<AdmissionFigures> {
    const { request, periods } = input;
    const [name, text] = input.withUsage ? ['authenticate_and_admit_usage', ADMIT_WITH_USAGE] : ['authenticate_and_admit', ADMIT];
    const [row] = await this.query<AdmissionRow>(name, text, [
      input.keyHash,
      input.write,
      input.clientIp,
      request.requestId,
      request.method,
      request.endpoint,
      input.at.toISOString(),
      input.windowStart.toISOString(),
      periods.day,
      periods.month,
    ]);
    if (!row) throw new Error('authenticate_and_admit returned no row');
    return {
      outcome: row.outcome,
      keyId: row.key_id,
      accountId: row.account_id,
      readOnly: row.read_only ?? false,
      allowedIps: row.allowed_ips ?? [],
      plan: row.plan_id ? planOf(row) : null,
      logId: row.log_id,
      inWindow: row.in_window ?? 0,
      oldestInWindow: row.oldest_ms === null ? null : new Date(row.oldest_ms),
      limitThNewest: row.frees_ms === null ? null : new Date(row.frees_ms),
      today: row.today ?? 0,
      thisMonth: row.this_month ?? 0,
      catalogueVersion: row.catalogue_version ?? '',
      monthUsage: row.month_usage?.map((e) => ({ endpoint: e.endpoint, requests: e.requests, tokens: e.tokens, costUsd: e.cost })) ?? null,
    };
  }

  /** The plans GET /plans lists, cheapest first. */
  async listedPlans(): Promise<Plan[]> {
    return (await this.query<PlanRow>('listed_plans', LISTED_PLANS, [])).map(planOf);
  }

  /** Writes the outcomes of finished requests, any number in one statement. */
  async writeOutcomes(outcomes: LoggedOutcome[]): Promise<void> {
    // The statement takes its counter rows in key order; should PostgreSQL still end it as a
    // deadlock (with a lock taken elsewhere), it did nothing, so it is run again.
    await againOnConflict(() => this.writeOutcomesOnce(outcomes));
  }

  private async writeOutcomesOnce(outcomes: LoggedOutcome[]): Promise<void> {
    await this.query('write_outcomes', WRITE_OUTCOMES, [
      outcomes.map((o) => o.logId),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.model),
      outcomes.map((o) => o.tokens),
      outcomes.map((o) => o.costUsd),
      outcomes.map((o) => o.durationMs),
      outcomes.map((o) => o.storeId),
    ]);
  }
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

/** Latency percentiles (ms) of an account's admitted requests in [from, to) that have their outcome. */
export async function accountLatency(em: EntityManager, accountId: string, from: Date, to: Date): Promise<{ p50: number | null; p95: number | null }> {
  const [row] = await em.execute<{ p50: number | null; p95: number | null }[]>(
    `select percentile_cont(0.5) within group (order by r.duration_ms)::float8 as p50, percentile_cont(0.95) within group (order by r.duration_ms)::float8 as p95
       from request_log r join api_key k on k.id = r.api_key_id
      where k.account_id = ? and r.created_at >= ? and r.created_at < ? and r.duration_ms is not null`,
    [accountId, from, to],
  );
  return { p50: row?.p50 ?? null, p95: row?.p95 ?? null };
}

/** An account's answered queries in [from, to), per store asked. */
export async function accountStoreUsage(em: EntityManager, accountId: string, from: Date, to: Date): Promise<{ storeId: string; requests: number; tokens: number; costUsd: number }[]> {
  const rows = await em.execute<{ store_id: string; requests: number; tokens: string; cost: string }[]>(
    `select r.store_id, count(*)::int as requests, coalesce(sum(r.tokens), 0)::bigint as tokens, coalesce(sum(r.cost_usd), 0) as cost
       from request_log r join api_key k on k.id = r.api_key_id
      where k.account_id = ? and r.created_at >= ? and r.created_at < ? and r.store_id is not null
      group by r.store_id order by r.store_id`,
    [accountId, from, to],
  );
  return rows.map((r) => ({ storeId: r.store_id, requests: r.requests, tokens: Number(r.tokens), costUsd: Number(r.cost) }));
}
