import type { Logger } from 'pino';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../clock.js';
import type { Embedder } from '../domain/ports/embedder.js';
import type { HeavyWork } from '../domain/ports/heavy-work.js';
import type { SearchIndex } from '../domain/ports/search-index.js';
import { INGESTION_QUEUE, processingUploads, queueIngestion, runIngestionJob } from '../domain/knowledge-bases/ingestion-job.js';
import { removeChunksLeft } from '../domain/knowledge-bases/document-states.js';
import type { PgBossQueue, QueuePolicy } from './pg-boss-queue.js';
import { repeatEvery } from './repeat-every.js';

/**
 * Retries of an ingestion job (5 s, then growing to 15 minutes: about an hour in all), and how
 * long one attempt may run: a 2,000-page PDF may take minutes, and its heartbeats show it is alive.
 * Defined where the queue is made (src/services.ts), so a process that only queues jobs makes the
 * queue with these settings too.
 */
export const INGESTION_POLICY: Partial<QueuePolicy> = { retryLimit: 6, retryDelay: 5, retryBackoff: true, retryDelayMax: 900, expireInSeconds: 3600, heartbeatSeconds: 10 };

export interface IngestionSettings {
  /** ingestion jobs this process runs at once */
  concurrency: number;
  /** ingestion jobs of one account running at once, across every process */
  perAccount: number;
  /** how often uploads still processing are queued again (their job may never have been queued) */
  sweepMs: number;
}

/**
 * Reads and indexes uploaded documents from the queue in this process (any number of processes
 * may share it). Jobs are retried with backoff for up to about an hour; a process that dies
 * mid-document leaves its job to another (or to itself once restarted) after its heartbeats stop.
 * The sweep also removes the chunks of documents that failed while the search index was down.
 * Returns a function that stops the sweep, once the run in progress (if any) has ended.
 */
export async function startIngestionWorker(
  queue: PgBossQueue,
  orm: Orm,
  services: { index: SearchIndex; embedder: Embedder | null; ingestionWork: HeavyWork },
  clock: Clock,
  log: Logger,
  settings: IngestionSettings,
): Promise<() => Promise<void>> {
  const sweep = async () => {
    for (const job of await processingUploads(orm.em.fork())) await queueIngestion(queue, job);
  };
  await sweep();
  await queue.work(
    INGESTION_QUEUE,
    async (data, attempt) => {
      const job = { documentId: String(data.documentId), revision: Number(data.revision) };
      await runIngestionJob({ em: () => orm.em.fork(), index: services.index, embedder: services.embedder, work: services.ingestionWork, now: () => clock.now() }, job, attempt.lastAttempt);
      log.info({ document: job.documentId, revision: job.revision }, 'document ingestion job done');
    },
    log,
    { concurrency: settings.concurrency, perGroup: settings.perAccount },
  );
  const stopSweep = repeatEvery(settings.sweepMs, sweep, log, 'could not queue the uploads still processing');
  // the index may still be down: what is left is tried again at the next tick
  const stopRemoving = repeatEvery(
    settings.sweepMs,
    (stopping) => removeChunksLeft(orm.em.fork(), services.index, stopping),
    log,
    'could not remove the chunks of documents that failed while the search index was down',
  );
  return async () => {
    await Promise.all([stopSweep(), stopRemoving()]);
  };
}
