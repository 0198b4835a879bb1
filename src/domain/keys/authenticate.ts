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

const MISSING = 'API key is required. Send it in the X-API-Key header.';
const INVALID = 'Invalid API key.';
const REVOKED = 'This API key has been revoked.';

export async function authenticate(
  em: EntityManager,
  settings: AuthSettings,
  presented: string | undefined,
  now: Date,
): Promise<Principal> {
  if (presented === undefined || presented === '') throw new AuthenticationError('missing_api_key', MISSING);
  // malformed keys and keys of the other environment never reach the database
  if (keyEnvironment(presented) !== settings.environment) throw new AuthenticationError('authentication_failed', INVALID);
  const key = await em.findOne(ApiKey, { keyHash: hashKey(presented, settings.hashSecret) });
  if (!key) throw new AuthenticationError('authentication_failed', INVALID);
  if (key.status === 'revoked') throw new AuthenticationError('api_key_revoked', REVOKED);
  if (key.expiresAt && key.expiresAt <= now) throw new AuthenticationError('api_key_revoked', `This API key expired at ${key.expiresAt.toISOString()}.`);
  const subscription = await currentSubscription(em, key.account.id, now);
  if (!subscription) {
    throw new ForbiddenError(
      'This API key does not have permission to access this resource: its account has no active subscription. Subscribe to the Free plan or a paid plan.',
    );
  }
  return {
    keyId: key.id,
    accountId: key.account.id,
    readOnly: key.readOnly,
    allowedIps: key.allowedIps,
    plan: subscription.plan,
  };
}
