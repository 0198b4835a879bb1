import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret for a cookie or an emailed link: 256 bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens are random, so a plain SHA-256 is enough to keep them unusable if the table leaks. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The form/header token of a session, bound to its cookie token and never stored (signed double submit). */
export function csrfToken(sessionToken: string, secret: string): string {
  return createHmac('sha256', secret).update(`csrf:${sessionToken}`).digest('base64url');
}

export function csrfTokenMatches(sessionToken: string, secret: string, presented: string | undefined): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfToken(sessionToken, secret));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
