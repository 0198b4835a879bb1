import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, ApiKey } from '../../db/entities.js';
import { currentSubscription } from '../accounts/subscriptions.js';
import { NoActivePlanError, NotFoundError } from '../errors.js';
import { displayPrefix, generateKey, hashKey, type KeyEnvironment } from './key-format.js';
import { normaliseAllowEntry } from './restrictions.js';

export interface NewKey {
  accountId: string;
  name: string;
  environment: KeyEnvironment;
  readOnly?: boolean;
  allowedIps?: string[];
}

/** Creates a key and returns it in full: the only time it exists outside the caller's hands. */
export async function createKey(em: EntityManager, hashSecret: string, spec: NewKey, now: Date): Promise<{ key: string; record: ApiKey }> {
  const account = await em.findOne(Account, { id: spec.accountId });
  if (!account) throw new NotFoundError(`No account with id ${spec.accountId}.`);
  if (!(await currentSubscription(em, account.id, now))) throw new NoActivePlanError();
  const allowedIps = (spec.allowedIps ?? []).map(normaliseAllowEntry);
  const key = generateKey(spec.environment);
  const record = em.create(ApiKey, {
    id: randomUUID(),
    account,
    name: spec.name,
    keyHash: hashKey(key, hashSecret),
    displayPrefix: displayPrefix(key),
    environment: spec.environment,
    status: 'active',
    readOnly: spec.readOnly ?? false,
    allowedIps,
    createdAt: now,
  });
  await em.flush();
  return { key, record };
}

export async function listKeys(em: EntityManager, accountId?: string): Promise<ApiKey[]> {
  return em.find(ApiKey, accountId ? { account: accountId } : {}, { orderBy: { createdAt: 'asc' } });
}

/** Revokes a key; with `accountId`, only a key of that account (another account's key is not found). */
export async function revokeKey(em: EntityManager, keyId: string, now: Date, accountId?: string): Promise<ApiKey> {
  const key = await em.findOne(ApiKey, accountId ? { id: keyId, account: accountId } : { id: keyId });
  if (!key) throw new NotFoundError(`No API key with id ${keyId}.`);
  if (key.status !== 'revoked') {
    key.status = 'revoked';
    key.revokedAt = now;
    await em.flush();
  }
  return key;
}
