import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { mailResetLink, PASSWORD_RESET_QUEUE } from '../domain/sign-in/accounts.js';
import type { Services } from '../services.js';
import type { PgBossQueue, QueuePolicy } from './pg-boss-queue.js';

/**
 * A mail server that is down fails the job, which is tried again with backoff for about the hour a
 * link works (5 s doubling up to 10 minutes apart, 12 retries); each try mails a new link.
 */
export const MAIL_POLICY: Partial<QueuePolicy> = { retryLimit: 12, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 };

/**
 * Mails the password-reset links that requests queued, in this process (any number of processes
 * share the queue). A link that could not be mailed within its retries is logged as an error:
 * its request was answered 202, and the person can only ask again.
 */
export async function startMailWorker(queue: PgBossQueue, orm: Orm, services: Pick<Services, 'signIn' | 'mailer'>, clock: Clock, log: Logger): Promise<void> {
  await queue.work(PASSWORD_RESET_QUEUE, async (data, attempt) => {
    const userId = typeof data.userId === 'string' ? data.userId : null;
    try {
      await mailResetLink({ em: orm.em.fork(), settings: services.signIn, mailer: services.mailer, now: clock.now() }, userId);
    } catch (error) {
      if (attempt.lastAttempt) log.error({ err: error, user: userId }, 'a password-reset link could not be mailed within its retries; the person must ask again');
      throw error;
    }
  }, log);
}
