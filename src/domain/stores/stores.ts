import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Store } from '../../db/entities.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import type { Principal } from '../keys/principal.js';

export const DEFAULT_STORE = 'default';

/**
 * The store if this caller may read it: `default` and other ownerless stores for everyone, a
 * custom store only for its owner, and only while the owner's plan includes custom knowledge
 * bases. Another account's store is "not found", so that a caller cannot learn it exists.
 */
export async function readableStore(em: EntityManager, storeId: string, principal: Principal): Promise<Store> {
  const store = await em.findOne(Store, { id: storeId });
  if (!store || (store.account && store.account.id !== principal.accountId)) throw new NotFoundError(`Store '${storeId}' was not found.`);
  if (store.account && !principal.plan.customKnowledgeBases) {
    throw new ForbiddenError(
      `This API key does not have permission to access this resource: custom knowledge bases are not included in the ${principal.plan.name} plan.`,
    );
  }
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
