import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { mailResetLink, PASSWORD_RESET_QUEUE } from '../domain/sign-in/accounts.js';
import type { Services } from '../services.js';
import type { PgBossQueue } from './pg-boss-queue.js';

/**
 * Mails the password-reset links that requests queued, in this process (any number of processes
 * share the queue). A mail server that is down fails the job, which the queue retries with backoff
 * (the default policy: 8 retries, up to 5 minutes apart); each try mails a new link.
 */
export async function startMailWorker(queue: PgBossQueue, orm: Orm, services: Pick<Services, 'signIn' | 'mailer'>, clock: Clock, log: Logger): Promise<void> {
  await queue.work(PASSWORD_RESET_QUEUE, async (data) => {
    const userId = typeof data.userId === 'string' ? data.userId : null;
    await mailResetLink({ em: orm.em.fork(), settings: services.signIn, mailer: services.mailer, now: clock.now() }, userId);
  }, log);
}
