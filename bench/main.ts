// The benchmark (README "Performance"): the service against its floor and ceiling, in one run on
// one machine. Run through bench/bench.sh (`npm run bench`), which starts a fresh PostgreSQL and
// Weaviate for it and stops them afterwards; this program starts the compiled service and the
// reference servers as child processes and stops them on every way out.
import { randomUUID } from 'node:crypto';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import type { WeaviateClient } from 'weaviate-client';
import { keyHashSecret, loadConfig } from '../src/config.js';
import { connect, type Orm } from '../src/db/orm.js';
import { createAccount, setSubscription } from '../src/domain/accounts/accounts.js';
import { createKey } from '../src/domain/keys/keys.js';
import { ensureStore } from '../src/domain/stores/stores.js';
import { analysedText, stemText } from '../src/domain/text/analyse.js';
import { WeaviateSearchIndex } from '../src/search-index/weaviate.js';
import { commandLine, usageError } from '../scripts/lib/command-line.js';
import { chunk, filtersFor, pdfPages, questions } from './corpus.js';
import { callLoad, httpLoad, percentile, sideBySide, type Measure } from './load.js';
import { freePort } from '../scripts/lib/free-port.js';
import { peakRss, spawnChild, stopAll, type Child } from './processes.js';
import { DIRECT, DIRECT_EMBEDDED, INGESTION_SYSTEM, SERVICE_NEW_QUESTIONS, latencyChart, markdown, measuredRow, targets, textTable, type Row } from './report.js';
import { embeddingsEndpoint } from '../src/services.js';
import { soak, soakMarkdown } from './soak.js';
import { cachedPassageVectors } from './vectors.js';
import { connectDirect, directBm25, directHybrid, rawImport, readChunks } from './weaviate-direct.js';

const USAGE = `usage: npm run bench [-- --smoke] [-- --seconds N] [-- --only ingestion|light|query] [-- --soak [--minutes N]]
  --smoke      a few seconds a scenario, the smallest corpus and a short PDF: checks that the benchmark works
  --seconds N  length of each load scenario (default 10; 2 with --smoke)
  --only ingestion
               only the ingestion scenario (the 200-page PDF; 20 pages with --smoke), beside its raw import
  --only light only the light calls (ceiling, durable floor, /plans, /usage, two processes)
  --only query only the queries on the smallest corpus (BM25, and hybrid unless --smoke), beside direct Weaviate
  --soak       instead of the scenarios: mixed load on one service process for --minutes (default 10),
               its memory sampled every 5 s, reporting the RSS slope`;

