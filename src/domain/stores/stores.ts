import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Store } from '../../db/entities.js';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors.js';
import type { Principal } from '../keys/principal.js';
import spec from '../../generated/openapi.json' with { type: 'json' };

export const DEFAULT_STORE = 'default';

// a store is only useful under an id that a query can name
const STORE_ID = new RegExp(spec.components.schemas.QueryRequest.properties.store_id.pattern);

/**
 * The store if this caller may read it: a shared store (`default`) for everyone, an owned store
 * only for its owner, and only while the owner's plan includes custom knowledge bases. Another
 * account's store is "not found", so that a caller cannot learn it exists; so is an ownerless
 * store nobody marked shared, since no one decided that every key may read it.
 */
export async function readableStore(em: EntityManager, storeId: string, principal: Principal): Promise<Store> {
  const store = await em.findOne(Store, { id: storeId });
  if (!store || !(store.shared || store.account?.id === principal.accountId)) throw new NotFoundError(`Store '${storeId}' was not found.`);
  if (store.account && !principal.plan.customKnowledgeBases) {
    throw new ForbiddenError(
      `This API key does not have permission to access this resource: custom knowledge bases are not included in the ${principal.plan.name} plan.`,
    );
  }
  return store;
}

/** Who may read what is written into a store: its owner account's keys, or (shared) every key. */
export interface StoreAccess {
  owner?: string | null;
  shared?: boolean;
}

/**
 * The store to write into, created when it does not exist. A new store needs an owner, or
 * `shared` as an explicit choice; without either, only an existing shared store (`default`) is
 * accepted. Writing into another account's store, or into an ownerless store nobody marked
 * shared, is refused.
 */
export async function ensureStore(em: EntityManager, storeId: string, access: StoreAccess): Promise<Store> {
  const owner = access.owner?.toLowerCase() ?? null;
  if (owner && access.shared) throw new InvalidRequestError(`Store '${storeId}' cannot be both owned by an account and shared with every key.`);
  const existing = await em.findOne(Store, { id: storeId });
  if (existing) {
    const existingOwner = existing.account?.id ?? null;
    if (existingOwner === owner && (owner || existing.shared)) return existing;
    throw new ForbiddenError(`Store '${storeId}' ${describe(existing)}; it cannot take documents ${owner ? `for account ${owner}` : 'as a shared store'}.`);
  }
  if (!STORE_ID.test(storeId)) throw new InvalidRequestError(`Store id '${storeId}' must be 1 to 64 letters, digits, '_' or '-' (the form a query names it by).`);
  if (!owner && !access.shared) {
    throw new InvalidRequestError(`Store '${storeId}' does not exist: a new store needs an owner account, or to be shared with every key on purpose.`);
  }
  if (owner) await accountOrFail(em, owner);
  const store = em.create(Store, {
    id: storeId,
    account: owner ? em.getReference(Account, owner) : null,
    shared: !owner,
    createdAt: new Date(),
  });
  await em.flush();
  return store;
}

function describe(store: Store): string {
  if (store.account) return `belongs to account ${store.account.id}`;
  return store.shared ? 'is shared with every key' : 'has no owner and is not marked shared';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function accountOrFail(em: EntityManager, accountId: string): Promise<Account> {
  const account = UUID.test(accountId) ? await em.findOne(Account, { id: accountId }) : null;
  if (!account) throw new NotFoundError(`Account '${accountId}' was not found.`);
  return account;
}
