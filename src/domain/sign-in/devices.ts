import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Device cookies (OWASP's defence against guessing that does not lock people out): a browser that
// has signed in to a person's account carries a signed token naming them, and its failed log-ins
// count against that token instead of against the email address. Failures sent from anywhere
// else (someone guessing) then use up the address's allowance without shutting the person out of
// the browsers they already use.

export const DEVICE_COOKIE = 'svc_device';
/** How long a token is good for after its sign-in; each sign-in gives a new one. */
export const DEVICE_COOKIE_MAX_AGE_MS = 180 * 86_400_000;

/** Who a token is for: the person's id and their password hash, so that a reset ends every browser's token. */
export interface DeviceOwner {
  id: string;
  passwordHash: string;
}

const signature = (userId: string, issued: string, nonce: string, passwordHash: string, secret: string) =>
  createHmac('sha256', secret).update(`device:${userId}:${issued}:${nonce}:${passwordHash}`).digest('base64url');

/** A new token for a browser that `owner` has just signed in with: their id, when, a random nonce (each browser's own allowance) and the HMAC. */
export function newDeviceToken(owner: DeviceOwner, secret: string, now: Date): string {
  const issued = now.getTime().toString(36);
  const nonce = randomBytes(16).toString('base64url');
  return `${owner.id}.${issued}.${nonce}.${signature(owner.id, issued, nonce, owner.passwordHash, secret)}`;
}

/**
 * The nonce of a token that `owner` was given less than DEVICE_COOKIE_MAX_AGE_MS ago, with their
 * current password; null for anything else (absent, malformed, another person's, old, forged).
 */
export function deviceNonce(token: string | undefined, owner: DeviceOwner, secret: string, now: Date): string | null {
  const parts = token?.split('.');
  if (parts?.length !== 4) return null;
  const [userId, issued, nonce, given] = parts as [string, string, string, string];
  const age = now.getTime() - parseInt(issued, 36);
  if (userId !== owner.id || !(age >= 0 && age < DEVICE_COOKIE_MAX_AGE_MS)) return null;
  const expected = Buffer.from(signature(userId, issued, nonce, owner.passwordHash, secret));
  const presented = Buffer.from(given);
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? nonce : null;
}
