import { describe, expect, test } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Orm } from '../../src/db/orm.js';
import { migrate } from '../../src/db/migrate.js';
import { onCleanup } from './support/cleanup.js';
import { connectDatabase, databaseUrl } from './support/server.js';

/** A database of this test's own (dropped after the file), not created yet. */
async function newDatabase(name: string) {
  const url = new URL(databaseUrl());
  url.pathname = `/${name}_${Math.random().toString(36).slice(2, 10)}`;
  const orm = await connectDatabase(url.toString());
  onCleanup(() => orm.schema.dropDatabase());
  return orm;
}

/** A database of this test's own, made by the migrations up to `migration`, for rows stored before the later ones. */
async function migratedTo(name: string, migration: string) {
  const orm = await newDatabase(name);
  await orm.schema.ensureDatabase();
  await orm.migrator.up({ to: migration });
  return orm;
}

/**
 * A key (of `accountId`, else of a new account) as rows of the schema the early migrations made:
 * written in SQL, as the entities have columns those migrations do not (a subscription's chosen_at).
 */
async function oldKey(orm: Orm, accountId?: string): Promise<{ keyId: string; accountId: string }> {
  const em = orm.em.fork();
  const account = accountId ?? randomUUID();
  if (!accountId) await em.execute('insert into account (id, name) values (?, ?)', [account, 'account of an old schema']);
  const keyId = randomUUID();
  await em.execute(`insert into api_key (id, account_id, name, key_hash, display_prefix, environment, status) values (?, ?, 'test', ?, ?, 'live', 'active')`, [
    keyId,
    account,
    randomBytes(32).toString('hex'),
    `svc_${randomBytes(4).toString('hex')}`,
  ]);
  return { keyId, accountId: account };
}

// src/db/entities.ts and src/db/migrations/ must describe one schema: the ORM maps rows by the
// entities, while the database is made by the migrations alone.
describe('entities and migrations', () => {
  test('on a database made by the migrations, the schema generated from the entities changes nothing', async () => {
    const orm = await newDatabase('schema_check');
    // creates the empty database, then applies every migration
    await migrate(orm);
    expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  });
});

describe('migrations that carry data', () => {
  test('the request log of earlier months becomes the per-endpoint counters that GET /usage reads', async () => {
    const orm = await migratedTo('usage_backfill', 'Migration20261124100000_webhooks');
    const { keyId } = await oldKey(orm);
    const em = orm.em.fork();
    await em.execute(
      `insert into request_log (api_key_id, request_id, method, endpoint, status, tokens, cost_usd, created_at) values
        (?, 'a', 'POST', '/api/v1/dev/query', 200, 1200, 0.0018, '2026-06-30T23:59:59.999Z'),
        (?, 'b', 'POST', '/api/v1/dev/query', 200, 300, 0.0005, '2026-07-01T00:00:00.000Z'),
        (?, 'c', 'POST', '/api/v1/dev/query', null, 0, 0, '2026-07-20T10:00:00.000Z'),
        (?, 'd', 'GET', '/api/v1/dev/plans', 200, 0, 0, '2026-07-31T23:59:59.999Z')`,
      [keyId, keyId, keyId, keyId],
    );
    await orm.migrator.up();
    const rows = await em.execute(
      `select to_char(month, 'YYYY-MM-DD') as month, endpoint, requests, tokens::int as tokens, cost_usd::float8 as cost from endpoint_usage where api_key_id = ? order by month, endpoint`,
      [keyId],
    );
    expect(rows).toEqual([
      { month: '2026-06-01', endpoint: '/api/v1/dev/query', requests: 1, tokens: 1200, cost: 0.0018 },
      { month: '2026-07-01', endpoint: '/api/v1/dev/plans', requests: 1, tokens: 0, cost: 0 },
      { month: '2026-07-01', endpoint: '/api/v1/dev/query', requests: 2, tokens: 300, cost: 0.0005 },
    ]);
  });
});

