import { beforeAll, describe, expect, test } from '@jest/globals';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onCleanup, temporaryDirectory } from './support/cleanup.js';
import { runProcess } from './support/processes.js';
import { HASH_SECRET, connectDatabase, databaseUrl, startServer, testServices, type TestServer } from './support/server.js';
import { newKey } from './support/accounts.js';
import { apiClient } from './support/contract.js';
import { Document, Store } from '../../src/db/entities.js';

// The operator CLIs as an operator runs them: compiled, as child processes, on the test database.
type Script = 'keys' | 'ingest' | 'stores' | 'migrate' | 'reindex';
function runWith(env: NodeJS.ProcessEnv, script: Script, ...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  return runProcess(process.execPath, [`dist/scripts/${script}.js`, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl(), KEY_HASH_SECRET: HASH_SECRET, OPENAI_API_KEY: '', ...env },
  });
}
const run = (script: Script, ...args: string[]) => runWith({}, script, ...args);

describe('npm run keys', () => {
  test('account, subscription and key lifecycle; a key is shown once and listed by prefix only', async () => {
    const created = await run('keys', 'account', 'create', '--name', 'CLI school', '--email', 'it@school.example');
    expect(created.status).toBe(0);
    const account = /account ([0-9a-f-]{36}) created/.exec(created.stdout)?.[1];
    expect(account).toBeDefined();

    const refused = await run('keys', 'key', 'create', '--account', account!);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('402 Payment Required: No active plan found. Subscribe to the Free plan or a paid plan before creating API keys.');

    expect((await run('keys', 'subscription', 'set', '--account', account!, '--plan', 'pro')).stdout).toContain('plan Pro, state active');
    const made = await run('keys', 'key', 'create', '--account', account!, '--name', 'backend', '--read-only', '--allow-ip', '203.0.113.0/24');
    expect(made.status).toBe(0);
    const key = /^(svc_[A-Za-z0-9]{40})$/m.exec(made.stdout)?.[1];
    const keyId = /key ([0-9a-f-]{36}) created/.exec(made.stdout)?.[1];
    expect(key).toBeDefined();

    const listed = await run('keys', 'key', 'list', '--account', account!);
    expect(listed.stdout).toContain(`${keyId}  ${key!.slice(0, 10)}…  live  active  backend  (read-only, ips 203.0.113.0/24)`);
    expect(listed.stdout).not.toContain(key!);

    expect((await run('keys', 'key', 'revoke', '--key', keyId!)).stdout).toContain('is revoked');
    expect((await run('keys', 'key', 'list', '--account', account!)).stdout).toContain('revoked');
  });

  test('an expired subscription or an ended trial cannot create keys', async () => {
    const account = /account ([0-9a-f-]{36})/.exec((await run('keys', 'account', 'create', '--name', 'Trial school')).stdout)![1]!;
    await run('keys', 'subscription', 'set', '--account', account, '--plan', 'starter', '--state', 'trialing', '--trial-ends', '2020-01-01');
    expect((await run('keys', 'key', 'create', '--account', account)).stderr).toContain('402 Payment Required');
    await run('keys', 'subscription', 'set', '--account', account, '--plan', 'starter', '--state', 'expired');
    expect((await run('keys', 'key', 'create', '--account', account)).stderr).toContain('402 Payment Required');
  });

  test('mistakes get usage help and a non-zero exit', async () => {
    const bad = await run('keys', 'subscription', 'set', '--account', '00000000-0000-4000-8000-000000000000', '--plan', 'gold');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("Unknown plan 'gold'");
    const unknown = await run('keys', 'key', 'rotate');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("unknown command 'key rotate'");
    const option = await run('keys', 'key', 'list', '--colour', 'red');
    expect(option.status).toBe(2);
    expect(option.stderr).toMatch(/^keys: Unknown option '--colour'/);
    expect(option.stderr).toContain('usage: npm run keys');
    expect(option.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('npm run keys -- plan create', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  const code = () => `cli-${Math.random().toString(36).slice(2, 10)}`;

  test("a plan made for one customer has its own limits and the copied plan's features, and is listed nowhere", async () => {
    const custom = code();
    const made = await run('keys', 'plan', 'create', '--code', custom, '--like', 'enterprise', '--per-minute', '600', '--per-day', '70000');
    expect(made.status).toBe(0);
    expect(made.stdout).toContain(`plan ${custom} created (Enterprise (custom): 600 a minute, 70000 a day, 50000 a month; unlisted)`);
    const account = /account ([0-9a-f-]{36})/.exec((await run('keys', 'account', 'create', '--name', 'Negotiated school')).stdout)![1]!;
    expect((await run('keys', 'subscription', 'set', '--account', account, '--plan', 'pro')).status).toBe(0);
    expect((await run('keys', 'subscription', 'set', '--account', account, '--plan', custom)).stdout).toContain('plan Enterprise (custom), state active');
    // each change is in the account's audit log, by the operator, and sent as its subscription event
    const em = server.orm.em.fork();
    const audit = await em.execute("select subject, detail->>'by' as by from audit_event where account_id = ? and action = 'subscription.changed' order by created_at", [account]);
    expect(audit).toEqual([{ subject: 'Pro', by: 'operator' }, { subject: 'Enterprise (custom)', by: 'operator' }]);
    const events = await em.execute("select type, data->>'plan' as plan from webhook_event where account_id = ? order by created_at", [account]);
    expect(events).toEqual([{ type: 'subscription.activated', plan: 'pro' }, { type: 'subscription.updated', plan: custom }]);
    const { key } = await newKey(server.orm, { plan: custom, accountId: account });
    const client = apiClient(server.url, key);

    const usage = await client.GET('/api/v1/dev/usage');
    expect(usage.response.headers.get('X-RateLimit-Limit')).toBe('600');
    expect(usage.data!.plan).toEqual({ name: 'Enterprise (custom)', rate_limit_per_minute: 600, rate_limit_per_day: 70000, monthly_quota: 50000 });
    // Enterprise's features: custom knowledge bases (with Enterprise's storage) and the thinking model
    const kb = await client.POST('/api/v1/dev/knowledge-bases', { body: { name: 'negotiated' } });
    expect(kb.response.status).toBe(201);
    const thinking = await client.POST('/api/v1/dev/query', { body: { query: 'What is photosynthesis?', model: 'svcai-thinking' } });
    expect(thinking.response.status).toBe(200);
    // the account's own plan is shown to it; the plans on offer are the four
    const plans = await client.GET('/api/v1/dev/plans');
    expect(plans.data!.current_plan).toMatchObject({ name: 'Enterprise (custom)', rate_limit_per_minute: 600, allowed_models: ['svcai-fast', 'svcai-thinking'] });
    expect(plans.data!.available_plans.map((p) => [p.name, p.rate_limit_per_minute])).toEqual([['Free', 10], ['Starter', 20], ['Pro', 60], ['Enterprise', 200]]);
  });

  test('mistakes are refused with what to change, and make no plan', async () => {
    const taken = code();
    expect((await run('keys', 'plan', 'create', '--code', taken, '--like', 'pro')).status).toBe(0);
    const refused = [code(), code(), code(), code()];
    for (const [args, message] of [
      [['--code', taken, '--like', 'enterprise'], `A plan with the code '${taken}' exists already.`],
      [['--code', 'Royal College', '--like', 'pro'], "The plan code 'Royal College' is not usable: use 1 to 50 lower case letters, digits and hyphens"],
      [['--code', refused[0]!, '--like', 'gold'], "Unknown plan 'gold' to copy."],
      [['--code', refused[1]!, '--like', 'pro', '--per-minute', '0'], '--per-minute must be a whole number from 1 to 2147483647.'],
      [['--code', refused[2]!, '--like', 'pro', '--per-day', 'lots'], '--per-day must be a whole number such as 1000'],
      [['--code', refused[3]!, '--like', 'pro', '--per-month', '3000000000'], '--per-month must be a whole number from 1 to 2147483647.'],
      [['--like', 'pro'], '--code is required'],
    ] as const) {
      const result = await run('keys', 'plan', 'create', ...args);
      expect({ args, status: result.status, stderr: result.stderr }).toEqual({ args, status: 1, stderr: expect.stringContaining(message) });
    }
    const plans = await server.orm.em.fork().execute<{ code: string; name: string }[]>('select code, name from plan where code in (?)', [[taken, 'royal college', ...refused]]);
    // the first one stays a copy of Pro
    expect(plans).toEqual([{ code: taken, name: 'Pro (custom)' }]);
  });
});

describe('npm run ingest', () => {
  test('indexes good files, reports unreadable ones by name, and exits 1', async () => {
    const dir = temporaryDirectory('ingest-cli-');
    writeFileSync(join(dir, 'tides.md'), '--- PAGE 1 ---\nTides are caused by the Moon.\n--- PAGE 2 ---\nSpring tides are the highest.');
    writeFileSync(join(dir, 'empty.md'), '   \n');
    writeFileSync(join(dir, 'fake.pdf'), 'not a pdf at all');
    const store = `cli-${Math.random().toString(36).slice(2, 8)}`;
    const result = await run('ingest', '--store', store, '--shared', '--subject', 'Geography', '--grade', '9', '--category', 'short-notes', '--language', 'english',
      join(dir, 'tides.md'), join(dir, 'empty.md'), join(dir, 'fake.pdf'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('tides.md: 2 pages, 1 chunks');
    expect(result.stderr).toContain(`store '${store}': 1 documents (0 replaced), 2 pages, 1 chunks; 2 failed`);
    expect(result.stderr).toContain('failed: empty.md: empty.md is empty: it has no text to read');
    expect(result.stderr).toContain('failed: fake.pdf: fake.pdf is not a readable PDF');

    const again = await run('ingest', '--store', store, '--shared', '--subject', 'Geography', '--grade', '9', '--category', 'short-notes', '--language', 'english', join(dir, 'tides.md'));
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('1 documents (1 replaced)');
  });

  test('a name that cannot be stored indexes nothing; a row that cannot be written leaves the previous version', async () => {
    const dir = temporaryDirectory('ingest-cli-');
    const file = join(dir, 'tides.md');
    const store = `cli-${Math.random().toString(36).slice(2, 8)}`;
    const ingest = (...args: string[]) =>
      runWith({ EMBEDDINGS_BASE_URL: '' }, 'ingest', '--store', store, '--shared', '--subject', 'Geography', '--grade', '9', '--category', 'short-notes', '--language', 'english', ...args, file);
    const { index } = testServices();
    const indexed = async () => {
      const texts: string[] = [];
      for await (const chunk of index.unembeddedChunks(store)) texts.push(chunk.chunkText);
      return texts;
    };
    writeFileSync(file, '--- PAGE 1 ---\nTides are caused by the Moon.');
    expect((await ingest()).status).toBe(0);
    const first = [expect.stringContaining('Tides are caused by the Moon.')];
    expect(await indexed()).toEqual(first);

    const long = await ingest('--name', `${'n'.repeat(297)}.md`);
    expect(long.status).toBe(1);
    expect(long.stderr).toContain(`: the document's name has 300 characters, more than the 200 allowed: give it another (--name, or "name" in the manifest)`);
    expect(await indexed()).toEqual(first);

    // the database refuses the store's rows from now on (an outage or a constraint alike)
    const orm = await connectDatabase();
    const constraint = `refuse_${store.replace('-', '_')}`;
    await orm.em.fork().execute(`alter table document add constraint ${constraint} check (store_id <> '${store}') not valid`);
    onCleanup(async () => {
      await orm.em.fork().execute(`alter table document drop constraint if exists ${constraint}`);
    });
    writeFileSync(file, '--- PAGE 1 ---\nTides rise twice a day.');
    const refused = await ingest();
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('failed: tides.md: ');
    expect(await indexed()).toEqual(first);
    await orm.em.fork().execute(`alter table document drop constraint ${constraint}`);
    expect((await ingest()).status).toBe(0);
    expect(await indexed()).toEqual([expect.stringContaining('Tides rise twice a day.')]);
  });

  test('invalid metadata is refused before anything is read', async () => {
    const result = await run('ingest', '--subject', 'Science', '--grade', '9', '--category', 'notes', '--language', 'english', 'whatever.md');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('category must be one of past-paper, model-paper, textbook');
  });
});

describe('npm run ingest: help and malformed manifests', () => {
  test('--help prints the usage on stdout and exits 0', async () => {
    const result = await run('ingest', '--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('usage: npm run ingest -- --manifest <file.json>');
    expect(result.stderr).toBe('');
  });

  test.each([
    [{ name: 'waves.md', metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' } }, `manifest entry 2 of 2 ('waves.md') has no "file"`],
    [{ file: 'waves.md', name: 'waves.md', metadata: { subject: 'Geography', grade: 9, category: 'short-notes', language: 'english' } }, `manifest entry 2 of 2 ('waves.md'): metadata "grade" must be a string`],
    ['waves.md', 'manifest entry 2 of 2 must be an object'],
  ])('a malformed manifest entry is named and refused before anything is indexed (%j)', async (entry, message) => {
    const dir = temporaryDirectory('ingest-manifest-');
    writeFileSync(join(dir, 'tides.md'), '--- PAGE 1 ---\nTides are caused by the Moon.');
    writeFileSync(join(dir, 'waves.md'), '--- PAGE 1 ---\nWaves are made by the wind.');
    const good = { file: 'tides.md', name: 'tides.md', metadata: { subject: 'Geography', grade: '9', category: 'short-notes', language: 'english' } };
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify([good, entry]));
    const result = await run('ingest', '--manifest', join(dir, 'manifest.json'), '--store', `cli-${Math.random().toString(36).slice(2, 8)}`, '--shared');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`ingest: ${message}`);
    expect(result.stderr).not.toContain('TypeError');
    expect(result.stderr).not.toContain('tides.md: 1 pages');
  });
});

// stores made by this run (a rerun against the same database must not meet them)
const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

describe('who may read a store made by npm run ingest', () => {
  let server: TestServer;
  let dir: string;
  const metadata = ['--subject', 'Geography', '--grade', '9', '--category', 'short-notes', '--language', 'english'];
  const ask = (key: string, store: string) =>
    apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query: 'Which glaciers carved the fjords?', store_id: store } });
  const storeRow = (id: string) => server.orm.em.fork().findOne(Store, { id });

  beforeAll(async () => {
    server = await startServer();
    dir = temporaryDirectory('ingest-owner-');
    writeFileSync(join(dir, 'fjords.md'), '--- PAGE 1 ---\nGlaciers carved the fjords of Norway during the ice ages.');
  });

  test('an unknown option is named, with the usage, exit 2 and no stack trace', async () => {
    const result = await run('ingest', '--colour', 'blue', join(dir, 'fjords.md'));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("ingest: Unknown option '--colour'");
    expect(result.stderr).toContain('usage: npm run ingest -- --manifest <file.json>');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  test.each([
    [['--store', 'STORE'], "store 'STORE' is not 'default': give --account <uuid> for a custom store only that account's keys read, or --shared to publish it to every API key on every plan"],
    [['--store', 'STORE', '--shared', '--account', '00000000-0000-4000-8000-000000000000'], 'give either --account (a store owned by that account) or --shared (a store every key reads), not both'],
    [['--account', '00000000-0000-4000-8000-000000000000'], "the 'default' store is shared with every key; --account is for a custom store, named with --store"],
  ])('a store without a stated reader is refused before anything is read (%j)', async (flags, message) => {
    const store = unique('unstated');
    const result = await run('ingest', ...flags.map((f) => f.replace('STORE', store)), ...metadata, join(dir, 'fjords.md'));
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`ingest: ${message.replace('STORE', store)}`);
    expect(result.stderr).toContain('usage: npm run ingest');
    expect(await storeRow(store)).toBeNull();
  });

  test("a store made with --account is read by that account's Enterprise keys only: 404 for every other key", async () => {
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const store = unique('owned');
    const made = await run('ingest', '--store', store, '--account', owner.accountId, ...metadata, join(dir, 'fjords.md'));
    expect(made.status).toBe(0);
    expect(made.stderr).toContain(`store '${store}': 1 documents`);
    expect((await storeRow(store))?.account?.id).toBe(owner.accountId);

    const mine = await ask(owner.key, store);
    expect(mine.response.status).toBe(200);
    expect(mine.data?.citations[0]?.document_name).toBe('fjords.md');
    for (const plan of ['enterprise', 'free'] as const) {
      const other = await ask((await newKey(server.orm, { plan })).key, store);
      expect(other.response.status).toBe(404);
      expect(other.error).toEqual({ detail: `Store '${store}' was not found.` });
    }
  });

  test("ingesting into another account's store, or into an owned store as shared, is refused and indexes nothing", async () => {
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const intruder = await newKey(server.orm, { plan: 'enterprise' });
    const store = unique('taken');
    expect((await run('ingest', '--store', store, '--account', owner.accountId, ...metadata, join(dir, 'fjords.md'))).status).toBe(0);
    writeFileSync(join(dir, 'planted.md'), '--- PAGE 1 ---\nPlanted text.');

    const foreign = await run('ingest', '--store', store, '--account', intruder.accountId, ...metadata, join(dir, 'planted.md'));
    expect(foreign.status).toBe(1);
    expect(foreign.stderr).toContain(`ingest: refused: Store '${store}' belongs to account ${owner.accountId}; it cannot take documents for account ${intruder.accountId}.`);
    const shared = await run('ingest', '--store', store, '--shared', ...metadata, join(dir, 'planted.md'));
    expect(shared.status).toBe(1);
    expect(shared.stderr).toContain(`ingest: refused: Store '${store}' belongs to account ${owner.accountId}; it cannot take documents as a shared store.`);
    expect((await server.orm.em.fork().find(Document, { store })).map((d) => d.name)).toEqual(['fjords.md']);
  });

  test('an unknown account is refused by name and no store is made', async () => {
    const store = unique('nobody');
    const result = await run('ingest', '--store', store, '--account', '00000000-0000-4000-8000-000000000000', ...metadata, join(dir, 'fjords.md'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("ingest: refused: Account '00000000-0000-4000-8000-000000000000' was not found.");
    expect(await storeRow(store)).toBeNull();
  });

  test('a store published with --shared is read by every key, Free included', async () => {
    const store = unique('shared');
    expect((await run('ingest', '--store', store, '--shared', ...metadata, join(dir, 'fjords.md'))).status).toBe(0);
    const res = await ask((await newKey(server.orm, { plan: 'free' })).key, store);
    expect(res.response.status).toBe(200);
    expect(res.data?.citations[0]?.document_name).toBe('fjords.md');
  });
});

describe('npm run stores: ownerless stores are reported until an operator decides', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  /** A store as the ingest command made them before it asked who may read them. */
  const legacyStore = async (id: string) => {
    const em = server.orm.em.fork();
    em.create(Store, { id, account: null, shared: false, createdAt: new Date() });
    await em.flush();
  };
  const ask = async (key: string, store: string) =>
    (await apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query: 'fjords', store_id: store } })).response;

  test('check lists them and exits 1; no key reads them; assign and share decide, and check stops listing them', async () => {
    const [toAssign, toShare] = [unique('legacy-a'), unique('legacy-s')];
    await legacyStore(toAssign);
    await legacyStore(toShare);
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const free = await newKey(server.orm, { plan: 'free' });

    const check = await run('stores', 'check');
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(`  ${toAssign}  NO OWNER, NOT SHARED  0 documents`);
    expect(check.stdout).toContain(`  ${toShare}  NO OWNER, NOT SHARED  0 documents`);
    expect(check.stdout).not.toMatch(/^ {2}default /m);
    for (const key of [owner.key, free.key]) expect((await ask(key, toAssign)).status).toBe(404);

    expect((await run('stores', 'assign', '--store', toAssign, '--account', owner.accountId)).status).toBe(0);
    expect((await run('stores', 'share', '--store', toShare)).status).toBe(0);
    const after = await run('stores', 'check');
    expect(after.stdout).not.toContain(toAssign);
    expect(after.stdout).not.toContain(toShare);
    const list = (await run('stores', 'list')).stdout;
    expect(list).toContain(`${toAssign}  owner ${owner.accountId}  0 documents`);
    expect(list).toContain(`${toShare}  shared  0 documents`);
    expect(list).toMatch(/^default {2}shared {2}\d+ documents$/m);

    expect((await ask(owner.key, toAssign)).status).toBe(200);
    expect((await ask(free.key, toAssign)).status).toBe(404);
    expect((await ask(free.key, toShare)).status).toBe(200);
  });

  test('the default store cannot be given away; an owned store cannot be shared or reassigned', async () => {
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const giveDefault = await run('stores', 'assign', '--store', 'default', '--account', owner.accountId);
    expect(giveDefault.status).toBe(1);
    expect(giveDefault.stderr).toContain("stores: Store 'default' is the general curriculum, shared with every key; it cannot be given to an account.");

    const store = unique('decided');
    await legacyStore(store);
    await run('stores', 'assign', '--store', store, '--account', owner.accountId);
    const share = await run('stores', 'share', '--store', store);
    expect(share.status).toBe(1);
    expect(share.stderr).toContain(`stores: Store '${store}' belongs to account ${owner.accountId}; an account's store is not shared.`);
    const other = await newKey(server.orm, { plan: 'enterprise' });
    const reassign = await run('stores', 'assign', '--store', store, '--account', other.accountId);
    expect(reassign.status).toBe(1);
    expect(reassign.stderr).toContain(`stores: Store '${store}' belongs to account ${owner.accountId}.`);
  });

  test('mistakes get the usage and exit 2', async () => {
    const unknown = await run('stores', 'check', '--verbose');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("stores: Unknown option '--verbose'");
    expect(unknown.stderr).toContain('usage: npm run stores -- <command>');
    expect((await run('stores', 'share')).stderr).toContain('stores: share needs --store');
    expect((await run('stores', 'delete')).stderr).toContain("stores: unknown command 'delete'");
    expect((await run('stores', '--help')).status).toBe(0);
  });

  test('upgrading: the migration marks default shared, leaves other ownerless stores undecided and migrate warns; a clean database checks clean', async () => {
    // a database of its own, taken through the migrations as an older installation was
    const url = new URL(databaseUrl());
    url.pathname = `/upgrade_${Math.random().toString(36).slice(2, 10)}`;
    const orm = await connectDatabase(url.toString());
    await orm.schema.ensureDatabase();
    await orm.migrator.up({ to: 'Migration20261121010000_stores' });
    await orm.em.getConnection().execute(`insert into "store" ("id", "account_id") values ('old-notes', null)`);
    await orm.close();

    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = url.toString();
    try {
      const migrated = await run('migrate');
      expect(migrated.status).toBe(0);
      expect(migrated.stderr).toContain('applied migrations: Migration20261123000000_shared_stores');
      expect(migrated.stderr).toContain("warning: no API key can read 'old-notes': no owner and not marked shared; see npm run stores -- check");
      const check = await run('stores', 'check');
      expect(check.status).toBe(1);
      expect(check.stdout).toContain('stores: 1 store(s) have no owner and are not marked shared');
      expect(check.stdout).toContain('  old-notes  NO OWNER, NOT SHARED  0 documents');
      expect((await run('stores', 'list')).stdout).toContain('default  shared  0 documents');

      expect((await run('stores', 'share', '--store', 'old-notes')).stdout).toContain('store old-notes is shared');
      const clean = await run('stores', 'check');
      expect(clean.status).toBe(0);
      expect(clean.stdout).toContain('stores: every store has an owner or is shared on purpose');
      expect((await run('migrate')).stderr).not.toContain('warning');
    } finally {
      process.env.DATABASE_URL = saved;
    }
  });
});

describe('npm run reindex', () => {
  test('gives the chunks of a store indexed without embeddings their vectors, once', async () => {
    const dir = temporaryDirectory('reindex-cli-');
    writeFileSync(join(dir, 'tides.md'), '--- PAGE 1 ---\nTides are caused by the Moon.');
    const store = `cli-${Math.random().toString(36).slice(2, 8)}`;
    const metadata = ['--subject', 'Geography', '--grade', '9', '--category', 'short-notes', '--language', 'english'];
    // indexed as before hybrid retrieval: no embeddings endpoint
    expect((await runWith({ EMBEDDINGS_BASE_URL: '' }, 'ingest', '--store', store, '--shared', ...metadata, join(dir, 'tides.md'))).status).toBe(0);
    const { index } = testServices();
    const unembedded = async () => {
      const texts: string[] = [];
      for await (const chunk of index.unembeddedChunks(store)) texts.push(chunk.chunkText);
      return texts;
    };
    expect(await unembedded()).toEqual(['--- PAGE 1 ---\nTides are caused by the Moon.']);

    const result = await run('reindex', '--store', store);
    expect(result).toMatchObject({ status: 0, stdout: '' });
    expect(result.stderr).toContain(`reindex: ${store}: 0/1 chunks embedded`);
    expect(result.stderr).toContain(`reindex: ${store}: 1 chunks embedded`);
    expect(await unembedded()).toEqual([]);
    const again = await run('reindex', '--store', store);
    expect(again.status).toBe(0);
    expect(again.stderr).toContain(`reindex: ${store}: every chunk already has its vector`);
  });

  test('mistakes: usage and exit 2; an unknown store or no embeddings endpoint: exit 1', async () => {
    const none = await run('reindex');
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('reindex: give --store (one or more) or --all');
    expect(none.stderr).toContain('usage: npm run reindex -- --store <store id>');
    const unknown = await run('reindex', '--store', 'no-such-store-here');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("reindex: no store 'no-such-store-here'");
    const offline = await runWith({ EMBEDDINGS_BASE_URL: '' }, 'reindex', '--all');
    expect(offline.status).toBe(1);
    expect(offline.stderr).toContain('reindex: EMBEDDINGS_BASE_URL is not set');
  });
});
