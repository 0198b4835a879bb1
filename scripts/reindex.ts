// Gives the chunks of stores indexed before hybrid retrieval (or while embeddings were off) their
// vectors, from the embeddings endpoint (EMBEDDINGS_BASE_URL), without re-reading any document.
//   npm run reindex -- --store S [--store T ...]
//   npm run reindex -- --all
// A progress bar on a terminal, plain progress lines otherwise. Chunks that have a vector are left
// alone, so a run that stopped can be started again.
import cliProgress from 'cli-progress';
import { configOrExit } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { embedStore, type ReindexProgress } from '../src/domain/ingestion/reindex.js';
import { listStores } from '../src/domain/stores/stores.js';
import { createServices } from '../src/services.js';
import { commandLine, usageError } from './lib/command-line.js';

const USAGE = `usage: npm run reindex -- --store <store id> [--store <store id> ...]
       npm run reindex -- --all
Embeds the chunks of the stores that have no vector yet, so hybrid search finds them by meaning
too. Needs DATABASE_URL, WEAVIATE_URL and EMBEDDINGS_BASE_URL (as set by the scripts).`;

const { values, positionals } = commandLine('reindex', USAGE, {
  allowPositionals: true,
  options: { store: { type: 'string', multiple: true }, all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals.length) usageError('reindex', USAGE, `unexpected argument '${positionals[0]}'`);
if (Boolean(values.all) === Boolean(values.store?.length)) usageError('reindex', USAGE, 'give --store (one or more) or --all');

const config = configOrExit();
const services = createServices(config);
const embedder = services.embedder;
if (!embedder) {
  console.error('reindex: EMBEDDINGS_BASE_URL is not set: there is no embeddings endpoint to ask');
  process.exit(1);
}
const orm = await connect(config.DATABASE_URL);
let failed = false;
try {
  const known = new Set((await listStores(orm.em.fork())).map((s) => s.id));
  const stores = values.all ? [...known] : values.store!;
  for (const store of stores) {
    if (!known.has(store)) {
      console.error(`reindex: no store '${store}' (npm run stores -- list shows them)`);
      failed = true;
      continue;
    }
    const bar = process.stderr.isTTY
      ? new cliProgress.SingleBar({ format: `reindex ${store} [{bar}] {value}/{total} chunks`, stream: process.stderr }, cliProgress.Presets.shades_classic)
      : null;
    let lastLine = 0;
    const report = ({ embedded, total }: ReindexProgress) => {
      if (bar) {
        if (embedded === 0) bar.start(total, 0);
        else bar.update(embedded);
      } else if (embedded === total || Date.now() - lastLine >= 5_000) {
        // plain lines for logs: at the start, every few seconds and at the end
        lastLine = Date.now();
        console.error(`reindex: ${store}: ${embedded}/${total} chunks embedded`);
      }
    };
    try {
      const done = await embedStore(services.index, embedder, store, report);
      bar?.stop();
      console.error(`reindex: ${store}: ${done.total ? `${done.embedded} chunks embedded` : 'every chunk already has its vector'}`);
    } catch (error) {
      bar?.stop();
      const { message, cause } = error as Error;
      console.error(`reindex: ${store}: ${message}${cause instanceof Error ? ` (${cause.message})` : ''}`);
      failed = true;
    }
  }
} finally {
  await orm.close();
  await services.index.close();
  await services.work.close();
}
process.exitCode = failed ? 1 : 0;
