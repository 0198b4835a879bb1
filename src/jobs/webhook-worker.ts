import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { deliverDue, dispatchEvents, pruneEvents } from '../domain/webhooks/dispatch.js';
import type { Services } from '../services.js';

/**
 * The webhook outbox relay of this process: every `pollMs` it turns new events into deliveries
 * and attempts the due ones (src/domain/webhooks/dispatch.ts). Any number of processes may run
 * one: rows are taken with SKIP LOCKED, and everything it needs is in the database, so events
 * committed by a process that died are delivered by the next one that polls.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private prunedAt = 0;

  constructor(
    private readonly orm: Orm,
    private readonly services: Pick<Services, 'webhooks' | 'mailer'>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule(this.services.webhooks.pollMs);
      });
    }, ms);
  }

  private async tick(): Promise<void> {
    const { network, delivery } = this.services.webhooks;
    try {
      const em = this.orm.em.fork();
      const now = this.clock.now();
      // the delivery log keeps 30 days; old rows go about once an hour
      if (now.getTime() - this.prunedAt >= 3_600_000) {
        await pruneEvents(em, now);
        this.prunedAt = now.getTime();
      }
      await dispatchEvents(em, now);
      // a full batch means more may be due: go on at once
      while (!this.stopped && (await deliverDue(em.fork(), { network, mailer: this.services.mailer, settings: delivery, now: () => this.clock.now(), log: this.log })) === delivery.batch);
    } catch (error) {
      this.log.warn({ err: error }, 'webhook relay failed; it tries again at its next poll');
    }
  }

  /** Stops polling; attempts under way finish (each within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
