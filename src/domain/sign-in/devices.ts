import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Device cookies (OWASP's defence against guessing that does not lock people out): a browser that
// has signed in to a person's account carries a signed token naming them, and its failed log-ins
// count against that token instead of against the email address. Failures sent from anywhere
// else (someone guessing) then use up the address's allowance without shutting the person out of
// the browsers they already use.

export const DEVICE_COOKIE = 'svc_device';
/** How long a browser stays known without signing in again. */
export const DEVICE_COOKIE_MAX_AGE_MS = 180 * 86_400_000;

export interface Device {
  userId: string;
  /** random, so that each browser has an allowance of its own */
  nonce: string;
}

const signature = (userId: string, nonce: string, secret: string) => createHmac('sha256', secret).update(`device:${userId}:${nonce}`).digest('base64url');

/** A new token for a browser that `userId` has just signed in with. */
export function newDeviceToken(userId: string, secret: string): string {
  const nonce = randomBytes(16).toString('base64url');
  return `${userId}.${nonce}.${signature(userId, nonce, secret)}`;
}

/** The device a cookie's token names, or null when it is absent, malformed or not signed by `secret`. */
export function deviceOf(token: string | undefined, secret: string): Device | null {
  const parts = token?.split('.');
  if (parts?.length !== 3) return null;
  const [userId, nonce, given] = parts as [string, string, string];
  const expected = Buffer.from(signature(userId, nonce, secret));
  const presented = Buffer.from(given);
  return expected.length === presented.length && timingSafeEqual(expected, presented) ? { userId, nonce } : null;
}