describe('migrations that repair data', () => {
  test("the operator's documents get consistent timings; uploads over the API keep theirs", async () => {
    const orm = await migratedTo('document_timings', 'Migration20261126000000_usage_at_admission');
    const em = orm.em.fork();
    const columns = 'id, store_id, name, metadata, page_count, chunk_count, content_sha256, ingested_at, state, file_name, created_at, updated_at, processing_started_at, finished_at';
    await em.execute(
      `insert into document (${columns}) values
        ('doc_flush', 'default', 'flush.pdf', '{}', 1, 1, repeat('a', 64), '2026-11-25T10:00:00.100Z', 'ready', null, '2026-11-25T10:00:00.300Z', '2026-11-25T10:00:00.200Z', null, null),
        ('doc_older', 'default', 'older.pdf', '{}', 1, 1, repeat('b', 64), '2026-11-20T08:00:00Z', 'ready', null, '2026-11-24T00:00:00Z', '2026-11-24T00:00:00Z', null, null),
        ('doc_upload', 'default', 'upload.pdf', '{}', null, null, repeat('c', 64), null, 'processing', 'upload.pdf', '2026-11-25T11:00:00Z', '2026-11-25T11:00:00Z', null, null)`,
    );
    await orm.migrator.up();
    const rows = await em.execute<{ id: string; created_at: string; processing_started_at: string | null; finished_at: string | null; updated_at: string }[]>(
      `select id, created_at, processing_started_at, finished_at, updated_at from document where id in ('doc_flush', 'doc_older', 'doc_upload') order by id`,
    );
    const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());
    expect(rows.map((r) => [r.id, iso(r.created_at), iso(r.processing_started_at), iso(r.finished_at), iso(r.updated_at)])).toEqual([
      ['doc_flush', '2026-11-25T10:00:00.100Z', '2026-11-25T10:00:00.100Z', '2026-11-25T10:00:00.100Z', '2026-11-25T10:00:00.200Z'],
      ['doc_older', '2026-11-20T08:00:00.000Z', '2026-11-20T08:00:00.000Z', '2026-11-20T08:00:00.000Z', '2026-11-24T00:00:00.000Z'],
      ['doc_upload', '2026-11-25T11:00:00.000Z', null, null, '2026-11-25T11:00:00.000Z'],
    ]);
  });
});

describe('migrations that carry keys', () => {
  test("PayHere notices stored before their dedupe key named the order get their order in it, so PayHere's repeats of them are still repeats", async () => {
    const orm = await migratedTo('dedupe_by_order', 'Migration20261128100000_pending_deliveries_by_endpoint');
    const em = orm.em.fork();
    await em.execute(
      `insert into payment_notification (received_at, body, verified, dedupe_key, order_id) values
        (now(), 'a', true, 'payhere:320025071278:2:AUTHORIZATION_SUCCESS', 'ord_5f0c2a9e7b4d4c8e9a610d2e'),
        (now(), 'b', true, 'payhere:320025071279:-3:', null),
        (now(), 'c', false, null, 'ord_5f0c2a9e7b4d4c8e9a610d2e')`,
    );
    await orm.migrator.up();
    const rows = await em.execute<{ body: string; dedupe_key: string | null }[]>('select body, dedupe_key from payment_notification order by body');
    expect(rows).toEqual([
      { body: 'a', dedupe_key: 'payhere:ord_5f0c2a9e7b4d4c8e9a610d2e:320025071278:2:AUTHORIZATION_SUCCESS' },
      // a notice whose order id was not kept (not one of ours) keeps its key
      { body: 'b', dedupe_key: 'payhere:320025071279:-3:' },
      { body: 'c', dedupe_key: null },
    ]);
  });
});

