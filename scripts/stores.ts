// Operator CLI for who may read each store.
//   npm run stores -- list                                every store: its owner or "shared", and its documents
//   npm run stores -- check                               ownerless stores nobody marked shared; exits 1 when there are any
//   npm run stores -- assign --store <id> --account <id>  give an ownerless store to an account
//   npm run stores -- share --store <id>                  mark an ownerless store as shared with every key, on purpose
import { configOrExit } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { ServiceError } from '../src/domain/errors.js';
import { assignStore, listStores, shareStore, undecidedStores, type StoreSummary } from '../src/domain/stores/stores.js';
import { commandLine, usageError } from './lib/command-line.js';

const USAGE = `usage: npm run stores -- <command>
  list                                 every store, its owner account or "shared", and its document count
  check                                list ownerless stores nobody marked shared (no key can read them); exit 1 if any
  assign --store <id> --account <id>   give an ownerless store to an account: only its keys (Enterprise) read it
  share --store <id>                   mark an ownerless store as shared: every key on every plan reads it`;

function usage(message: string): never {
  return usageError('stores', USAGE, message);
}

const { values, positionals } = commandLine('stores', USAGE, { allowPositionals: true, options: { store: { type: 'string' }, account: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const command = positionals.join(' ');
if (!['list', 'check', 'assign', 'share'].includes(command)) usage(command ? `unknown command '${command}'` : 'no command given');
function need(name: 'store' | 'account'): string {
  const value = values[name];
  if (!value) usage(`${command} needs --${name}`);
  return value;
}
const storeId = command === 'assign' || command === 'share' ? need('store') : '';
const accountId = command === 'assign' ? need('account') : '';

const describe = (s: StoreSummary) => `${s.id}  ${s.owner ? `owner ${s.owner}` : s.shared ? 'shared' : 'NO OWNER, NOT SHARED'}  ${s.documents} documents`;

const config = configOrExit();
const orm = await connect(config.DATABASE_URL);
const em = orm.em.fork();
try {
  switch (command) {
    case 'list':
      for (const store of await listStores(em)) console.log(describe(store));
      break;
    case 'check': {
      const undecided = await undecidedStores(em);
      if (undecided.length === 0) {
        console.log('stores: every store has an owner or is shared on purpose');
        break;
      }
      console.log(`stores: ${undecided.length} store(s) have no owner and are not marked shared, so no API key can read them:`);
      for (const store of undecided) console.log(`  ${describe(store)}`);
      console.log('decide for each: npm run stores -- assign --store <id> --account <account id>   or   npm run stores -- share --store <id>');
      process.exitCode = 1;
      break;
    }
    case 'assign': {
      const store = await assignStore(em, storeId, accountId);
      console.log(`store ${store.id} now belongs to account ${accountId}: only its keys, on a plan with custom knowledge bases, read it`);
      break;
    }
    case 'share': {
      const store = await shareStore(em, storeId);
      console.log(`store ${store.id} is shared: every API key on every plan reads it`);
      break;
    }
  }
} catch (error) {
  if (!(error instanceof ServiceError)) throw error;
  console.error(`stores: ${error.message}`);
  process.exitCode = 1;
} finally {
  await orm.close();
}
