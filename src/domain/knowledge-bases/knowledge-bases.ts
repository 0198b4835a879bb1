import { randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Account, Document, DOCUMENT_STATES, Store, type DocumentState } from '../../db/entities.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors.js';
import type { Principal } from '../keys/principal.js';
import type { SearchIndex } from '../ports/search-index.js';

// Knowledge bases over the API: an account's own stores, named by the account and identified by
// an id the service makes. The shared stores (`default`) are readable here and changed by nobody.

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix` and `length` random letters or digits (about 6 bits each), e.g. `kb_3xQh7Ld0WfZr8bN2cPsA`. */
export function randomId(prefix: string, length: number): string {
  let id = prefix;
  for (let i = 0; i < length; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** Refuses every knowledge-base operation on a plan without custom knowledge bases, naming the plan. */
export function requireKnowledgeBases(principal: Principal): void {
  if (!principal.plan.customKnowledgeBases) {
    throw new ForbiddenError(
      `This API key does not have permission to access this resource: custom knowledge bases are not included in the ${principal.plan.name} plan.`,
    );
  }
}

/**
 * The knowledge base if the caller may use it: its account's own, or a shared store for reading.
 * Another account's is "not found" (never revealing that it exists); a shared store refuses
 * `write`s.
 */
export async function knowledgeBaseFor(em: EntityManager, id: string, principal: Principal, access: 'read' | 'write'): Promise<Store> {
  requireKnowledgeBases(principal);
  const store = await em.findOne(Store, { id });
  const owned = store?.account?.id === principal.accountId;
  if (!store || !(owned || store.shared)) throw knowledgeBaseNotFound(id);
  if (!owned && access === 'write') {
    throw new ForbiddenError(`This API key does not have permission to access this resource: '${id}' is a shared store; it can be read but not changed.`);
  }
  return store;
}

/**
 * Keeps the knowledge base's row until the caller's transaction ends, so that a delete cannot
 * commit under what the transaction adds to it: a delete under way is waited for, and the
 * knowledge base it removed is then not found (404), never a foreign-key failure (500).
 */
export async function lockKnowledgeBase(tx: EntityManager, id: string): Promise<void> {
  const [row] = await tx.execute<{ id: string }[]>('select id from store where id = ? for key share', [id]);
  if (!row) throw knowledgeBaseNotFound(id);
}

function knowledgeBaseNotFound(id: string): NotFoundError {
  return new NotFoundError(`Knowledge base '${id}' was not found.`);
}

export interface KnowledgeBaseFigures {
  documents: number;
  pages: number;
  bytes: number;
}

/** Documents (every state), pages (of ready documents) and bytes of files, per store. */
export async function storeFigures(em: EntityManager, storeIds: string[]): Promise<Map<string, KnowledgeBaseFigures>> {
  const figures = new Map<string, KnowledgeBaseFigures>();
  if (storeIds.length === 0) return figures;
  const rows = await em.execute<{ store_id: string; documents: number; pages: string; bytes: string }[]>(
    `select store_id, count(*)::int as documents, coalesce(sum(page_count) filter (where state = 'ready'), 0) as pages, coalesce(sum(size_bytes), 0) as bytes
     from document where store_id in (${storeIds.map(() => '?').join(', ')}) group by store_id`,
    storeIds,
  );
  for (const row of rows) figures.set(row.store_id, { documents: row.documents, pages: Number(row.pages), bytes: Number(row.bytes) });
  return figures;
}

/** How many of each store's documents are in each state (the dashboard's summary). */
export async function documentStateCounts(em: EntityManager, storeIds: string[]): Promise<Map<string, Record<DocumentState, number>>> {
  const counts = new Map<string, Record<DocumentState, number>>();
  for (const id of storeIds) counts.set(id, Object.fromEntries(DOCUMENT_STATES.map((state) => [state, 0])) as Record<DocumentState, number>);
  if (storeIds.length === 0) return counts;
  const rows = await em.execute<{ store_id: string; state: DocumentState; documents: number }[]>(
    `select store_id, state, count(*)::int as documents from document where store_id in (${storeIds.map(() => '?').join(', ')}) group by store_id, state`,
    storeIds,
  );
  for (const row of rows) counts.get(row.store_id)![row.state] = row.documents;
  return counts;
}

/**
 * The knowledge bases one account may have: each is a tenant of the search index (its own shards
 * once written to), and the list of them is answered whole, without pages.
 */
export const MAX_KNOWLEDGE_BASES = 100;

export async function createKnowledgeBase(em: EntityManager, principal: Principal, name: string, now: Date): Promise<Store> {
  requireKnowledgeBases(principal);
  return em.transactional(async (tx) => {
    // one creation at a time per account (from any process), so that concurrent ones cannot pass
    // the cap together; "no key update", as the rows that reference the account (the request's
    // idempotency key, written first) hold a key-share lock on it, which "update" would wait on:
    // two creations with their own keys deadlocked
    await tx.execute('select id from account where id = ? for no key update', [principal.accountId]);
    if ((await tx.count(Store, { account: principal.accountId })) >= MAX_KNOWLEDGE_BASES) {
      throw new ConflictError(`This account has ${MAX_KNOWLEDGE_BASES} knowledge bases, the most one account may have: delete one it no longer needs first.`);
    }
    await nameIsFree(tx, principal.accountId, name);
    const store = tx.create(Store, { id: randomId('kb_', 20), account: tx.getReference(Account, principal.accountId), shared: false, name, createdAt: now });
    await flushUnique(tx, name);
    return store;
  });
}

/** The account's knowledge bases, oldest first. */
export async function listKnowledgeBases(em: EntityManager, principal: Principal): Promise<Store[]> {
  requireKnowledgeBases(principal);
  return em.find(Store, { account: principal.accountId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export async function renameKnowledgeBase(em: EntityManager, principal: Principal, id: string, name: string): Promise<Store> {
  const store = await knowledgeBaseFor(em, id, principal, 'write');
  if (store.name === name) return store;
  await nameIsFree(em, principal.accountId, name);
  store.name = name;
  await flushUnique(em, name);
  return store;
}

/**
 * Deletes the knowledge base, its documents (with their waiting files) and their chunks: the
 * chunks first, so that nothing of it can be found once the call returns; a job still reading
 * one of its documents finds the document gone and removes what it wrote.
 */
export async function deleteKnowledgeBase(em: EntityManager, index: SearchIndex, principal: Principal, id: string): Promise<void> {
  const store = await knowledgeBaseFor(em, id, principal, 'write');
  await em.transactional(async (tx) => {
    // no upload or state change of its documents meanwhile
    await tx.execute('select id from store where id = ? for update', [store.id]);
    await index.dropStore(store.id);
    await tx.nativeDelete(Document, { store: store.id });
    await tx.nativeDelete(Store, { id: store.id });
  });
}

async function nameIsFree(em: EntityManager, accountId: string, name: string): Promise<void> {
  if (await em.count(Store, { account: accountId, name })) throw nameTaken(name);
}

/** A concurrent request that took the name first loses at the unique index: the same 409. */
async function flushUnique(em: EntityManager, name: string): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw nameTaken(name);
    throw error;
  }
}

function nameTaken(name: string): ConflictError {
  return new ConflictError(`A knowledge base named '${name}' already exists in this account.`);
}
