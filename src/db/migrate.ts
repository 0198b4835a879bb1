import type { Orm } from './orm.js';

/** Creates the database when it does not exist yet, then applies pending migrations. */
export async function migrate(orm: Orm): Promise<string[]> {
  await orm.schema.ensureDatabase();
  const applied = await orm.migrator.up();
  return applied.map((m) => m.name);
}
