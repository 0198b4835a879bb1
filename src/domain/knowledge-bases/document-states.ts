import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchIndex } from '../ports/search-index.js';
import { recordEvent } from '../webhooks/events.js';
import { lockAccountStorage } from './documents.js';

// A document's state changes, each in one transaction that first locks the document's row: an
// upload of a new file (replaceDocument), a deletion and the ingestion job's ending never
// interleave. The webhook event of an ending (`knowledge_base.document.ready` or `.failed`) is
// written in the same transaction, so it is sent exactly for the ending that was committed.

interface LockedDocument {
  revision: number;
  state: string;
  store_id: string;
  account_id: string;
  name: string;
}

async function lockDocument(tx: EntityManager, documentId: string): Promise<LockedDocument | undefined> {
  const [row] = await tx.execute<LockedDocument[]>(
    'select d.revision, d.state, d.store_id, s.account_id, d.name from document d join store s on s.id = d.store_id where d.id = ? for update of d',
    [documentId],
  );
  return row;
}

async function storeExists(tx: EntityManager, store: string): Promise<boolean> {
  // waits for a delete of the store under way (it holds the row): its drop of the index may
  // precede a write that made the index again, and only its commit says the store is gone
  const [row] = await tx.execute<{ id: string }[]>('select id from store where id = ? for key share', [store]);
  return row !== undefined;
}

/**
 * Drops the store's index, whole, when the store is gone: deleted with its knowledge base while a
 * job wrote to it, whose writes may have made the index again after the delete dropped it.
 * Whether it was gone.
 */
export async function dropIndexOfDeletedStore(em: EntityManager, index: SearchIndex, store: string): Promise<boolean> {
  if (await storeExists(em, store)) return false;
  await index.dropStore(store);
  return true;
}

/** Notes when the job began reading the document's current file (its first attempt only). */
export async function markProcessingStarted(em: EntityManager, documentId: string, revision: number, now: Date): Promise<void> {
  await em.execute('update document set processing_started_at = ? where id = ? and revision = ? and state = ? and processing_started_at is null', [
    now,
    documentId,
    revision,
    'processing',
  ]);
}

export interface IndexedDocument {
  documentId: string;
  /** the store its chunks were written to */
  store: string;
  /** the upload the job read */
  revision: number;
  /** the ingestion run its chunks were written under */
  run: string;
  pages: number;
  chunks: number;
}

export type ReadyOutcome = 'ready' | 'failed' | 'stale';

/**
 * processing → ready: the run's chunks become the document's (the other runs' leave the index),
 * with its pages and chunks, and the stored file is dropped. When the document was deleted,
 * replaced by a newer upload or already ended (a job run again after a restart), the run's own
 * chunks are removed instead and nothing else changes (`stale`). A document whose pages would
 * pass the account's pages limit ends `failed` instead.
 */
export async function markDocumentReady(em: EntityManager, index: SearchIndex, done: IndexedDocument, maxPages: (accountId: string) => Promise<number | null>, now: Date): Promise<ReadyOutcome> {
  return em.transactional(async (tx) => {
    const row = await lockDocument(tx, done.documentId);
    if (!row || row.revision !== done.revision || row.state !== 'processing') {
      if (!row && (await dropIndexOfDeletedStore(tx, index, done.store))) return 'stale';
      await index.deleteChunks(done.store, { documentId: done.documentId, ingestRun: done.run });
      return 'stale';
    }
    // two documents of the account ending at once would each count only the other's pages as not
    // ready yet: they check one after the other, under the lock the uploads' checks take
    await lockAccountStorage(tx, row.account_id);
    const limit = await maxPages(row.account_id);
    const [used] = await tx.execute<{ pages: string }[]>(
      `select coalesce(sum(d.page_count), 0) as pages from document d join store s on s.id = d.store_id
       where s.account_id = ? and d.state = 'ready' and d.id <> ?`,
      [row.account_id, done.documentId],
    );
    if (limit === null || Number(used?.pages ?? 0) + done.pages > limit) {
      await failLocked(tx, index, row, done.documentId, overPagesReason(done.pages, limit, Number(used?.pages ?? 0)), now);
      return 'failed';
    }
    await index.deleteChunks(row.store_id, { documentId: done.documentId, exceptRun: done.run });
    await tx.execute(
      `update document set state = 'ready', failure_reason = null, chunks_to_remove = false, page_count = ?, chunk_count = ?, ingested_at = ?, finished_at = ?, updated_at = ? where id = ?`,
      [done.pages, done.chunks, now, now, now, done.documentId],
    );
    await tx.execute('delete from document_upload where document_id = ?', [done.documentId]);
    recordEvent(tx, row.account_id, 'knowledge_base.document.ready', documentEvent(row, done.documentId, null), now);
    return 'ready';
  });
}