describe('migrations that carry the audit log', () => {
  test('keys rolled before replaced_by existed get their first replacement from the key.rolled entries, within their own account', async () => {
    const orm = await migratedTo('replaced_from_audit', 'Migration20261129000000_replaced_keys');
    const first = await oldKey(orm);
    const { accountId } = first;
    const [second, third, fourth] = [await oldKey(orm, accountId), await oldKey(orm, accountId), await oldKey(orm, accountId)];
    const other = await oldKey(orm);
    const em = orm.em.fork();
    const prefixes = new Map(
      (await em.execute<{ id: string; display_prefix: string }[]>('select id, display_prefix from api_key where account_id in (?, ?)', [accountId, other.accountId])).map((r) => [r.id, r.display_prefix]),
    );
    const prefix = (id: string) => prefixes.get(id)!;
    const rolled = (account: string, from: string, to: string, at: string) => em.execute(
      `insert into audit_event (account_id, action, subject, detail, created_at) values (?, 'key.rolled', ?, ?::jsonb, ?)`,
      [account, from, JSON.stringify({ new_key: to, grace_minutes: 60 }), at],
    );
    // the first key rolled twice (the second roll made the third key), the fourth never
    await rolled(accountId, prefix(first.keyId), prefix(second.keyId), '2026-11-28T10:00:00Z');
    await rolled(accountId, prefix(first.keyId), prefix(third.keyId), '2026-11-28T11:00:00Z');
    // an entry of another account naming this account's keys changes nothing
    await rolled(other.accountId, prefix(fourth.keyId), prefix(third.keyId), '2026-11-28T12:00:00Z');
    // an entry whose new key is not found changes nothing
    await rolled(other.accountId, prefix(other.keyId), 'svc_nokey', '2026-11-28T13:00:00Z');
    await orm.migrator.up();
    const rows = await em.execute<{ id: string; replaced_by: string | null }[]>('select id, replaced_by from api_key where account_id in (?, ?)', [accountId, other.accountId]);
    expect(new Map(rows.map((r) => [r.id, r.replaced_by]))).toEqual(new Map([
      [first.keyId, second.keyId],
      [second.keyId, null],
      [third.keyId, null],
      [fourth.keyId, null],
      [other.keyId, null],
    ]));
  });

  test("a subscription's chosen_at is the later of its period's start and its last plan change not made by the payment gateway", async () => {
    const orm = await migratedTo('chosen_at', 'Migration20261129100000_replaced_keys_from_audit');
    const em = orm.em.fork();
    const [cancelled, untouched] = [await oldKey(orm), await oldKey(orm)];
    const [plan] = await em.execute<{ id: string }[]>("select id from plan where code = 'pro'");
    for (const { accountId } of [cancelled, untouched]) {
      await em.execute(`insert into subscription (id, account_id, plan_id, state, current_period_start) values (?, ?, ?, 'cancelled', '2026-11-01T10:00:00Z')`, [randomUUID(), accountId, plan!.id]);
    }
    const changed = (account: string, detail: object, at: string) =>
      em.execute(`insert into audit_event (account_id, action, subject, detail, created_at) values (?, 'subscription.changed', 'Pro', ?::jsonb, ?)`, [account, JSON.stringify(detail), at]);
    // the cancel (in the dashboard) left the period's start as it was; the gateway's later change is no choice
    await changed(cancelled.accountId, { state: 'cancelled' }, '2026-11-10T10:00:00Z');
    await changed(cancelled.accountId, { state: 'active', by: 'payment gateway' }, '2026-11-12T10:00:00Z');
    await changed(untouched.accountId, { state: 'active' }, '2026-10-01T10:00:00Z');
    await orm.migrator.up();
    const rows = await em.execute<{ account_id: string; chosen_at: Date }[]>('select account_id, chosen_at from subscription where account_id in (?, ?)', [cancelled.accountId, untouched.accountId]);
    expect(new Map(rows.map((r) => [r.account_id, new Date(r.chosen_at).toISOString()]))).toEqual(new Map([
      [cancelled.accountId, '2026-11-10T10:00:00.000Z'],
      [untouched.accountId, '2026-11-01T10:00:00.000Z'],
    ]));
  });
});
