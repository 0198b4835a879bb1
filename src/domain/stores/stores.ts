import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, Store } from '../../db/entities.js';
import { storeReaders } from '../../db/store-access.js';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../errors.js';
import type { Principal } from '../keys/principal.js';
import spec from '../../generated/openapi.json' with { type: 'json' };
import { isUuid } from '../uuid.js';

export const DEFAULT_STORE = 'default';

// a store is only useful under an id that a query can name
const STORE_ID = new RegExp(spec.components.schemas.QueryRequest.properties.store_id.pattern);

/**
 * Throws unless this caller may read the store: a shared store (`default`) for everyone, an owned store
 * only for its owner, and only while the owner's plan includes custom knowledge bases. Another
 * account's store is "not found", so that a caller cannot learn it exists; so is an ownerless
 * store nobody marked shared, since no one decided that every key may read it.
 */
export async function readableStore(em: EntityManager, storeId: string, principal: Principal): Promise<void> {
  const store = await storeReaders(em, storeId);
  if (!store || !(store.shared || store.owner === principal.accountId)) throw new NotFoundError(`Store '${storeId}' was not found.`);
  if (store.owner && !principal.plan.customKnowledgeBases) {
    throw new ForbiddenError(
      `This API key does not have permission to access this resource: custom knowledge bases are not included in the ${principal.plan.name} plan.`,
    );
  }
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

export interface StoreSummary {
  id: string;
  owner: string | null;
  shared: boolean;
  documents: number;
}

/** Every store with who may read it and how many documents it holds, in id order. */
export async function listStores(em: EntityManager): Promise<StoreSummary[]> {
  const stores = await em.find(Store, {}, { orderBy: { id: 'asc' } });
  const counts = new Map<string, number>();
  const rows: { store_id: string; documents: string }[] = await em.getConnection().execute('select store_id, count(*) as documents from document group by store_id');
  for (const row of rows) counts.set(row.store_id, Number(row.documents));
  return stores.map((s) => ({ id: s.id, owner: s.account?.id ?? null, shared: s.shared, documents: counts.get(s.id) ?? 0 }));
}

/** Ownerless stores nobody marked shared: readable by no key until an operator decides. */
export async function undecidedStores(em: EntityManager): Promise<StoreSummary[]> {
  return (await listStores(em)).filter((s) => !s.owner && !s.shared);
}

/** Gives an ownerless store (undecided or shared, never `default`) to an account: from then on only its keys read it. */
export async function assignStore(em: EntityManager, storeId: string, accountId: string): Promise<Store> {
  const store = await storeOrFail(em, storeId);
  if (store.id === DEFAULT_STORE) throw new ForbiddenError(`Store '${DEFAULT_STORE}' is the general curriculum, shared with every key; it cannot be given to an account.`);
  if (store.account) throw new ForbiddenError(`Store '${storeId}' ${describe(store)}.`);
  store.account = em.getReference(Account, (await accountOrFail(em, accountId)).id);
  store.shared = false;
  await em.flush();
  return store;
}

/** Marks an ownerless store as shared on purpose: every key on every plan may read it. */
export async function shareStore(em: EntityManager, storeId: string): Promise<Store> {
  const store = await storeOrFail(em, storeId);
  if (store.account) throw new ForbiddenError(`Store '${storeId}' ${describe(store)}; an account's store is not shared.`);
  store.shared = true;
  await em.flush();
  return store;
}

function describe(store: Store): string {
  if (store.account) return `belongs to account ${store.account.id}`;
  return store.shared ? 'is shared with every key' : 'has no owner and is not marked shared';
}

async function storeOrFail(em: EntityManager, storeId: string): Promise<Store> {
  const store = await em.findOne(Store, { id: storeId });
  if (!store) throw new NotFoundError(`Store '${storeId}' was not found.`);
  return store;
}

async function accountOrFail(em: EntityManager, accountId: string): Promise<Account> {
  const account = isUuid(accountId) ? await em.findOne(Account, { id: accountId }) : null;
  if (!account) throw new NotFoundError(`Account '${accountId}' was not found.`);
  return account;
}
