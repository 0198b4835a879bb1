// First start only: creates a demo account on the Free plan and prints a demo key once.
import { configOrExit, keyHashSecret } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { Account } from '../src/db/entities.js';
import { createAccount, setSubscription } from '../src/domain/accounts/accounts.js';
import { createKey } from '../src/domain/keys/keys.js';

const DEMO_NAME = 'Demo account';
const config = configOrExit(keyHashSecret);
const orm = await connect(config.DATABASE_URL);
const em = orm.em.fork();
try {
  const existing = await em.findOne(Account, { name: DEMO_NAME });
  if (existing) {
    console.log(`Demo account ${existing.id} exists; its key was printed on first start. New key: npm run keys -- key create --account ${existing.id}`);
  } else {
    const now = new Date();
    const account = await createAccount(em, DEMO_NAME);
    await setSubscription(em, account.id, { planCode: 'free', state: 'active' }, now);
    const { key } = await createKey(em, keyHashSecret(config), { accountId: account.id, name: 'demo', environment: config.API_ENVIRONMENT }, now);
    console.log(`Demo account ${account.id} on the Free plan. Demo API key (shown once, store it now):\n\n  ${key}\n`);
  }
} finally {
  await orm.close();
}
