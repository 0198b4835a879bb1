import type { EntityManager } from '@mikro-orm/postgresql';

// Sliding windows kept in PostgreSQL: one row per counted event of a client (docs_request: requests
// to the documentation site; login_failure: sign-in attempts). The rules live in the domain
// (src/domain/limits/docs-limits.ts, src/domain/sign-in/attempts.ts).

/** The tables that hold windows; each has (id, client, created_at). */
export type WindowTable = 'docs_request' | 'login_failure';

/** Advisory-lock class of these windows, so that their locks never meet another use of pg_advisory locks. */
const LOCK_CLASS = 20261123;

export interface WindowCount {
  admitted: boolean;
  /** Events in the window, the admitted one included. */
  count: number;
  /** When the oldest of them was made (null when none). */
  oldest: Date | null;
  /** The admitted event's row, to take it back. */
  id?: string;
}

/**
 * Admits one event of `client` if fewer than `limit` were admitted since `since`, and records it.
 * A transaction-scoped advisory lock on the client makes concurrent events (from any number of
 * server processes) count one after another, each seeing what the previous one wrote.
 */
export async function admitInWindow(em: EntityManager, table: WindowTable, client: string, limit: number, since: Date, now: Date): Promise<WindowCount> {
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, `${table}:${client}`]);
    const [row] = await tx.execute<{ n: number; oldest: Date | null }[]>(
      `select count(*)::int as n, min(created_at) as oldest from ${table} where client = ? and created_at > ?`,
      [client, since],
    );
    const count = row?.n ?? 0;
    const oldest = row?.oldest ? new Date(row.oldest) : null;
    if (count >= limit) return { admitted: false, count, oldest };
    const [inserted] = await tx.execute<{ id: string }[]>(`insert into ${table} (client, created_at) values (?, ?) returning id`, [client, now]);
    return { admitted: true, count: count + 1, oldest: oldest ?? now, id: String(inserted!.id) };
  });
}

/** Takes admitted events back out of their window (a sign-in that succeeded). */
export async function removeFromWindow(em: EntityManager, table: WindowTable, ids: string[]): Promise<void> {
  if (ids.length > 0) await em.execute(`delete from ${table} where id in (${ids.map(() => '?').join(', ')})`, ids);
}

/** Takes every event of `client` out of its window. */
export async function forgetClient(em: EntityManager, table: WindowTable, client: string): Promise<void> {
  await em.execute(`delete from ${table} where client = ?`, [client]);
}

/** Deletes the rows no window can read any more (made at or before `before`). */
export async function purgeWindow(em: EntityManager, table: WindowTable, before: Date): Promise<void> {
  await em.execute(`delete from ${table} where created_at <= ?`, [before]);
}
