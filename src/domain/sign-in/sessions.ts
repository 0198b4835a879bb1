import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DashboardUser } from '../../db/entities.js';
import { DashboardSession } from '../../db/entities.js';
import { newToken, tokenHash } from './tokens.js';
import type { SignInSettings } from './settings.js';

/** A signed-in person, as the dashboard operations see them. */
export interface SignedIn {
  sessionId: string;
  /** the cookie's token: the CSRF token is derived from it */
  token: string;
  user: DashboardUser;
  accountId: string;
}

/** A new session, with the token that goes into the cookie (and nowhere else). */
export async function startSession(em: EntityManager, user: DashboardUser, settings: SignInSettings, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + settings.sessionMaxMs);
  em.create(DashboardSession, { id: randomUUID(), user, tokenHash: tokenHash(token), createdAt: now, lastSeenAt: now, expiresAt });
  await em.flush();
  return { token, expiresAt };
}

/** Seen-at is written at most this often: a page view should not always cost a write. */
const TOUCH_EVERY_MS = 60_000;

/** The session of a cookie token, or null when there is none or it expired (idle or absolute). */
export async function findSession(em: EntityManager, token: string, settings: SignInSettings, now: Date): Promise<SignedIn | null> {
  const session = await em.findOne(DashboardSession, { tokenHash: tokenHash(token) }, { populate: ['user'] });
  if (!session) return null;
  if (session.expiresAt <= now || session.lastSeenAt.getTime() + settings.sessionIdleMs <= now.getTime()) {
    await em.nativeDelete(DashboardSession, { id: session.id });
    return null;
  }
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    session.lastSeenAt = now;
    await em.flush();
  }
  return { sessionId: session.id, token, user: session.user, accountId: session.user.account.id };
}

/** Ends one session (log-out, or the old session when a browser signs in again). */
export async function endSession(em: EntityManager, token: string): Promise<void> {
  await em.nativeDelete(DashboardSession, { tokenHash: tokenHash(token) });
}

/** Ends every session of a person (a password reset). */
export async function endAllSessions(em: EntityManager, userId: string): Promise<void> {
  await em.nativeDelete(DashboardSession, { user: userId });
}
