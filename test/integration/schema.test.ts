import { describe, expect, test } from '@jest/globals';
import { migrate } from '../../src/db/migrate.js';
import { newKey } from './support/accounts.js';
import { onCleanup } from './support/cleanup.js';
import { connectDatabase, databaseUrl } from './support/server.js';

// src/db/entities.ts and src/db/migrations/ must describe one schema: the ORM maps rows by the
// entities, while the database is made by the migrations alone.
describe('entities and migrations', () => {
  test('on a database made by the migrations, the schema generated from the entities changes nothing', async () => {
    const url = new URL(databaseUrl());
    url.pathname = `/schema_check_${Math.random().toString(36).slice(2, 10)}`;
    const orm = await connectDatabase(url.toString());
    onCleanup(() => orm.schema.dropDatabase());
    // creates the empty database, then applies every migration
    await migrate(orm);
    expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  });
});

describe('migrations that carry data', () => {
  test('the request log of earlier months becomes the per-endpoint counters that GET /usage reads', async () => {
    const url = new URL(databaseUrl());
    url.pathname = `/usage_backfill_${Math.random().toString(36).slice(2, 10)}`;
    const orm = await connectDatabase(url.toString());
    onCleanup(() => orm.schema.dropDatabase());
    await orm.schema.ensureDatabase();
    await orm.migrator.up({ to: 'Migration20261124100000_webhooks' });
    const { keyId } = await newKey(orm, { plan: 'starter' });
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
