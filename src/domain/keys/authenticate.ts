import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../../db/entities.js';
import { currentSubscription } from '../accounts/subscriptions.js';
import { AuthenticationError, ForbiddenError } from '../errors.js';
import { hashKey, keyEnvironment, type KeyEnvironment } from './key-format.js';
import type { Principal } from './principal.js';

export interface AuthSettings {
  hashSecret: string;
  environment: KeyEnvironment;
  /** Failed authentications one client address may make per minute before it is refused unchecked. */
  failuresPerMinute: number;
}

export type KeyRefusal = 'missing' | 'invalid' | 'revoked' | 'expired' | 'no_subscription';

/** The documented refusal of a key that does not authenticate, or whose account has no plan. */
export function keyRefusal(kind: KeyRefusal): AuthenticationError | ForbiddenError {
  switch (kind) {
    case 'missing':
      return new AuthenticationError('missing_api_key', 'API key is required. Send it in the X-API-Key header.');
    case 'invalid':
      return new AuthenticationError('authentication_failed', 'Invalid API key.');
    case 'revoked':
      return new AuthenticationError('api_key_revoked', 'This API key has been revoked.');
    case 'expired':
      return new AuthenticationError('api_key_revoked', 'This API key has expired (a rolled key expires when its grace period ends): use the key that replaced it, or create a new key in the dashboard.');
    case 'no_subscription':
      return new ForbiddenError(
        'This API key does not have permission to access this resource: its account has no active subscription. Subscribe to the Free plan or a paid plan.',
      );
  }
}

/**
 * The key's principal through the ORM, for callers off the API's hot path (the documentation
 * site); the API authenticates and admits in one database call (src/domain/limits/limiter.ts).
 */
export async function authenticate(
  em: EntityManager,
  settings: AuthSettings,
  presented: string | undefined,
  now: Date,
): Promise<Principal> {
  if (presented === undefined || presented === '') throw keyRefusal('missing');
  // malformed keys and keys of the other environment never reach the database
  if (keyEnvironment(presented) !== settings.environment) throw keyRefusal('invalid');
  const key = await em.findOne(ApiKey, { keyHash: hashKey(presented, settings.hashSecret) });
  if (!key) throw keyRefusal('invalid');
  if (key.status === 'revoked') throw keyRefusal('revoked');
  if (key.expiresAt && key.expiresAt <= now) throw keyRefusal('expired');
  const subscription = await currentSubscription(em, key.account.id, now);
  if (!subscription) throw keyRefusal('no_subscription');
  return {
    keyId: key.id,
    accountId: key.account.id,
    readOnly: key.readOnly,
    allowedIps: key.allowedIps,
    plan: subscription.plan,
  };
}
