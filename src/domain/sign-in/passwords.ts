import { hash, verify } from '@node-rs/argon2';
import { InvalidRequestError } from '../errors.js';

// argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's recommendation); the
// hashing runs on libuv's thread pool, off the event loop
export async function hashPassword(password: string): Promise<string> {
  return hash(password);
}

export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    // a hash the library cannot parse never matches
    return false;
  }
}

export const PASSWORD_MIN_LENGTH = 10;

/** Rules a person can act on; length limits also bound the hashing work an attacker can ask for. */
export function checkNewPassword(password: string, email?: string): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw new InvalidRequestError(`The password is too short: use at least ${PASSWORD_MIN_LENGTH} characters.`, [
      { path: '/password', message: `at least ${PASSWORD_MIN_LENGTH} characters` },
    ]);
  }
  if (email !== undefined && password.trim().toLowerCase() === email.trim().toLowerCase()) {
    throw new InvalidRequestError('The password must not be your email address.', [{ path: '/password', message: 'must differ from the email address' }]);
  }
}

/** A password hash to compare against when no user matches, so that a log-in takes as long either way. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hash('decoy password that matches nothing');
  return decoy;
}
