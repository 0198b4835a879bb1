import { createHmac, randomInt } from 'node:crypto';

export type KeyEnvironment = 'live' | 'test';

const PREFIX: Record<KeyEnvironment, string> = { live: 'svc_', test: 'sk_test_' };
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_LENGTH = 40;
/** Longer keys are not a format we issue; refusing them early bounds the work per request. */
const MAX_SECRET_LENGTH = 128;
const FORMAT = /^(svc_|sk_test_)([A-Za-z0-9]+)$/;

/** Environment of a well-formed key, or null when the string is not a key at all. */
export function keyEnvironment(key: string): KeyEnvironment | null {
  const match = FORMAT.exec(key);
  if (!match) return null;
  const secret = match[2]!;
  if (secret.length < 32 || secret.length > MAX_SECRET_LENGTH) return null;
  return match[1] === PREFIX.live ? 'live' : 'test';
}

export function generateKey(environment: KeyEnvironment): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  return PREFIX[environment] + secret;
}

/** What may be shown after creation: the prefix and the first characters of the secret. */
export function displayPrefix(key: string): string {
  const prefix = key.startsWith(PREFIX.test) ? PREFIX.test : PREFIX.live;
  return key.slice(0, prefix.length + 6);
}

/** Keys are stored only as a keyed hash: a leaked table cannot be used without the secret. */
export function hashKey(key: string, secret: string): string {
  return createHmac('sha256', secret).update(key).digest('hex');
}
