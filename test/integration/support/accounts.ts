import { randomUUID } from 'node:crypto';
import type { Orm } from '../../../src/db/orm.js';
import { Plan, type SubscriptionState } from '../../../src/db/entities.js';
import { createAccount, setSubscription } from '../../../src/domain/accounts/accounts.js';
import { createKey } from '../../../src/domain/keys/keys.js';
import type { KeyEnvironment } from '../../../src/domain/keys/key-format.js';
import { HASH_SECRET } from './server.js';

export interface KeyOptions {
  /** A plan's code: one of the four listed plans, or one made by newPlan. */
  plan?: string;
  state?: SubscriptionState;
  environment?: KeyEnvironment;
  readOnly?: boolean;
  allowedIps?: string[];
  now?: Date;
  /** An existing account to give the key (its subscription is set as for a new one). */
  accountId?: string;
}

/** A fresh account (or `accountId`) with a subscription and one key; every test gets its own, so tests never share counts. */
export async function newKey(orm: Orm, options: KeyOptions = {}): Promise<{ key: string; keyId: string; accountId: string }> {
  const em = orm.em.fork();
  const now = options.now ?? new Date();
  const account = options.accountId ? { id: options.accountId } : await createAccount(em, `test account ${Math.random().toString(36).slice(2)}`);
  await setSubscription(em, account.id, { planCode: options.plan ?? 'free', state: 'active' }, now);
  const { key, record } = await createKey(
    em,
    HASH_SECRET,
    { accountId: account.id, name: 'test', environment: options.environment ?? 'live', readOnly: options.readOnly, allowedIps: options.allowedIps },
    now,
  );
  if (options.state && options.state !== 'active') {
    await setSubscription(em, account.id, { planCode: options.plan ?? 'free', state: options.state }, now);
  }
  return { key, keyId: record.id, accountId: account.id };
}

/** A plan of the test's own with the given limits, never listed by GET /plans; returns its code. */
export async function newPlan(orm: Orm, limits: { perMinute: number; perDay: number; perMonth: number; webhooks?: boolean }): Promise<string> {
  const em = orm.em.fork();
  const id = randomUUID();
  const code = `test-${id.slice(0, 8)}`;
  em.create(Plan, {
    id,
    code,
    name: `Test ${id.slice(0, 8)}`,
    description: 'Made by an integration test',
    priceLkr: 0,
    rateLimitPerMinute: limits.perMinute,
    rateLimitPerDay: limits.perDay,
    monthlyQuota: limits.perMonth,
    allowedModels: ['svcai-fast'],
    customKnowledgeBases: false,
    webhooks: limits.webhooks ?? false,
    analytics: 'basic',
    support: 'community',
    sortOrder: 900,
    listed: false,
  });
  await em.flush();
  return code;
}

/**
 * Waits until every admitted request of the account has its outcome (status, duration, store)
 * written: outcomes nobody waits for are written in batches just after the responses
 * (src/db/outcome-writer.ts), so figures read from them trail the responses by milliseconds.
 */
export async function outcomesWritten(orm: Orm, accountId: string): Promise<void> {
  const em = orm.em.fork();
  for (let waited = 0; ; waited += 20) {
    const [row] = await em.execute<{ open: number }[]>(
      'select count(*)::int as open from request_log r join api_key k on k.id = r.api_key_id where k.account_id = ? and r.status is null',
      [accountId],
    );
    if (row!.open === 0) return;
    if (waited > 10_000) throw new Error(`${row!.open} requests of account ${accountId} still have no outcome after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
