import type { EntityManager } from '@mikro-orm/postgresql';
import { UnreadableDocumentError } from '../documents/extract.js';
import { checkMetadata, indexDocumentRun } from '../ingestion/ingest.js';
import type { Embedder } from '../ports/embedder.js';
import type { HeavyWork } from '../ports/heavy-work.js';
import type { JobQueue } from '../ports/job-queue.js';
import type { SearchIndex } from '../ports/search-index.js';
import { uuidOfName } from '../uuid.js';
import { dropIndexOfDeletedStore, markDocumentFailed, markDocumentReady, markProcessingStarted } from './document-states.js';
import { maxPagesOf, type IngestionJob } from './documents.js';

/** The durable queue of uploaded documents waiting to be read and indexed. */
export const INGESTION_QUEUE = 'document-ingestion';

/**
 * The job's id: one per upload (document and revision), so that queuing it again (the sweep
 * after a restart) adds nothing while it waits or runs. A job whose retries are spent while its
 * document is still `processing` (its last attempt could not even fail it: the database down) is
 * replaced by the sweep's, so the document does not wait for pg-boss to delete the failed job.
 */
export function ingestionJobId(documentId: string, revision: number): string {
  return uuidOfName(`${INGESTION_QUEUE}:${documentId}:${revision}`);
}

/** Queues the job of an upload, in its account's group (whose jobs run a few at a time). */
export async function queueIngestion(queue: JobQueue, job: IngestionJob): Promise<void> {
  await queue.send(INGESTION_QUEUE, { documentId: job.documentId, revision: job.revision }, { id: ingestionJobId(job.documentId, job.revision), group: job.accountId, replaceFailed: true });
}

/** The uploads still `processing`, to be queued again: their job may never have been queued (a stop right after the upload). */
export async function processingUploads(em: EntityManager): Promise<IngestionJob[]> {
  const rows = await em.execute<{ id: string; revision: number; account_id: string }[]>(
    `select d.id, d.revision, s.account_id from document d join store s on s.id = d.store_id where d.state = 'processing' and s.account_id is not null`,
  );
  return rows.map((r) => ({ documentId: r.id, revision: r.revision, accountId: r.account_id }));
}

/** Whether the document's row still waits for this job's upload: not deleted, replaced by a newer upload, or ended. */
function uploadIsCurrent<Row extends { revision: number; state: string }>(row: Row | undefined, job: { revision: number }): row is Row {
  return row !== undefined && row.revision === job.revision && row.state === 'processing';
}

/** How often a running job asks whether its upload is still the document's. */
const CURRENT_CHECK_MS = 2000;

/**
 * A signal that fires once the job's upload is no longer its document's (deleted, replaced by a
 * newer upload, or its knowledge base deleted), asked every CURRENT_CHECK_MS. A check that fails
 * (the database down) leaves the job running until the next.
 */
function whileCurrent(em: () => EntityManager, job: { documentId: string; revision: number }): { signal: AbortSignal; stop: () => void } {
  const stale = new AbortController();
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    em()
      .execute<{ revision: number; state: string }[]>('select revision, state from document where id = ?', [job.documentId])
      .then(([row]) => {
        if (!uploadIsCurrent(row, job)) stale.abort(new Error(`upload ${job.revision} of document ${job.documentId} is no longer current`));
      }, () => undefined)
      .finally(() => (asking = false));
  }, CURRENT_CHECK_MS);
  timer.unref();
  return { signal: stale.signal, stop: () => clearInterval(timer) };
}

export interface IngestionDeps {
  em: () => EntityManager;
  index: SearchIndex;
  embedder: Embedder | null;
  /** the worker pool that reads uploaded files, with ingestion's budgets */
  work: HeavyWork;
  now: () => Date;
}

interface Stored {
  revision: number;
  state: string;
  name: string;
  file_name: string | null;
  metadata: Record<string, string>;
  store_id: string;
  account_id: string;
  bytes: Buffer | null;
}

/**
 * Reads, chunks, embeds and indexes one upload, then ends the document `ready` (or `failed` with
 * why). Safe to run again at any point (after a crash, or twice): each run writes its chunks
 * under its own run id and only the run that ends the document keeps them, so a document ends
 * ready once, with its chunks once. A file that cannot be read fails at once; other failures (the
 * search index or the embeddings endpoint) throw, so the queue retries with backoff, and on the
 * last attempt the document fails with the reason.
 */
export async function runIngestionJob(deps: IngestionDeps, job: { documentId: string; revision: number }, lastAttempt: boolean): Promise<void> {
  const em = deps.em();
  const [stored] = await em.execute<Stored[]>(
    `select d.revision, d.state, d.name, d.file_name, d.metadata, d.store_id, s.account_id, u.bytes
     from document d join store s on s.id = d.store_id left join document_upload u on u.document_id = d.id and u.revision = d.revision
     where d.id = ?`,
    [job.documentId],
  );
  // deleted, replaced by a newer upload (whose own job follows), or ended already
  if (!uploadIsCurrent(stored, job)) return;
  if (!stored.bytes) {
    await markDocumentFailed(em, deps.index, job.documentId, job.revision, 'The uploaded file is no longer stored. Upload the document again.', deps.now());
    return;
  }
  await markProcessingStarted(em, job.documentId, job.revision, deps.now());
  const current = whileCurrent(deps.em, job);
  let indexed;
  try {
    indexed = await indexDocumentRun(deps.index, deps.embedder, {
      store: stored.store_id,
      documentId: job.documentId,
      name: stored.name,
      fileName: stored.file_name ?? stored.name,
      bytes: new Uint8Array(stored.bytes),
      metadata: checkMetadata(stored.metadata),
      work: deps.work,
      // an account's files are read one after another, and accounts take turns
      owner: `account:${stored.account_id}`,
      signal: current.signal,
    });
  } catch (error) {
    if (error instanceof UnreadableDocumentError && !current.signal.aborted) {
      await markDocumentFailed(em, deps.index, job.documentId, job.revision, `${error.message}.`, deps.now());
      return;
    }
    // the knowledge base deleted meanwhile: the writes before the failure (a file that could not be
    // read wrote nothing) may have made its index again, and no later run of the job will find the
    // document to end it. An index that fails here keeps the failure the job reports.
    await dropIndexOfDeletedStore(em, deps.index, stored.store_id).catch(() => undefined);
    // deleted or replaced while it was read, embedded or written (a failed write removes what it
    // wrote): the account's next upload need not wait for the rest of a file nobody will query
    if (current.signal.aborted) return;
    if (lastAttempt) {
      const why = error instanceof Error ? error.message : String(error);
      await markDocumentFailed(em, deps.index, job.documentId, job.revision, `The service could not index the document after several attempts (${why}). Upload it again later.`, deps.now());
      return;
    }
    throw error;
  } finally {
    current.stop();
  }
  await markDocumentReady(em, deps.index, { documentId: job.documentId, store: stored.store_id, revision: job.revision, ...indexed }, (accountId) => maxPagesOf(em, accountId, deps.now()), deps.now());
}
