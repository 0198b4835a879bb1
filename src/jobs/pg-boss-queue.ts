import { PgBoss } from 'pg-boss';
import type { JobQueue } from '../domain/ports/job-queue.js';
import type { Logger } from 'pino';

// The one durable job queue (pg-boss, tables in the `pgboss` schema of our database): billing
// notifications now, ingestion and webhook deliveries later. A job survives a restart and is
// retried with backoff when its handler throws.

export type JobHandler = (data: Record<string, unknown>) => Promise<void>;

export class PgBossQueue implements JobQueue {
  private readonly boss: PgBoss;
  private started: Promise<unknown> | undefined;
  private readonly queues = new Map<string, Promise<void>>();

  constructor(databaseUrl: string) {
    this.boss = new PgBoss({ connectionString: databaseUrl, max: 4, useListenNotify: true });
  }

  /** Connects (pg-boss installs or migrates its schema on first start) and creates the queue once. */
  private ready(queue: string): Promise<void> {
    this.started ??= this.boss.start();
    let created = this.queues.get(queue);
    if (!created) {
      // a job whose process died is taken up again once its heartbeats stop, not after pg-boss's 15 minutes
      created = this.started.then(() =>
        this.boss.createQueue(queue, { retryLimit: 8, retryDelay: 1, retryBackoff: true, retryDelayMax: 300, notify: true, expireInSeconds: 120, heartbeatSeconds: 10 }),
      );
      // a failed start is tried again by the next caller
      created.catch(() => {
        this.queues.delete(queue);
        this.started = undefined;
      });
      this.queues.set(queue, created);
    }
    return created;
  }

  async send(queue: string, data: Record<string, unknown>): Promise<void> {
    await this.ready(queue);
    await this.boss.send(queue, data);
  }

  /** Runs `handler` for each job of `queue` in this process, one at a time; errors go to `log`. */
  async work(queue: string, handler: JobHandler, log: Logger): Promise<void> {
    if (this.boss.listenerCount('error') === 0) this.boss.on('error', (error: Error) => log.error({ err: error }, 'job queue error'));
    await this.ready(queue);
    await this.boss.work<Record<string, unknown>>(queue, { pollingIntervalSeconds: 1, batchSize: 1 }, async ([job]) => {
      try {
        await handler(job!.data);
      } catch (error) {
        log.warn({ err: error, queue, job: job!.id }, 'job failed; it will be retried');
        throw error;
      }
    });
  }

  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    this.queues.clear();
    // a start that failed has nothing to stop
    if (started) await started.then(() => this.boss.stop({ graceful: true, timeout: 10_000 }), () => undefined);
  }
}
