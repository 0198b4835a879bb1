import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../keys/principal.js';
import { startOfUtcDay, startOfUtcMonth, utcDate } from './periods.js';
import { decide, windowHeaders, WINDOW_MS, type Limits, type WindowHeaders } from './window.js';
import { LimitExceededError, type LimitKind } from '../errors.js';

export interface RequestToCount {
  requestId: string;
  method: string;
  /** The operation's path template, e.g. /api/v1/dev/query */
  endpoint: string;
}

export type Admission =
  | { admitted: true; logId: string; window: WindowHeaders }
  | { admitted: false; window: WindowHeaders; error: LimitExceededError };

function limitsOf(principal: Principal): Limits {
  const { plan } = principal;
  return { perMinute: plan.rateLimitPerMinute, perDay: plan.rateLimitPerDay, perMonth: plan.monthlyQuota };
}

interface WindowRow {
  n: number;
  oldest: Date | null;
}

async function readWindow(em: EntityManager, keyId: string, now: Date): Promise<WindowRow> {
  const [row] = await em.execute<WindowRow[]>(
    'select count(*)::int as n, min(created_at) as oldest from request_log where api_key_id = ? and created_at > ?',
    [keyId, new Date(now.getTime() - WINDOW_MS)],
  );
  return { n: row?.n ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
}

/**
 * Admits one request for the key or refuses it, exactly: the key's row is locked for the
 * transaction, so concurrent requests (from any number of server processes) are counted one
 * after another, and an admitted request is logged and counted before the lock is released.
 */
export async function admit(em: EntityManager, principal: Principal, request: RequestToCount, now: Date): Promise<Admission> {
  const limits = limitsOf(principal);
  const day = utcDate(startOfUtcDay(now));
  const month = utcDate(startOfUtcMonth(now));
  return em.transactional(async (tx) => {
    await tx.execute('select id from api_key where id = ? for update', [principal.keyId]);
    const window = await readWindow(tx, principal.keyId, now);
    const counters = await tx.execute<{ period: 'day' | 'month'; count: number }[]>(
      `select period, count from usage_counter where api_key_id = ?
         and ((period = 'day' and period_start = ?) or (period = 'month' and period_start = ?))`,
      [principal.keyId, day, month],
    );
    const today = counters.find((c) => c.period === 'day')?.count ?? 0;
    const thisMonth = counters.find((c) => c.period === 'month')?.count ?? 0;

    const decision = decide(limits, { inWindow: window.n, oldestInWindow: window.oldest, today, thisMonth }, now);
    if (!decision.admitted) {
      return {
        admitted: false as const,
        window: windowHeaders(limits.perMinute, window.n, window.oldest, now),
        error: new LimitExceededError(decision.kind, decision.retryAfterSeconds, refusalMessage(decision.kind, principal)),
      };
    }
    const [logged] = await tx.execute<{ id: string }[]>(
      'insert into request_log (api_key_id, request_id, method, endpoint, created_at) values (?, ?, ?, ?, ?) returning id',
      [principal.keyId, request.requestId, request.method, request.endpoint, now],
    );
    await tx.execute(
      `insert into usage_counter (api_key_id, period, period_start, count) values (?, 'day', ?, 1), (?, 'month', ?, 1)
       on conflict (api_key_id, period, period_start) do update set count = usage_counter.count + 1`,
      [principal.keyId, day, principal.keyId, month],
    );
    await tx.execute('update api_key set last_used_at = ? where id = ?', [now, principal.keyId]);
    return {
      admitted: true as const,
      logId: String(logged!.id),
      window: windowHeaders(limits.perMinute, window.n + 1, window.oldest ?? now, now),
    };
  });
}

/** The per-minute window as it stands, for responses to requests that are not counted. */
export async function currentWindow(em: EntityManager, principal: Principal, now: Date): Promise<WindowHeaders> {
  const window = await readWindow(em, principal.keyId, now);
  return windowHeaders(principal.plan.rateLimitPerMinute, window.n, window.oldest, now);
}

function refusalMessage(kind: LimitKind, principal: Principal): string {
  const { plan } = principal;
  switch (kind) {
    case 'minute':
      return `Rate limit exceeded: ${plan.rateLimitPerMinute} requests per minute allowed on the ${plan.name} plan.`;
    case 'day':
      return `Rate limit exceeded: ${plan.rateLimitPerDay} requests per day allowed on the ${plan.name} plan. The daily limit resets at 00:00:00 UTC.`;
    case 'month':
      return `Monthly quota exceeded: ${plan.monthlyQuota} requests per month allowed on the ${plan.name} plan. The quota resets on the 1st of the month at 00:00:00 UTC.`;
  }
}
