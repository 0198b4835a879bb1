import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';

/** Who may read a store: its owner account, or every key when shared. */
export interface StoreReaders {
  owner: string | null;
  shared: boolean;
}

// A named statement on the ORM's own pg pool, as the admission's (src/db/request-log.ts): each
// query checks its store before searching it, and this skips the unit of work and the entity's
// hydration that a findOne costs on that path.
const STORE_READERS = 'select account_id, shared from store where id = $1';

/** The store's owner and sharing, or null when there is no such store. */
export async function storeReaders(em: EntityManager, storeId: string): Promise<StoreReaders | null> {
  const pool: Pool = await em.getConnection().getNativeClient();
  const { rows } = await pool.query<{ account_id: string | null; shared: boolean }>({ name: 'store_readers', text: STORE_READERS, values: [storeId] });
  const row = rows[0];
  return row ? { owner: row.account_id, shared: row.shared } : null;
}
