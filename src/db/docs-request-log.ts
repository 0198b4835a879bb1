import type { EntityManager } from '@mikro-orm/postgresql';

// The storage behind the documentation site's hourly limits: one docs_request row per admitted
// request of a client (a client address or an API key). The rules live in src/domain/limits/docs-limits.ts.

/** Advisory-lock class of the docs limits, so that their locks never meet another use of pg_advisory locks. */
const LOCK_CLASS = 20261123;

export interface DocsWindow {
  admitted: boolean;
  /** Requests in the window, the admitted one included. */
  count: number;
  /** When the oldest of them was made (null when none). */
  oldest: Date | null;
}

/**
 * Admits one request of `client` if fewer than `limit` were admitted since `since`, and records it.
 * A transaction-scoped advisory lock on the client makes concurrent requests (from any number of
 * server processes) count one after another, each seeing what the previous one wrote.
 */
export async function admitDocsRequest(em: EntityManager, client: string, limit: number, since: Date, now: Date): Promise<DocsWindow> {
  return em.transactional(async (tx) => {
    await tx.execute('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_CLASS, client]);
    const [row] = await tx.execute<{ n: number; oldest: Date | null }[]>(
      'select count(*)::int as n, min(created_at) as oldest from docs_request where client = ? and created_at > ?',
      [client, since],
    );
    const count = row?.n ?? 0;
    const oldest = row?.oldest ? new Date(row.oldest) : null;
    if (count >= limit) return { admitted: false, count, oldest };
    await tx.execute('insert into docs_request (client, created_at) values (?, ?)', [client, now]);
    return { admitted: true, count: count + 1, oldest: oldest ?? now };
  });
}

/** Deletes the rows no window can read any more (made at or before `before`). */
export async function purgeDocsRequests(em: EntityManager, before: Date): Promise<void> {
  await em.execute('delete from docs_request where created_at <= ?', [before]);
}
