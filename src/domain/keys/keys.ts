import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, ApiKey } from '../../db/entities.js';
import { currentSubscription } from '../accounts/subscriptions.js';
import { recordAudit } from '../audit/audit-log.js';
import { recordEvent } from '../webhooks/events.js';
import { ConflictError, InvalidRequestError, NoActivePlanError, NotFoundError } from '../errors.js';
import { displayPrefix, generateKey, hashKey, type KeyEnvironment } from './key-format.js';
import { keyRecord } from './key-record.js';
import { normaliseAllowEntry } from './restrictions.js';

export interface NewKey {
  accountId: string;
  name: string;
  environment: KeyEnvironment;
  readOnly?: boolean;
  allowedIps?: string[];
  expiresAt?: Date | null;
}

/**
 * Who changed a key, for the audit log: a dashboard user, or null for an operator (the keys
 * command). Every change is recorded in the audit log and as a webhook event, in the unit of
 * work of the change itself.
 */
export type KeyActor = string | null;

/**
 * Active keys (neither revoked nor expired) an account may create in the dashboard. Limits apply
 * per key, so without a bound one account could draw any multiple of its plan. The operator's key
 * command is not bound by it (it may give an account more).
 */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 10;

/** A transaction-scoped lock on the account's keys: its creations and rolls happen one after another. */
async function lockKeysOf(tx: EntityManager, accountId: string): Promise<void> {
  await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [`api-keys:${accountId}`]);
}

/** Refuses a new key when the account already has `most` active keys (counted under the lock on its keys). */
async function checkRoomForKey(tx: EntityManager, accountId: string, now: Date, most: number): Promise<void> {
  const active = await tx.count(ApiKey, { account: accountId, status: { $ne: 'revoked' }, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });
  if (active >= most) {
    throw new ConflictError(`This account already has ${active} active API keys, and may have at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} (one more while a rolled key's grace period lasts): revoke one first.`);
  }
}

function recordKeyEvent(em: EntityManager, type: 'api_key.created' | 'api_key.revoked', key: ApiKey, now: Date): void {
  recordEvent(em, key.account.id, type, { api_key: keyRecord(key, now) }, now);
}

/** Creates a key and returns it in full: the only time it exists outside the caller's hands. */
export async function createKey(em: EntityManager, hashSecret: string, spec: NewKey, now: Date, by: KeyActor = null): Promise<{ key: string; record: ApiKey }> {
  return em.transactional(async (tx) => {
    await lockKeysOf(tx, spec.accountId);
    const created = await insertKey(tx, hashSecret, spec, now, by === null ? null : MAX_ACTIVE_KEYS_PER_ACCOUNT);
    recordAudit(tx, { accountId: spec.accountId, userId: by, action: 'key.created', subject: created.record.displayPrefix, detail: { name: created.record.name } }, now);
    recordKeyEvent(tx, 'api_key.created', created.record, now);
    return created;
  });
}

/** Makes a key once its account is found with an active subscription and, unless `most` is null, fewer than `most` active keys; under the lock on the account's keys. */
async function insertKey(em: EntityManager, hashSecret: string, spec: NewKey, now: Date, most: number | null): Promise<{ key: string; record: ApiKey }> {
  const account = await em.findOne(Account, { id: spec.accountId });
  if (!account) throw new NotFoundError(`No account with id ${spec.accountId}.`);
  if (!(await currentSubscription(em, account.id, now))) throw new NoActivePlanError();
  const allowedIps = (spec.allowedIps ?? []).map(normaliseAllowEntry);
  if (spec.expiresAt && spec.expiresAt <= now) {
    throw new InvalidRequestError('Field \'expires_at\' must be in the future.', [{ path: '/expires_at', message: 'must be in the future' }]);
  }
  if (most !== null) await checkRoomForKey(em, account.id, now, most);
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
    expiresAt: spec.expiresAt ?? null,
  });
  return { key, record };
}

export async function listKeys(em: EntityManager, accountId?: string): Promise<ApiKey[]> {
  return em.find(ApiKey, accountId ? { account: accountId } : {}, { orderBy: { createdAt: 'asc' } });
}

/** Revokes a key; with `accountId`, only a key of that account (another account's key is not found). */
export async function revokeKey(em: EntityManager, keyId: string, now: Date, accountId?: string, by: KeyActor = null): Promise<ApiKey> {
  const key = await em.findOne(ApiKey, accountId ? { id: keyId, account: accountId } : { id: keyId });
  if (!key) throw new NotFoundError(`No API key with id ${keyId}.`);
  if (key.status !== 'revoked') {
    key.status = 'revoked';
    key.revokedAt = now;
    recordKeyEvent(em, 'api_key.revoked', key, now);
  }
  recordAudit(em, { accountId: key.account.id, userId: by, action: 'key.revoked', subject: key.displayPrefix }, now);
  await em.flush();
  return key;
}

/**
 * Rolls a key: a new key with the same name, environment and restrictions, and the old key kept
 * working for `graceMs` (revoked at once when 0), so that callers can switch without downtime.
 * While the grace lasts the account has one key more: a dashboard user's roll with a grace needs
 * the account to have no more active keys than it may create. A key is rolled once: the new key
 * takes the old key's expiry, which after a roll is the end of its grace.
 */
export async function rollKey(em: EntityManager, hashSecret: string, keyId: string, accountId: string, graceMs: number, now: Date, by: KeyActor = null): Promise<{ key: string; record: ApiKey; old: ApiKey }> {
  return em.transactional(async (tx) => {
    // the old key is read under the lock: of two rolls of it at once the second finds it revoked
    // (404, without a grace period) or already rolled (409, with one)
    await lockKeysOf(tx, accountId);
    const old = await tx.findOne(ApiKey, { id: keyId, account: accountId });
    if (!old || old.status === 'revoked' || (old.expiresAt && old.expiresAt <= now)) throw new NotFoundError(`No active API key with id ${keyId}.`);
    if (old.replacedBy) {
      const replacement = await tx.findOne(ApiKey, { id: old.replacedBy });
      throw new ConflictError(`API key ${old.displayPrefix}… was already rolled: it is replaced by ${replacement?.displayPrefix ?? 'another key'}…, which is the key to roll.`);
    }
    const most = by === null || graceMs === 0 ? null : MAX_ACTIVE_KEYS_PER_ACCOUNT + 1;
    const created = await insertKey(tx, hashSecret, { accountId, name: old.name, environment: old.environment, readOnly: old.readOnly, allowedIps: old.allowedIps, expiresAt: old.expiresAt }, now, most);
    recordKeyEvent(tx, 'api_key.created', created.record, now);
    old.replacedBy = created.record.id;
    if (graceMs === 0) {
      old.status = 'revoked';
      old.revokedAt = now;
      recordKeyEvent(tx, 'api_key.revoked', old, now);
    } else {
      const end = new Date(now.getTime() + graceMs);
      old.expiresAt = old.expiresAt && old.expiresAt < end ? old.expiresAt : end;
    }
    recordAudit(tx, { accountId, userId: by, action: 'key.rolled', subject: old.displayPrefix, detail: { new_key: created.record.displayPrefix, grace_minutes: graceMs / 60_000 } }, now);
    return { ...created, old };
  });
}
