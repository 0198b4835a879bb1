import { MikroORM, PostgreSqlDriver, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';

export type Orm = MikroORM;

export function ormOptions(databaseUrl: string, poolMax = 20): Options {
  return {
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: migrations, transactional: true, allOrNothing: true, snapshot: false },
    // database functions and triggers (authenticate_and_admit, the plan catalogue's version) are
    // written by the migrations alone, not mirrored in entities
    schemaGenerator: { ignoreRoutines: true, ignoreTriggers: true },
    pool: { max: poolMax },
    // entities are plain definitions; no reflection or file discovery at run time
    discovery: { warnWhenNoEntities: true },
    debug: false,
  };
}

export async function connect(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax));
}
