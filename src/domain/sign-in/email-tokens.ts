import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DashboardUser} from '../../db/entities.js';
import { EmailToken, type EmailTokenPurpose } from '../../db/entities.js';
import { NotFoundError } from '../errors.js';
import { newToken, tokenHash } from './tokens.js';

/** A one-time token for a mailed link; earlier unused tokens of the same purpose stop working. */
export async function issueEmailToken(em: EntityManager, user: DashboardUser, purpose: EmailTokenPurpose, ttlMs: number, now: Date): Promise<string> {
  await em.nativeUpdate(EmailToken, { user, purpose, usedAt: null }, { usedAt: now });
  const token = newToken();
  em.create(EmailToken, { id: randomUUID(), user, purpose, tokenHash: tokenHash(token), expiresAt: new Date(now.getTime() + ttlMs), createdAt: now });
  await em.flush();
  return token;
}

/**
 * Uses a token once: its user, or 404 when it is unknown, used or expired. `check` may refuse the
 * use before the token is taken, so that a refused attempt leaves the link working. The update is
 * conditional, so two concurrent uses of one token cannot both succeed.
 */
export async function redeemEmailToken(em: EntityManager, token: string, purpose: EmailTokenPurpose, now: Date, check: (user: DashboardUser) => void = () => {}): Promise<DashboardUser> {
  const record = await em.findOne(EmailToken, { tokenHash: tokenHash(token), purpose }, { populate: ['user'] });
  const usable = record !== null && record.expiresAt > now && !record.usedAt;
  if (usable) check(record.user);
  const taken = usable ? await em.nativeUpdate(EmailToken, { id: record.id, usedAt: null }, { usedAt: now }) : 0;
  if (!usable || taken !== 1) {
    const what = purpose === 'verify_email' ? 'verification link' : 'password-reset link';
    throw new NotFoundError(`This ${what} is invalid, expired or already used. Ask for a new one.`);
  }
  return record.user;
}
