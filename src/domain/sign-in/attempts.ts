import type { EntityManager } from '@mikro-orm/postgresql';
import { admitInWindow, forgetClient, purgeWindow, removeFromWindow } from '../../db/sliding-window.js';
import { secondsUntil } from '../limits/window.js';
import { ServiceError } from '../errors.js';
import { THROTTLE_WINDOW_MS } from './settings.js';

/** Whose attempts are counted: a client address or an email address, each with its own allowance. */
export interface AttemptScope {
  client: string;
  limit: number;
}

/** Attempts taken from the allowance; give them back when the attempt succeeded. */
export interface Attempt {
  ids: string[];
}

let lastPurge = 0;
const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Takes one attempt from every scope's allowance for the last 15 minutes before the password is
 * checked, so that concurrent guesses (from any number of processes) never exceed it; when one
 * scope is used up the others are given back and the caller gets 429 with Retry-After.
 */
export async function beginAttempt(em: EntityManager, scopes: AttemptScope[], now: Date): Promise<Attempt> {
  const since = new Date(now.getTime() - THROTTLE_WINDOW_MS);
  if (now.getTime() - lastPurge >= PURGE_EVERY_MS) {
    lastPurge = now.getTime();
    await purgeWindow(em, 'login_failure', since);
  }
  const ids: string[] = [];
  for (const scope of scopes) {
    const result = await admitInWindow(em, 'login_failure', scope.client, scope.limit, since, now);
    if (!result.admitted) {
      await removeFromWindow(em, 'login_failure', ids);
      const retryAfterSeconds = secondsUntil(new Date((result.oldest ?? now).getTime() + THROTTLE_WINDOW_MS), now);
      throw new ServiceError('rate_limit_exceeded', `Too many attempts. Wait ${retryAfterSeconds} seconds before trying again.`, { retryAfterSeconds });
    }
    ids.push(result.id!);
  }
  return { ids };
}

/** Forgets every attempt counted against `client` (the failed log-ins of an address whose owner reset the password). */
export async function forgetAttempts(em: EntityManager, client: string): Promise<void> {
  await forgetClient(em, 'login_failure', client);
}

/** A successful sign-in does not count against anyone. */
export async function attemptSucceeded(em: EntityManager, attempt: Attempt): Promise<void> {
  await removeFromWindow(em, 'login_failure', attempt.ids);
}