const { values } = commandLine('bench', USAGE, {
  options: {
    smoke: { type: 'boolean', default: false },
    seconds: { type: 'string' },
    only: { type: 'string' },
    soak: { type: 'boolean', default: false },
    minutes: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const smoke = values.smoke;
const seconds = Number(values.seconds ?? (smoke ? 2 : 10));
/** New questions a scenario can ask: more than the embeddings server answers in its time. */
const NEW_QUESTIONS = seconds * 100;
if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`--seconds must be a positive number, not ${values.seconds}`);
const soakMinutes = Number(values.minutes ?? 10);
if (!Number.isFinite(soakMinutes) || soakMinutes <= 0) throw new Error(`--minutes must be a positive number, not ${values.minutes}`);
const PARTS = ['ingestion', 'light', 'query'] as const;
type Part = (typeof PARTS)[number];
if (values.only !== undefined && !(PARTS as readonly string[]).includes(values.only)) usageError('bench', USAGE, `--only takes ${PARTS.map((p) => `'${p}'`).join(', ')}, not '${values.only}'`);
const only = values.only as Part | undefined;
const runs = (part: Part) => only === undefined || only === part;
const CORPORA = smoke || only === 'query' ? [1_000] : [1_000, 10_000, 100_000];
// hybrid needs every chunk embedded: the local embeddings server on one thread takes from 0.3 to
// over 1 s a chunk on a loaded 2-core machine, so only the smallest corpus is embedded, in full
// runs only (once, then cached; README "Performance")
const HYBRID_CORPORA = smoke ? [] : [1_000];
const PDF_PAGES = smoke ? 20 : 200;
// one ingestion of the PDF takes a few seconds and varied by half between runs on this shared
// machine: the service's and the raw import's are each the median of three
const INGESTION_RUNS = smoke ? 1 : 3;
const KEYS = 10;
const TOP_K = 5;
const WRITE_BATCH = 1_000;
const STARTUP_MS = 60_000;
// The service runs as `npm start` runs it (scripts/start.sh: the deployed Node options and memory
// allocator), with any Node options given for the run, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
// to profile it (NODE_OPTIONS refuses --cpu-prof, and would reach every process of the run)
const AS_DEPLOYED = ['scripts/start.sh', ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean)];

const config = loadConfig();
const dataDir = process.env.DATA_DIR ?? '.data';
const workDir = join(dataDir, 'run');
const resultsDir = 'bench/results';
mkdirSync(workDir, { recursive: true });
mkdirSync(resultsDir, { recursive: true });
const weaviatePid = Number(readFileSync(join(dataDir, 'weaviate', 'weaviate.pid'), 'utf8').trim());

const log = (message: string) => console.error(`[bench] ${message}`);
const rows: Row[] = [];

/** Fails the run when a scenario had failed requests or a server died: the benchmark measures working systems only. */
function check(what: string, measure: Measure, servers: Child[]): void {
  const dead = servers.find((s) => s.exited());
  if (dead) throw new Error(`${dead.name} died during "${what}" (${dead.exited()}): ${dead.stderrTail()}`);
  if (measure.failures > 0) throw new Error(`"${what}": ${measure.failures} failed requests: ${measure.firstFailure}`);
}

/** Runs one load against one process (or side by side on several), sampling their memory meanwhile. */
async function scenario(base: Omit<Row, 'unit' | 'throughput' | 'p50' | 'p90' | 'p99' | 'peakRssMb'>, pid: number | number[], servers: Child[], run: () => Promise<Measure>): Promise<void> {
  const rss = peakRss(...[pid].flat());
  const measure = await run();
  const row = measuredRow(base, measure, rss.stop());
  check(`${base.scenario}, ${base.system}, ${base.connections} conn`, measure, servers);
  rows.push(row);
  log(`${row.scenario} | ${row.system} | ${row.connections} conn: ${row.throughput!.toFixed(1)} req/s, p50 ${row.p50!.toFixed(1)} ms`);
}

// Each system runs its scenario's calls a moment before anything is measured. Otherwise the first
// system measured after a start or a corpus write pays alone for its code's compilation and for
// the index settling the chunks just written (its flushes), and the one measured after it does not.
const WARM_UP_SECONDS = smoke ? 1 : 2;

async function warmUp(what: string, loads: (() => Promise<Measure>)[]): Promise<void> {
  for (const load of loads) {
    const measure = await load();
    if (measure.failures > 0) throw new Error(`${what}: ${measure.failures} calls of the warm-up failed, the first with: ${measure.firstFailure}`);
  }
}

/** A plan owned by this run, with limits out of reach (the limiter still runs), an account on it and its keys. */
async function setUp(orm: Orm): Promise<{ planId: string; accountId: string; keys: string[] }> {
  const em = orm.em.fork();
  const planId = randomUUID();
  const code = `bench-${planId.slice(0, 8)}`;
  await em.execute(
    `insert into plan (id, code, name, description, price_lkr, rate_limit_per_minute, rate_limit_per_day, monthly_quota, allowed_models,
       custom_knowledge_bases, webhooks, analytics, support, sort_order, listed)
     values (?, ?, 'Benchmark', 'Created by npm run bench for one run, in its own database', 0, 1000000000, 1000000000, 1000000000, '{svcai-fast}',
       true, false, 'basic', 'community', 1000, false)`,
    [planId, code],
  );
  const account = await createAccount(em, 'Benchmark');
  const now = new Date();
  await setSubscription(em, account.id, { planCode: code, state: 'active' }, now);
  const keys: string[] = [];
  for (let i = 0; i < KEYS; i++) keys.push((await createKey(em, keyHashSecret(config), { accountId: account.id, name: `bench ${i}`, environment: config.API_ENVIRONMENT }, now)).key);
  return { planId, accountId: account.id, keys };
}

/** Removes what setUp and the run wrote, the plan last. */
async function tearDown(orm: Orm, planId: string, accountId: string): Promise<void> {
  const em = orm.em.fork();
  const keys = 'select id from api_key where account_id = ?';
  await em.execute(`delete from request_log where api_key_id in (${keys})`, [accountId]);
  await em.execute(`delete from usage_counter where api_key_id in (${keys})`, [accountId]);
  await em.execute(`delete from endpoint_usage where api_key_id in (${keys})`, [accountId]);
  await em.execute('delete from api_key where account_id = ?', [accountId]);
  await em.execute('delete from document where store_id in (select id from store where account_id = ?)', [accountId]);
  await em.execute('delete from store where account_id = ?', [accountId]);
  await em.execute('delete from subscription where account_id = ?', [accountId]);
  await em.execute('delete from account where id = ?', [accountId]);
  await em.execute('delete from plan where id = ?', [planId]);
}

async function startReference(mode: 'ceiling' | 'floor'): Promise<{ child: Child; url: string }> {
  const child = spawnChild(`the ${mode} reference server`, ['dist/bench/reference-server.js', mode], process.env);
  const { port } = JSON.parse(await child.line(/^\{"port"/, STARTUP_MS)) as { port: number };
  return { child, url: `http://127.0.0.1:${port}` };
}

async function startService(name = 'service', env: NodeJS.ProcessEnv = {}): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  // the access log goes to a file, as a deployed service's would
  const logFile = openSync(join(workDir, `${name}.log`), 'a');
  // the documentation site too on a port of its own: two processes (or two runs) never share one
  const docsPort = await freePort();
  const child = spawnChild(`the ${name}`, [...AS_DEPLOYED, 'dist/src/main.js'], { ...process.env, PORT: String(port), DOCS_PORT: String(docsPort), OPENAI_API_KEY: '', ...env }, logFile, 'bash');
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_MS;
  for (;;) {
    if (child.exited()) throw new Error(`the service exited at start (${child.exited()}): ${child.stderrTail()}`);
    const ready = await fetch(`${url}/api/v1/dev/plans`).then(
      async (res) => (await res.arrayBuffer(), true),
      () => false,
    );
    if (ready) return { child, url };
    if (Date.now() > deadline) throw new Error(`the service did not answer within ${STARTUP_MS} ms: ${child.stderrTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Writes `size` generated chunks into the store through the service's index adapter, with their vectors when given. */
async function buildCorpus(index: WeaviateSearchIndex, store: string, size: number, vectors?: number[][]): Promise<void> {
  const start = performance.now();
  for (let from = 0; from < size; from += WRITE_BATCH) {
    const records = Array.from({ length: Math.min(WRITE_BATCH, size - from) }, (_, i) => chunk(from + i));
    await index.writeChunks(store, records, vectors?.slice(from, from + WRITE_BATCH));
    if ((from + WRITE_BATCH) % 20_000 === 0) log(`  ${from + WRITE_BATCH} of ${size} chunks written`);
  }
  log(`corpus of ${size} chunks written in ${((performance.now() - start) / 1000).toFixed(0)} s`);
}

interface Hybrid {
  service: { child: Child; url: string };
  /** a key of the benchmark's plan, to ask each question once before the hybrid scenarios */
  key: string;
  /** the questions' embeddings, in questions() order */
  vectors: number[][];
  /** a question's embedding from the embeddings server, as the service asks for it */
  embed: (question: string) => Promise<number[]>;
}

async function askOnce(url: string, key: string, body: string): Promise<void> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
  if (!response.ok) throw new Error(`a question asked before the hybrid scenarios got HTTP ${response.status}: ${await response.text()}`);
}

async function queryScenarios(service: { child: Child; url: string }, direct: WeaviateClient, keys: string[], store: string, size: number, hybrid: Hybrid | null): Promise<void> {
  const asked = questions();
  const bodies = (filtered: boolean) => asked.map((q) => JSON.stringify({ query: q.question, store_id: store, ...(filtered ? { filters: filtersFor(q) } : {}) }));
  const analysed = asked.map((q) => `${analysedText(q.question)} ${stemText(q.question)}`.trim());
  await warmUp(`queries on ${size} chunks`, [
    () => httpLoad({ url: `${service.url}/api/v1/dev/query`, method: 'POST', bodies: [...bodies(false), ...bodies(true)], connections: 16, seconds: WARM_UP_SECONDS, keys }),
    () => callLoad(16, WARM_UP_SECONDS, (i) => {
      const n = i % asked.length;
      return directBm25(direct, store, analysed[n]!, i % 2 ? filtersFor(asked[n]!) : {}, TOP_K);
    }),
  ]);
  for (const filtered of [false, true]) {
    const scenarioName = `query BM25${filtered ? ', filters' : ''}, ${size.toLocaleString('en')} chunks`;
    const texts = bodies(filtered);
    for (const connections of [1, 16]) {
      const base = { scenario: scenarioName, connections, corpus: size, filtered };
      await scenario({ ...base, system: 'service' }, service.child.pid, [service.child], () =>
        httpLoad({ url: `${service.url}/api/v1/dev/query`, method: 'POST', bodies: texts, connections, seconds, keys }),
      );
      await scenario({ ...base, system: DIRECT }, weaviatePid, [], () =>
        callLoad(connections, seconds, (i) => {
          const q = asked[i % asked.length]!;
          return directBm25(direct, store, analysed[i % asked.length]!, filtered ? filtersFor(q) : {}, TOP_K);
        }),
      );
    }
    const hybridName = scenarioName.replace('BM25', 'hybrid');
    if (!hybrid) {
      const why = smoke ? 'not measured in a smoke run: embedding the corpus takes minutes' : 'not measured: embedding this corpus would take hours here';
      rows.push({ scenario: hybridName, system: 'service and direct', connections: null, unit: 'req/s', throughput: null, peakRssMb: null, note: why });
      continue;
    }
    // the service remembers recent questions' vectors, as the direct query is given them: each
    // question is asked once first, and a row of its own asks new questions only
    if (!filtered) for (const body of texts) await askOnce(`${hybrid.service.url}/api/v1/dev/query`, hybrid.key, body);
    await warmUp(`hybrid queries on ${size} chunks`, [
      () => httpLoad({ url: `${hybrid.service.url}/api/v1/dev/query`, method: 'POST', bodies: texts, connections: 16, seconds: WARM_UP_SECONDS, keys }),
      () => callLoad(16, WARM_UP_SECONDS, (i) => {
        const n = i % asked.length;
        return directHybrid(direct, store, analysed[n]!, hybrid.vectors[n]!, filtered ? filtersFor(asked[n]!) : {}, TOP_K);
      }),
    ]);
    for (const connections of [1, 16]) {
      const base = { scenario: hybridName, connections, corpus: size, filtered };
      await scenario({ ...base, system: 'service' }, hybrid.service.child.pid, [hybrid.service.child], () =>
        httpLoad({ url: `${hybrid.service.url}/api/v1/dev/query`, method: 'POST', bodies: texts, connections, seconds, keys }),
      );
      const fresh = Array.from({ length: NEW_QUESTIONS }, (_, i) => {
        const q = asked[i % asked.length]!;
        // a number the corpus does not hold makes the text new without changing what it asks
        const question = `${q.question} (${connections}${filtered ? 'f' : ''}-${i})`;
        return JSON.stringify({ query: question, store_id: store, ...(filtered ? { filters: filtersFor(q) } : {}) });
      });
      await scenario({ ...base, system: SERVICE_NEW_QUESTIONS }, hybrid.service.child.pid, [hybrid.service.child], () =>
        httpLoad({ url: `${hybrid.service.url}/api/v1/dev/query`, method: 'POST', bodies: fresh, connections, seconds, keys }),
      );
      await scenario({ ...base, system: DIRECT }, weaviatePid, [], () =>
        callLoad(connections, seconds, (i) => {
          const n = i % asked.length;
          return directHybrid(direct, store, analysed[n]!, hybrid.vectors[n]!, filtered ? filtersFor(asked[n]!) : {}, TOP_K);
        }),
      );
      // the service must embed each question: the least a hybrid query costs here includes that call
      await scenario({ ...base, system: DIRECT_EMBEDDED }, weaviatePid, [], () =>
        callLoad(connections, seconds, async (i) => {
          const q = asked[i % asked.length]!;
          return directHybrid(direct, store, analysed[i % asked.length]!, await hybrid.embed(q.question), filtered ? filtersFor(q) : {}, TOP_K);
        }),
      );
    }
  }
}

async function ingestion(direct: WeaviateClient, accountId: string, servers: Child[]): Promise<void> {
  const pagesFile = join(workDir, 'pages.json');
  const pdf = join(workDir, `bench-${PDF_PAGES}-pages.pdf`);
  writeFileSync(pagesFile, JSON.stringify(pdfPages(PDF_PAGES)));
  execFileSync(process.execPath, ['bench/render-pdf.mjs', pagesFile, pdf], { stdio: 'inherit' });
  const store = 'bench-ingest';
  // without embeddings, like the raw import it is compared with (the embedding rate is logged when
  // a corpus is embedded); run as the service is, as the service ingests an upload (with any
  // profiling option given)
  const child = spawnChild(
    'the ingestion',
    [...AS_DEPLOYED, 'dist/bench/ingest-document.js', pdf, store, accountId, String(INGESTION_RUNS)],
    { ...process.env, EMBEDDINGS_BASE_URL: '' },
    'pipe',
    'bash',
  );
  const rss = peakRss(child.pid);
  const line = await child.line(/^\{"seconds"/, 10 * STARTUP_MS);
  const peak = rss.stop();
  await child.stop();
  const result = JSON.parse(line) as { seconds: number[]; pages: number; chunks: number };
  const name = `ingestion, ${result.pages}-page PDF (${result.chunks} chunks)`;
  const seconds = percentile(result.seconds.sort((a, b) => a - b), 0.5);
  rows.push({ scenario: name, system: INGESTION_SYSTEM, connections: null, unit: 'pages/s', throughput: result.pages / seconds, peakRssMb: peak / 2 ** 20 });
  log(`ingestion: ${result.seconds.map((s) => `${s.toFixed(2)} s`).join(', ')} (median of ${INGESTION_RUNS})`);
  const chunks = await readChunks(direct, store);
  if (chunks.length !== result.chunks) throw new Error(`the index holds ${chunks.length} chunks of the PDF, the ingestion reported ${result.chunks}`);
  const weaviateRss = peakRss(weaviatePid);
  const rawSeconds: number[] = [];
  for (let run = 1; run <= INGESTION_RUNS; run++) rawSeconds.push(await rawImport(direct, `${store}-raw-${run}`, chunks));
  log(`raw import: ${rawSeconds.map((s) => `${s.toFixed(2)} s`).join(', ')} (median of ${INGESTION_RUNS})`);
  const raw = percentile(rawSeconds.sort((a, b) => a - b), 0.5);
  rows.push({ scenario: name, system: 'raw weaviate-client import', connections: null, unit: 'pages/s', throughput: result.pages / raw, peakRssMb: weaviateRss.stop() / 2 ** 20 });
  const dead = servers.find((s) => s.exited());
  if (dead) throw new Error(`${dead.name} died during ingestion: ${dead.stderrTail()}`);
}

async function run(orm: Orm): Promise<void> {
  const { planId, accountId, keys } = await setUp(orm);
  const index = new WeaviateSearchIndex({ url: config.WEAVIATE_URL, grpcPort: config.WEAVIATE_GRPC_PORT });
  const direct = await connectDirect(config.WEAVIATE_URL, config.WEAVIATE_GRPC_PORT);
  try {
    if (only === 'ingestion') return await ingestion(direct, accountId, []);
    if (runs('light')) await lightCalls(keys);
    if (!runs('query')) return;
    // BM25 rows come from a service without embeddings; hybrid rows from one with them (the test embeddings server)
    const service = await startService('service', { EMBEDDINGS_BASE_URL: '' });
    const hybridService = await startService('hybrid-service');
    // asked every time: the embedded reference must pay each question's call
    const embedder = embeddingsEndpoint(config);
    if (!embedder) throw new Error('EMBEDDINGS_BASE_URL is not set: bench/bench.sh starts the embeddings server');
    const questionVectors = await embedder.embed(questions().map((q) => q.question), 'query');
    for (const size of CORPORA) {
      const store = `bench-${size}`;
      await ensureStore(orm.em.fork(), store, { owner: accountId });
      const hybrid = HYBRID_CORPORA.includes(size);
      const texts = hybrid ? Array.from({ length: size }, (_, i) => chunk(i).chunkText) : [];
      const vectors = hybrid ? await cachedPassageVectors(embedder, config.EMBEDDINGS_MODEL, texts, process.env.CACHE_DIR ?? '.cache', log) : undefined;
      await buildCorpus(index, store, size, vectors);
      const embed = async (question: string) => (await embedder.embed([question], 'query'))[0]!;
      await queryScenarios(service, direct, keys, store, size, hybrid ? { service: hybridService, key: keys[0]!, vectors: questionVectors, embed } : null);
    }
    if (runs('ingestion')) await ingestion(direct, accountId, [service.child]);
    await service.child.stop();
    await hybridService.child.stop();
  } finally {
    await stopAll();
    await index.close();
    await direct.close();
    await tearDown(orm, planId, accountId);
  }
}

/** The light calls: the ceiling and the durable floor beside GET /plans and /usage through the service, at 1 and 10 connections, and on two processes. */
async function lightCalls(keys: string[]): Promise<void> {
  const ceiling = await startReference('ceiling');
  const floor = await startReference('floor');
  const service = await startService('service', { EMBEDDINGS_BASE_URL: '' });
  await warmUp('light calls', [
    () => httpLoad({ url: `${ceiling.url}/`, connections: 10, seconds: WARM_UP_SECONDS, keys }),
    () => httpLoad({ url: `${floor.url}/`, connections: 10, seconds: WARM_UP_SECONDS, keys }),
    ...['plans', 'usage'].map((path) => () => httpLoad({ url: `${service.url}/api/v1/dev/${path}`, connections: 10, seconds: WARM_UP_SECONDS, keys })),
  ]);
  for (const connections of [1, 10]) {
    await scenario({ scenario: 'light call', system: 'ceiling: bare Koa', connections }, ceiling.child.pid, [ceiling.child], () =>
      httpLoad({ url: `${ceiling.url}/`, connections, seconds, keys }),
    );
    await scenario({ scenario: 'light call', system: 'durable floor: Koa + 1 statement', connections }, floor.child.pid, [floor.child], () =>
      httpLoad({ url: `${floor.url}/`, connections, seconds, keys }),
    );
    for (const path of ['plans', 'usage']) {
      await scenario({ scenario: 'light call', system: `service GET /${path}`, connections }, service.child.pid, [service.child], () =>
        httpLoad({ url: `${service.url}/api/v1/dev/${path}`, connections, seconds, keys }),
      );
    }
  }
  await ceiling.child.stop();
  await floor.child.stop();
  // scale out: a second process on the same database, the 10 connections shared between the two
  const second = await startService('service-2', { EMBEDDINGS_BASE_URL: '' });
  await warmUp('the second process', [() => httpLoad({ url: `${second.url}/api/v1/dev/plans`, connections: 5, seconds: WARM_UP_SECONDS, keys })]);
  await scenario({ scenario: 'light call', system: 'service GET /plans, two processes', connections: 10 }, [service.child.pid, second.child.pid], [service.child, second.child], async () =>
    sideBySide(await Promise.all([service, second].map((s) => httpLoad({ url: `${s.url}/api/v1/dev/plans`, connections: 5, seconds, keys })))),
  );
  await second.child.stop();
  await service.child.stop();
}

function machine(): string {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  return `${cpus()[0]?.model ?? 'unknown processor'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GB, load average at the end ${load}`;
}

/** The soak: mixed load on one service process, its memory sampled; writes bench/results/soak-<time>.{json,md} and soak-latest.md. */
async function runSoak(orm: Orm, started: Date): Promise<void> {
  const { planId, accountId, keys } = await setUp(orm);
  const index = new WeaviateSearchIndex({ url: config.WEAVIATE_URL, grpcPort: config.WEAVIATE_GRPC_PORT });
  try {
    const service = await startService('service', { EMBEDDINGS_BASE_URL: '' });
    const store = 'bench-soak';
    await ensureStore(orm.em.fork(), store, { owner: accountId });
    await buildCorpus(index, store, 1_000);
    log(`soak: ${soakMinutes} minutes of mixed load at 10 connections`);
    const result = await soak({
      url: service.url,
      pid: service.child.pid,
      keys,
      bodies: questions().map((q) => JSON.stringify({ query: q.question, store_id: store })),
      connections: 10,
      minutes: soakMinutes,
    });
    check('soak', result.measure, [service.child]);
    await service.child.stop();
    const about = [
      `${started.toISOString()}, soak of ${soakMinutes} minutes, autocannon on loopback, 10 connections, ${KEYS} keys on a plan with limits out of reach (the limiter runs)`,
      `machine: ${machine()}; the load generator, the service, PostgreSQL and Weaviate share it`,
    ];
    const report = soakMarkdown(result, about);
    console.log(report);
    const name = `soak-${started.toISOString().replace(/[:.]/g, '-')}`;
    writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify({ about, ...result }, null, 2)}\n`);
    writeFileSync(join(resultsDir, `${name}.md`), report);
    writeFileSync(join(resultsDir, 'soak-latest.md'), report);
    log(`results in ${resultsDir}/${name}.{json,md} and soak-latest.md`);
  } finally {
    await stopAll();
    await index.close();
    await tearDown(orm, planId, accountId);
  }
}

const orm = await connect(config.DATABASE_URL);
const started = new Date();
let failed = false;
try {
  if (values.soak) await runSoak(orm, started);
  else await run(orm);
} catch (error) {
  // what failed is in the message (a failed request, a dead server and its last words); no stack
  console.error(`bench: failed: ${(error as Error).message}`);
  failed = true;
} finally {
  await orm.close();
}
if (failed) process.exit(1);
if (!values.soak) report();

/** The scenarios' table and targets on stdout, saved as JSON, Markdown and SVG. */
function report(): void {
  const about = [
    `${started.toISOString()}, ${smoke ? 'smoke run' : 'full run'}${only ? `, ${only} only` : ''}, ${seconds} s a scenario, autocannon on loopback, ${KEYS} keys on a plan with limits out of reach (the limiter runs)`,
    `machine: ${machine()}; the load generator, the servers, PostgreSQL and Weaviate share it`,
    'throughput: mean requests (or pages) per second; latency in ms; peak RSS of the answering process during the scenario (Weaviate for direct queries and the raw import)',
  ];
  console.log(textTable(rows));
  console.log(['', 'targets:', ...targets(rows).map((t) => `  ${t}`)].join('\n'));
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const name = `${smoke ? 'smoke' : 'full'}${only ? `-${only}` : ''}-${stamp}`;
  writeFileSync(join(resultsDir, `${name}.json`), `${JSON.stringify({ about, rows }, null, 2)}\n`);
  writeFileSync(join(resultsDir, `${name}.md`), markdown(rows, about).replace('latest.svg', `${name}.svg`));
  writeFileSync(join(resultsDir, `${name}.svg`), latencyChart(rows));
  log(`results in ${resultsDir}/${name}.{json,md,svg}`);
  if (!smoke && !only) {
    // the latest full run is the one the README quotes (committed)
    writeFileSync(join(resultsDir, 'latest.md'), markdown(rows, about));
    writeFileSync(join(resultsDir, 'latest.svg'), latencyChart(rows));
  }
}
