// Indexes documents into a store.
//   npm run ingest -- --manifest samples/curriculum/manifest.json [--if-empty]            (into `default`)
//   npm run ingest -- --store S --account <uuid> --manifest m.json                        (S owned by that account)
//   npm run ingest -- --store S --shared --manifest m.json                                (S shared with every key)
//   npm run ingest -- --subject Science --grade 10 --category textbook --language english [--year 2022]
//                     [--name "shown name.pdf"] [--store S --account <uuid> | --store S --shared] <file>...
// A manifest is a JSON array of {"file": path relative to the manifest, "name": shown name,
// "metadata": {subject, grade, category, language, year?}}. Re-ingesting a document (same store
// and name) replaces its chunks. A store other than `default` must say who may read it: an
// owner account, or --shared on purpose, so that no store becomes readable by every key by accident.
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { configOrExit } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { Document } from '../src/db/entities.js';
import { ServiceError } from '../src/domain/errors.js';
import { checkMetadata, EmbeddingFailedError, ingestDocument, type MetadataInput } from '../src/domain/ingestion/ingest.js';
import { DEFAULT_STORE, ensureStore } from '../src/domain/stores/stores.js';
import { createServices } from '../src/services.js';
import { callerPath, commandLine, usageError } from './lib/command-line.js';

interface Item {
  file: string;
  name: string;
  metadata: MetadataInput;
}

const USAGE = `usage: npm run ingest -- --manifest <file.json> [--if-empty] [--store S (--account <uuid> | --shared)]
       npm run ingest -- --subject S --grade G --category C --language L [--year Y] [--name N]
                         [--store S (--account <uuid> | --shared)] <file>...
  --store S         the store to write into (default: default, the general curriculum every key reads)
  --account <uuid>  the account that owns store S: only its keys, on a plan with custom knowledge bases, read it
  --shared          publish store S to every API key on every plan (needed for any store but default without --account)
  --if-empty        do nothing when the store already has documents`;

function fail(message: string): never {
  return usageError('ingest', USAGE, message);
}

