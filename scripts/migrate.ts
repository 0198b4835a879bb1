// Applies pending database migrations (creating the database first when it does not exist).
import { connect } from '../src/db/orm.js';
import { migrate } from '../src/db/migrate.js';
import { undecidedStores } from '../src/domain/stores/stores.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set.');
  process.exit(1);
}
const orm = await connect(url);
try {
  const applied = await migrate(orm);
  console.error(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
  // stores made before owners were required are unreadable until someone decides; say so at every upgrade
  const undecided = await undecidedStores(orm.em.fork());
  if (undecided.length > 0) {
    console.error(`warning: no API key can read ${undecided.map((s) => `'${s.id}'`).join(', ')}: no owner and not marked shared; see npm run stores -- check`);
  }
} finally {
  await orm.close();
}
