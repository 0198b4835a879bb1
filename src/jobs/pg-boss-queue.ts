import { PgBoss, type Queue } from 'pg-boss';
import type { JobOptions, JobQueue } from '../domain/ports/job-queue.js';
import type { Logger } from 'pino';

// The one durable job queue (pg-boss, tables in the `pgboss` schema of our database): billing
// notifications, document ingestion, and webhook deliveries later. A job survives a restart and
// is retried with backoff when its handler throws.

/** Which attempt of its job a handler runs: the last one may settle the job's outcome itself. */
export interface Attempt {
  retryCount: number;
  lastAttempt: boolean;
}

export type JobHandler = (data: Record<string, unknown>, attempt: Attempt) => Promise<void>;

/** How a queue's jobs are retried and how long one may run (pg-boss's queue options). */
export type QueuePolicy = Pick<Queue, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax' | 'expireInSeconds' | 'heartbeatSeconds'>;

const SCHEMA = 'pgboss';

// a job whose process died is taken up again once its heartbeats stop, not after pg-boss's 15 minutes
const DEFAULT_POLICY: QueuePolicy = { retryLimit: 8, retryDelay: 1, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 120, heartbeatSeconds: 10 };

export interface WorkOptions {
  /** jobs of the queue this process runs at once (default 1) */
  concurrency?: number;
  /** jobs of one group (see JobOptions.group) running at once, across every process */
  perGroup?: number;
}

export class PgBossQueue implements JobQueue {
  private readonly boss: PgBoss;
  private started: Promise<unknown> | undefined;
  private readonly queues = new Map<string, Promise<void>>();
  private readonly policies = new Map<string, QueuePolicy>();

  constructor(databaseUrl: string) {
    this.boss = new PgBoss({ connectionString: databaseUrl, schema: SCHEMA, max: 4, useListenNotify: true });
  }

  /** Gives a queue other retries or run time than the default, before its first use in this process. */
  define(queue: string, policy: Partial<QueuePolicy>): void {
    this.policies.set(queue, { ...DEFAULT_POLICY, ...policy });
  }

  private policy(queue: string): QueuePolicy {
    return this.policies.get(queue) ?? DEFAULT_POLICY;
  }

  /** Connects (pg-boss installs or migrates its schema on first start) and creates the queue once. */
  private ready(queue: string): Promise<void> {
    this.started ??= this.boss.start();
    let created = this.queues.get(queue);
    if (!created) {
      // createQueue keeps an existing queue as it was: updateQueue brings its retries and times to this code's
      created = this.started.then(async () => {
        await this.boss.createQueue(queue, { ...this.policy(queue), notify: true });
        await this.boss.updateQueue(queue, this.policy(queue));
      });
      // a failed start is tried again by the next caller
      created.catch(() => {
        this.queues.delete(queue);
        this.started = undefined;
      });
      this.queues.set(queue, created);
    }
    return created;
  }

  async send(queue: string, data: Record<string, unknown>, options: JobOptions = {}): Promise<void> {
    await this.ready(queue);
    const send = () => this.boss.send(queue, data, { id: options.id, group: options.group ? { id: options.group } : undefined });
    // pg-boss adds nothing (null) for an id it has in any state
    if ((await send()) !== null || !options.id || !options.replaceFailed) return;
    // only a failed job is taken away (never the new one of a process replacing it at the same
    // moment); one that is gone meanwhile (pg-boss deletes old failed jobs) is simply sent
    await this.boss.getDb().executeSql(`delete from ${SCHEMA}.job where name = $1 and id = $2 and state = 'failed'`, [queue, options.id]);
    await send();
  }

  /** Runs `handler` for each job of `queue` in this process (one at a time unless `options` say more); errors go to `log`. */
  async work(queue: string, handler: JobHandler, log: Logger, options: WorkOptions = {}): Promise<void> {
    if (this.boss.listenerCount('error') === 0) this.boss.on('error', (error: Error) => log.error({ err: error }, 'job queue error'));
    await this.ready(queue);
    const { retryLimit = 0 } = this.policy(queue);
    await this.boss.work<Record<string, unknown>>(
      queue,
      {
        // with NOTIFY on, pg-boss polls every 30 s by default, and a worker that has just finished a
        // job waits for that poll unless a new job was sent meanwhile: a backlog (jobs sent while
        // every worker was busy, or before this process started) would drain one job per worker
        // every 30 s. NOTIFY still wakes idle workers at once.
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
        batchSize: 1,
        localConcurrency: options.concurrency ?? 1,
        ...(options.perGroup ? { groupConcurrency: options.perGroup } : {}),
      },
      async ([job]) => {
        try {
          await handler(job!.data, { retryCount: job!.retryCount, lastAttempt: job!.retryCount >= retryLimit });
        } catch (error) {
          log.warn({ err: error, queue, job: job!.id }, 'job failed; it will be retried');
          throw error;
        }
      },
    );
  }

  async stop(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    this.queues.clear();
    // a start that failed has nothing to stop
    if (started) await started.then(() => this.boss.stop({ graceful: true, timeout: 10_000 }), () => undefined);
  }
}
