import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Store } from '../../db/entities.js';
import { NotFoundError } from '../errors.js';

export const DEFAULT_STORE = 'default';

/**
 * The store if this account may read it: `default` and other ownerless stores for everyone,
 * a custom store only for its owner. Anything else is "not found", so that a caller cannot
 * learn that another account's store exists.
 */
export async function readableStore(em: EntityManager, storeId: string, accountId: string): Promise<Store> {
  const store = await em.findOne(Store, { id: storeId });
  if (!store || (store.account && store.account.id !== accountId)) throw new NotFoundError(`Store '${storeId}' was not found.`);
  return store;
}

/** The store, created for `ownerId` (or ownerless) when it does not exist; refuses another owner's store. */
export async function ensureStore(em: EntityManager, storeId: string, ownerId: string | null): Promise<Store> {
  const existing = await em.findOne(Store, { id: storeId });
  if (existing) {
    if ((existing.account?.id ?? null) !== ownerId) throw new Error(`Store '${storeId}' belongs to another owner.`);
    return existing;
  }
  const store = em.create(Store, { id: storeId, account: ownerId ? em.getReference(Account, ownerId) : null, createdAt: new Date() });
  await em.flush();
  return store;
}