const { values, positionals } = commandLine('ingest', USAGE, {
  allowPositionals: true,
  options: {
    manifest: { type: 'string' },
    store: { type: 'string', default: DEFAULT_STORE },
    account: { type: 'string' },
    shared: { type: 'boolean', default: false },
    'if-empty': { type: 'boolean', default: false },
    name: { type: 'string' },
    subject: { type: 'string' },
    grade: { type: 'string' },
    category: { type: 'string' },
    language: { type: 'string' },
    year: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

/** An error's message, with its cause's (the search index's own words) for the operator. */
function reason(error: unknown): string {
  const { message, cause } = error as Error;
  return cause instanceof Error ? `${message} (${cause.message})` : message;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A manifest entry as the rest of the script needs it, or a message naming the entry and what it lacks. */
function manifestItem(entry: unknown, position: number, count: number, dir: string): Item {
  const where = `manifest entry ${position} of ${count}${isObject(entry) && typeof entry.name === 'string' ? ` ('${entry.name}')` : ''}`;
  if (!isObject(entry)) fail(`${where} must be an object {"file", "name", "metadata"}`);
  const { file, name, metadata } = entry;
  if (typeof file !== 'string' || !file) fail(`${where} has no "file" (the document's path, relative to the manifest)`);
  if (typeof name !== 'string' || !name) fail(`${where} has no "name" (the document's name shown in citations)`);
  if (!isObject(metadata)) fail(`${where} has no "metadata" object {subject, grade, category, language, year?}`);
  const wrong = Object.entries(metadata).find(([, value]) => typeof value !== 'string');
  if (wrong) fail(`${where}: metadata "${wrong[0]}" must be a string, e.g. "10"`);
  return { file: resolve(dir, file), name, metadata };
}

async function items(): Promise<Item[]> {
  if (values.manifest) {
    const path = callerPath('ingest', values.manifest);
    let list: unknown;
    try {
      list = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      fail(`cannot read the manifest ${path}: ${(error as Error).message}`);
    }
    if (!Array.isArray(list)) fail('the manifest must be a JSON array');
    return list.map((entry, i) => manifestItem(entry, i + 1, list.length, dirname(path)));
  }
  if (positionals.length === 0) fail('no files given');
  if (values.name && positionals.length > 1) fail('--name applies to a single file');
  const metadata = { subject: values.subject, grade: values.grade, category: values.category, language: values.language, year: values.year };
  return positionals.map((file) => ({ file: callerPath('ingest', file), name: values.name ?? basename(file), metadata }));
}

/** Who may read the store, from --account / --shared: refused unless stated for any store but `default`. */
function access(): { owner?: string; shared?: boolean } {
  const { store, account, shared } = values;
  if (account !== undefined && shared) fail('give either --account (a store owned by that account) or --shared (a store every key reads), not both');
  if (store === DEFAULT_STORE) {
    if (account !== undefined) fail(`the '${DEFAULT_STORE}' store is shared with every key; --account is for a custom store, named with --store`);
    return {};
  }
  if (account !== undefined) return { owner: account };
  if (!shared) {
    fail(`store '${store}' is not '${DEFAULT_STORE}': give --account <uuid> for a custom store only that account's keys read, or --shared to publish it to every API key on every plan`);
  }
  return { shared: true };
}

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const storeAccess = access();
const list = await items();
for (const item of list) {
  try {
    checkMetadata(item.metadata);
  } catch (error) {
    fail(`${item.name}: ${(error as Error).message}`);
  }
}

const config = configOrExit();
const services = createServices(config);
const orm = await connect(config.DATABASE_URL);
const store = values.store;
const summary = { documents: 0, pages: 0, chunks: 0, replaced: 0, failed: [] as string[] };
let refused = false;
try {
  // once, before any file is read: a store this run may not write into refuses the whole run
  await ensureStore(orm.em.fork(), store, storeAccess);
  if (values['if-empty'] && (await orm.em.fork().count(Document, { store })) > 0) {
    console.error(`ingest: store '${store}' already has documents; nothing to do`);
  } else {
    const bar = process.stderr.isTTY ? new cliProgress.SingleBar({ format: 'ingesting [{bar}] {value}/{total} {name}', stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
    bar?.start(list.length, 0, { name: '' });
    for (const item of list) {
      bar?.update({ name: item.name });
      try {
        const bytes = new Uint8Array(await readFile(item.file));
        const result = await ingestDocument(orm.em.fork(), services.index, services.embedder, {
          store,
          name: item.name,
          bytes,
          metadata: item.metadata,
          ...storeAccess,
          work: services.work,
        });
        summary.documents++;
        summary.pages += result.pages;
        summary.chunks += result.chunks;
        if (result.replaced) summary.replaced++;
        if (!bar) console.error(`ingest: ${item.name}: ${result.pages} pages, ${result.chunks} chunks${result.replaced ? ' (replaced)' : ''}`);
      } catch (error) {
        summary.failed.push(`${item.name}: ${reason(error)}`);
        // the endpoint was waited for already: the next documents would wait as long in vain
        if (error instanceof EmbeddingFailedError) {
          summary.failed.push(...list.slice(list.indexOf(item) + 1).map((rest) => `${rest.name}: not attempted, the embeddings endpoint is down`));
          break;
        }
      }
      bar?.increment();
    }
    bar?.stop();
    console.error(
      `ingest: store '${store}': ${summary.documents} documents (${summary.replaced} replaced), ${summary.pages} pages, ${summary.chunks} chunks; ${summary.failed.length} failed`,
    );
    for (const failure of summary.failed) console.error(`  failed: ${failure}`);
  }
} catch (error) {
  if (!(error instanceof ServiceError)) throw error;
  console.error(`ingest: refused: ${error.message}`);
  refused = true;
} finally {
  await orm.close();
  await services.index.close();
  await services.work.close();
}
process.exitCode = refused || summary.failed.length > 0 ? 1 : 0;
