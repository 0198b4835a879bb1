// Applies pending database migrations (creating the database first when it does not exist).
import { connect } from '../src/db/orm.js';
import { migrate } from '../src/db/migrate.js';

const url = process.env.DATABASE_URL;
if (!url) {
  console.error('DATABASE_URL is not set.');
  process.exit(1);
}
const orm = await connect(url);
try {
  const applied = await migrate(orm);
  console.error(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
} finally {
  await orm.close();
}