/** Why a document read in full is not kept: the plan has no knowledge bases (null: changed while it was read), or no room for its pages. */
function overPagesReason(pages: number, limit: number | null, used: number): string {
  if (limit === null) return "The account's plan does not include custom knowledge bases (it changed while the document was read): on a plan with them, upload the document again.";
  return `The document has ${pages} ${pages === 1 ? 'page' : 'pages'}, more than the ${limit - used} left of the plan's limit of ${limit} pages per account. Delete documents you no longer need and upload it again.`;
}

/**
 * processing → failed, with a reason a person can act on: nothing of the document stays in the
 * index (also not the chunks of an earlier upload it replaced), and the stored file is dropped.
 * Changes nothing (false) when the document was deleted, replaced by a newer upload or ended.
 */
export async function markDocumentFailed(em: EntityManager, index: SearchIndex, documentId: string, revision: number, reason: string, now: Date): Promise<boolean> {
  return em.transactional(async (tx) => {
    const row = await lockDocument(tx, documentId);
    if (!row || row.revision !== revision || row.state !== 'processing') return false;
    await failLocked(tx, index, row, documentId, reason, now);
    return true;
  });
}

async function failLocked(tx: EntityManager, index: SearchIndex, row: LockedDocument, documentId: string, reason: string, now: Date): Promise<void> {
  // the document fails even while the index is down (the job's last attempt after an outage):
  // its chunks are then removed by removeChunksLeft once the index is back
  const removed = await index.deleteChunks(row.store_id, { documentId }).then(
    () => true,
    () => false,
  );
  await tx.execute(
    `update document set state = 'failed', failure_reason = ?, chunks_to_remove = ?, page_count = null, chunk_count = null, finished_at = ?, updated_at = ? where id = ?`,
    [reason, !removed, now, now, documentId],
  );
  await tx.execute('delete from document_upload where document_id = ?', [documentId]);
  recordEvent(tx, row.account_id, 'knowledge_base.document.failed', documentEvent(row, documentId, reason), now);
}

/**
 * Removes the chunks of the documents that failed while the search index was down (see
 * failLocked), each under its row's lock: one uploaded again since keeps them until its own job
 * ends it, which replaces or removes them itself.
 */
export async function removeChunksLeft(em: EntityManager, index: SearchIndex, stopping?: AbortSignal): Promise<void> {
  const rows = await em.execute<{ id: string }[]>(`select id from document where chunks_to_remove and state = 'failed'`);
  for (const { id } of rows) {
    // a process shutting down leaves the rest to the next sweep (each document may wait on a slow index)
    if (stopping?.aborted) return;
    await em.transactional(async (tx) => {
      const [row] = await tx.execute<{ store_id: string }[]>(`select store_id from document where id = ? and chunks_to_remove and state = 'failed' for update`, [id]);
      if (!row) return;
      await index.deleteChunks(row.store_id, { documentId: id });
      await tx.execute('update document set chunks_to_remove = false where id = ?', [id]);
    });
  }
}

/** The payload of a document event (KnowledgeBaseDocumentEvent in the contract). */
function documentEvent(row: LockedDocument, documentId: string, reason: string | null): Record<string, unknown> {
  return { store_id: row.store_id, document_id: documentId, name: row.name, reason };
}
