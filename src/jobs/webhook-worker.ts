import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { dispatchEvents, pruneEvents, startDue } from '../domain/webhooks/dispatch.js';
import type { Services } from '../services.js';

/**
 * The webhook outbox relay of this process: every `pollMs` it turns new events into deliveries
 * and starts the due ones (src/domain/webhooks/dispatch.ts), keeping at most `batch` attempts
 * under way, one an endpoint and `perAccount` an account; each attempt that ends makes room for the next at once. Any number
 * of processes may run one: rows are taken with SKIP LOCKED, and everything it needs is in the
 * database, so events committed by a process that died are delivered by the next one that polls.
 */
export class WebhookWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private prunedAt = 0;
  /** the attempts under way, by endpoint, with the account each is for */
  private readonly underWay = new Map<string, { accountId: string; done: Promise<void> }>();
  private filling: Promise<void> | undefined;
  private fillAgain = false;

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
    try {
      const em = this.orm.em.fork();
      const now = this.clock.now();
      // the delivery log keeps 30 days; old rows go about once an hour
      if (now.getTime() - this.prunedAt >= 3_600_000) {
        await pruneEvents(em, now);
        this.prunedAt = now.getTime();
      }
      await dispatchEvents(em, now);
      await this.fill();
    } catch (error) {
      this.log.warn({ err: error }, 'webhook relay failed; it tries again at its next poll');
    }
  }

  /** Starts due attempts in the free places; one fill at a time, and one more when asked meanwhile (an attempt ended). */
  private fill(): Promise<void> {
    if (this.filling) {
      this.fillAgain = true;
      return this.filling;
    }
    this.filling = (async () => {
      do {
        this.fillAgain = false;
        await this.fillOnce();
      } while (this.fillAgain && !this.stopped);
    })().finally(() => (this.filling = undefined));
    return this.filling;
  }

  private async fillOnce(): Promise<void> {
    const { network, delivery } = this.services.webhooks;
    const places = delivery.batch - this.underWay.size;
    if (this.stopped || places <= 0) return;
    const deps = { network, mailer: this.services.mailer, settings: delivery, now: () => this.clock.now(), log: this.log };
    const accounts = [...this.underWay.values()].map((attempt) => attempt.accountId);
    for (const { endpointId, accountId, done } of await startDue(this.orm.em.fork(), deps, places, [...this.underWay.keys()], accounts)) {
      this.underWay.set(endpointId, {
        accountId,
        done: done.finally(() => {
          this.underWay.delete(endpointId);
          // its place, and its endpoint's next delivery, may be taken at once
          if (!this.stopped) this.fill().catch((error: unknown) => this.log.warn({ err: error }, 'webhook relay failed; it tries again at its next poll'));
        }),
      });
    }
  }

  /** Stops polling; attempts under way finish (each within its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    // a fill that failed was logged by whoever started it; the attempts under way still finish
    await this.filling?.catch(() => undefined);
    await Promise.all([...this.underWay.values()].map((attempt) => attempt.done));
  }
}
