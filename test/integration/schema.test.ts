import { describe, expect, test } from '@jest/globals';
import { migrate } from '../../src/db/migrate.js';
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
