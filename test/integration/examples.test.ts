import { beforeAll, describe, expect, test } from '@jest/globals';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { Store } from '../../src/db/entities.js';
import { isPublicAddress } from '../../src/domain/attachments/address-policy.js';
import { safeFetch } from '../../src/domain/attachments/safe-fetch.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { fillPlaceholders } from '../../src/docs/content.js';
import spec from '../../src/generated/openapi.json' with { type: 'json' };
import { newKey } from './support/accounts.js';
import { temporaryDirectory } from './support/cleanup.js';
import { KEYLESS_OPERATIONS } from '../../src/generated/contract-values.js';
import { apiClient, expectDocumented, mediaTypeOf, operationIdAt, parseBody, sendRaw, type Schemas } from './support/contract.js';
import { ingestSamples } from './support/corpus.js';
import { startDocsServer, type DocsServer } from './support/docs-server.js';
import { file, makeCertificate, startHttpsFileServer, type HttpsFileServer } from './support/https-file-server.js';
import { runProcess } from './support/processes.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Examples stay true: every request example of the contract (src/generated/openapi.json) and every
// curl example of the guides (docs/) is executed against the real server and must answer as
// documented: a documented status and schema, and what the guide or the contract says of the
// answer (filters match, the store read, the answer shown after the command).

// The examples' own world: the files their attachment URLs name (https://files.example.org/...,
// served by a local HTTPS server that the test fetcher reaches instead of the public host), the
// Enterprise store `school-42-biology` they read, and an Enterprise key that owns it.
const EXAMPLE_HOST = 'files.example.org';
const EXAMPLE_STORE = 'school-42-biology';
const STORE_DOCUMENT = 'cell-division.md';
// files that the curl examples upload (`-F files=@name`), stood in for by type
// the file a multipart example names in its `file` part (an upload of a knowledge base)
const STAND_IN_TEXT = '--- PAGE 1 ---\nMitosis makes two identical cells; meiosis makes four different sex cells.';
const STAND_INS: Record<string, string> = {
  '.jpg': 'test/fixtures/photo.jpg',
  '.pdf': 'samples/curriculum/pdf/grade11-mathematics-past-paper-2019.pdf',
};

let files: HttpsFileServer;
let server: TestServer;
let docs: DocsServer;
let key: string;

/**
 * The key's knowledge bases made afresh (a rerun against the same database keeps the names the
 * examples create): one, with one document, for the examples that name one.
 */
async function knowledgeBaseForExamples(): Promise<Record<string, string>> {
  const listed = await sendRaw(server.url, 'listKnowledgeBases', { key });
  // (the operator's store of the examples, school-42-biology, stays)
  for (const kb of (listed.body as Schemas['KnowledgeBaseList']).knowledge_bases.filter((k) => k.id.startsWith('kb_'))) await sendRaw(server.url, 'deleteKnowledgeBase', { key, path: { kb_id: kb.id } });
  const kb = await sendRaw(server.url, 'createKnowledgeBase', { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Examples' }) });
  const kbId = (kb.body as Schemas['KnowledgeBase']).id;
  const form = new FormData();
  form.append('file', new Blob([STAND_IN_TEXT]), 'notes.md');
  form.append('metadata', JSON.stringify({ subject: 'Biology', grade: '12', category: 'short-notes', language: 'english' }));
  const doc = await sendRaw(server.url, 'uploadDocument', { key, path: { kb_id: kbId }, body: form });
  return { kb_id: kbId, document_id: (doc.body as Schemas['KnowledgeBaseDocument']).id };
}

beforeAll(async () => {
  files = await startHttpsFileServer({ certificate: makeCertificate([EXAMPLE_HOST]) });
  files.route('/diagrams/plant-cell.png', file(readFileSync('test/fixtures/small.png'), 'image/png'));
  // no extension and a generic type: the example's media_type tells what it is
  files.route('/download?id=4821', file(readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf'), 'application/octet-stream'));
  const fetchAttachment = (url: string, signal?: AbortSignal) =>
    safeFetch(url.replace(`https://${EXAMPLE_HOST}/`, `https://${EXAMPLE_HOST}:${files.port}/`), {
      signal,
      resolver: (host) => Promise.resolve(host === EXAMPLE_HOST ? ['127.0.0.1'] : []),
      ca: files.ca,
      isAllowedAddress: (ip, host) => (ip === '127.0.0.1' && host === EXAMPLE_HOST) || isPublicAddress(ip),
    });
  // webhook endpoints of the examples (https://hooks.example.org/...) pass the address policy
  // through the test-only loopback setting; nothing is delivered here (no relay runs)
  const services = testServices({ fetchAttachment }, { WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.example.org' });
  server = await startServer({ services });
  docs = await startDocsServer();
  await ingestSamples(server.orm, services, 'default');
  // the store's id is the examples': a rerun against the same database keys its earlier owner
  const earlier = await server.orm.em.fork().findOne(Store, { id: EXAMPLE_STORE });
  const owner = await newKey(server.orm, { plan: 'enterprise', accountId: earlier?.account?.id });
  key = owner.key;
  await ingestDocument(server.orm.em.fork(), services.index, null, {
    work: services.work,
    store: EXAMPLE_STORE,
    owner: owner.accountId,
    name: STORE_DOCUMENT,
    bytes: new TextEncoder().encode(
      '--- PAGE 1 ---\nMitosis makes two identical body cells, for growth and repair, for example in the skin. ' +
        'Meiosis makes four different sex cells with half the chromosomes, for example in the anthers of a flower.',
    ),
    metadata: { subject: 'Biology', grade: '12', category: 'short-notes', language: 'english' },
  });
}, 300_000);

/** What the contract and the guides say of every answer to a query, whatever its example. */
function expectQueryAnswer(request: { filters?: Record<string, string>; store_id?: string; attachments?: { url: string }[] }, answer: Schemas['QueryResponse']): void {
  expect(answer.has_citations).toBe(answer.citations.length > 0);
  // filters are exact whole-value matches, combined with AND; attachments have no metadata
  for (const citation of answer.citations) {
    if (citation.metadata) expect(citation.metadata).toMatchObject(request.filters ?? {});
  }
  // stores never mix
  if (request.store_id === EXAMPLE_STORE) {
    expect(answer.citations.length).toBeGreaterThan(0);
    for (const citation of answer.citations) expect(citation.document_name).toBe(STORE_DOCUMENT);
  }
  // every attachment was downloaded from where the example says
  for (const { url } of request.attachments ?? []) {
    const { pathname, search } = new URL(url);
    expect(files.hits).toContain(pathname + search);
  }
}

function expectUsage(usage: Schemas['Usage']): void {
  // the guide: total_requests is the sum of by_endpoint
  expect(Object.values(usage.by_endpoint).reduce((sum, n) => sum + n, 0)).toBe(usage.total_requests);
}

// ---------------------------------------------------------------------------------------------
// The contract's request examples

interface RequestExample {
  operationId: string;
  mediaType: string;
  name: string;
  value: Record<string, unknown>;
}

type MediaType = { schema?: { $ref?: string }; example?: unknown; examples?: Record<string, { value: unknown }> };
type Operation = { operationId: string; parameters?: unknown[]; requestBody?: { content: Record<string, MediaType> } };

/** Every example of every request body: the media type's `example` and `examples`, and its schema's. */
function requestExamples(): RequestExample[] {
  const schemas = spec.components.schemas as Record<string, { example?: unknown; examples?: unknown[] }>;
  return Object.values(spec.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
    Object.values(item).flatMap((operation) => {
      // parameters would carry examples too; none of them has one yet
      if (operation.parameters?.some((p) => typeof p === 'object' && p !== null && ('example' in p || 'examples' in p))) {
        throw new Error(`${operation.operationId} has parameter examples: run them here too`);
      }
      return Object.entries(operation.requestBody?.content ?? {}).flatMap(([mediaType, media]) => {
        const schema = media.schema?.$ref ? schemas[media.schema.$ref.replace('#/components/schemas/', '')] : undefined;
        const values: [string, unknown][] = [
          ...Object.entries(media.examples ?? {}).map(([name, example]) => [name, example.value] as [string, unknown]),
          ...(media.example === undefined ? [] : [['example', media.example] as [string, unknown]]),
          ...(schema?.examples ?? []).map((value, i) => [`schema example ${i + 1}`, value] as [string, unknown]),
          ...(schema?.example === undefined ? [] : [['schema example', schema.example] as [string, unknown]]),
        ];
        return values.map(([name, value]) => ({ operationId: operation.operationId, mediaType, name, value: value as Record<string, unknown> }));
      });
    }),
  );
}

/** The example as the body of its media type: JSON, or form parts (objects as JSON text, as the contract's encoding says). */
function encode(example: RequestExample): { body: string | FormData; headers: Record<string, string> } {
  if (example.mediaType === 'application/json') return { body: JSON.stringify(example.value), headers: { 'Content-Type': 'application/json' } };
  if (example.mediaType === 'multipart/form-data') {
    const form = new FormData();
    for (const [name, value] of Object.entries(example.value)) {
      // a `file` part is named by its file name in the example: the file is a stand-in
      if (name === 'file') form.append(name, new Blob([STAND_IN_TEXT]), String(value));
      else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
    return { body: form, headers: {} };
  }
  throw new Error(`${example.operationId}: no encoder for ${example.mediaType}`);
}

const examples = requestExamples();
// the dashboard's and the payment gateway's operations run theirs in one signed-in session (dashboard-examples.test.ts)
const keyless = new Set<string>(KEYLESS_OPERATIONS);
const apiExamples = examples.filter((e) => !keyless.has(e.operationId));

describe('the request examples of the contract', () => {
  test('every operation with a request body has examples', () => {
    const withBody = Object.values(spec.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
      Object.values(item).filter((op) => op.requestBody).map((op) => op.operationId),
    );
    expect(withBody.length).toBeGreaterThan(0);
    expect([...new Set(examples.map((e) => e.operationId))].sort()).toEqual(withBody.sort());
  });

  test.each(apiExamples.map((e) => [`${e.operationId} ${e.mediaType} ${e.name}`, e] as const))('%s answers its documented success', async (_name, example) => {
    // sendRaw checks the answer against the operation's documented responses, with the operation's method
    const res = await sendRaw(server.url, example.operationId, { key, path: await examplePath(example.operationId), ...encode(example) });
    expect({ status: res.status, body: res.body }).toMatchObject({ status: successStatus(example.operationId) });
    if (example.operationId === 'query' || example.operationId === 'queryMultipart') expectQueryAnswer(example.value, res.body as Schemas['QueryResponse']);
  });
});

/** The success an operation documents (its one 2xx). */
function successStatus(operationId: string): number {
  const operation = Object.values(spec.paths as Record<string, Record<string, Operation & { responses?: Record<string, unknown> }>>)
    .flatMap((item) => Object.values(item))
    .find((op) => op.operationId === operationId);
  return Number(Object.keys(operation?.responses ?? {}).find((status) => status.startsWith('2')));
}

/**
 * The path parameters of an example: for a knowledge-base operation, a knowledge base with one
 * document made afresh (examples share names); for a webhook endpoint's, an endpoint of the
 * examples' key made from the contract's own example.
 */
async function examplePath(operationId: string): Promise<Record<string, string> | undefined> {
  if (operationId.endsWith('KnowledgeBase') || operationId.endsWith('Document') || operationId.endsWith('Documents')) return knowledgeBaseForExamples();
  if (operationId !== 'updateWebhookEndpoint') return undefined;
  const [body] = (spec.components.schemas as unknown as Record<string, { examples: Schemas['NewWebhookEndpointRequest'][] }>).NewWebhookEndpointRequest!.examples;
  const { data } = await apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints', { body: body! });
  return { endpoint_id: data!.endpoint.id };
}

// ---------------------------------------------------------------------------------------------
// The curl examples of the guides

interface Fence {
  lang: string;
  text: string;
  line: number;
  /** The heading the fence is under. */
  section: number;
}

interface CurlExample {
  where: string;
  script: string;
  /** The fence after the command in its section, when it shows the answer (JSON, or the raw response). */
  shown?: Fence;
}

function fences(markdown: string): Fence[] {
  const result: Fence[] = [];
  const lines = markdown.split('\n');
  let section = 0;
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,6} /.test(lines[i]!)) section++;
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    result.push({ lang: open[1]!, text: lines.slice(start + 1, i).join('\n'), line: start + 1, section });
  }
  return result;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(dir, name))
    .sort();
}

function curlExamples(): CurlExample[] {
  return markdownFiles('docs').flatMap((path) => {
    const all = fences(readFileSync(path, 'utf8'));
    return all.flatMap((fence, i) => {
      if (!['bash', 'sh'].includes(fence.lang) || !fence.text.trimStart().startsWith('curl ')) return [];
      const next = all[i + 1];
      const shown = next && next.section === fence.section && ['json', ''].includes(next.lang) ? next : undefined;
      return [{ where: `${path}:${fence.line}`, script: fence.text, shown }];
    });
  });
}

interface CurlRun {
  args: string[];
  status: number;
  method: string;
  url: URL;
  headers: Headers;
  /** What the command printed, as the reader of the guide sees it. */
  stdout: string;
  /** The response body: what it printed, or what it sent to /dev/null. */
  body: string;
}

const option = (args: string[], ...names: string[]) => args.flatMap((arg, i) => (names.includes(arg) ? [args[i + 1]!] : []));

// Bash reads the example as a reader's shell would (quotes, continuations, $SVCAI_API_KEY); each
// curl runs for real, and records its arguments, status, headers and body beside what it printed
// (a body the example throws away, -o /dev/null, is kept in a file instead).
const PRELUDE = `set -eu
cd "$EXAMPLE_DIR"
n=0
curl() {
  n=$((n + 1))
  printf '%s\\0' "$@" > "$EXAMPLE_OUT/$n.args"
  local args=() previous=''
  for arg in "$@"; do
    if [[ ( $previous == -o || $previous == --output ) && $arg == /dev/null ]]; then arg="$EXAMPLE_OUT/$n.body"; fi
    args+=("$arg")
    previous="$arg"
  done
  command curl --no-progress-meter "\${args[@]}" --write-out '%{stderr}%{json}\\n--\\n%{header_json}' > "$EXAMPLE_OUT/$n.out" 2> "$EXAMPLE_OUT/$n.meta"
}
`;

async function runCurlExample(script: string): Promise<CurlRun[]> {
  const dir = temporaryDirectory('curl-example-');
  const out = join(dir, '.out');
  mkdirSync(out);
  for (const [, name] of script.matchAll(/=@([\w.-]+)/g)) {
    const standIn = STAND_INS[extname(name!)];
    if (!standIn) throw new Error(`the example uploads ${name}: give its type a stand-in file in STAND_INS`);
    copyFileSync(standIn, join(dir, name!));
  }
  const filled = fillPlaceholders(script, { apiBaseUrl: server.url, docsBaseUrl: docs.url });
  const result = await runProcess('bash', ['-c', PRELUDE + filled], {
    env: { PATH: process.env.PATH, HOME: dir, SVCAI_API_KEY: key, EXAMPLE_DIR: dir, EXAMPLE_OUT: out },
  });
  const runs = readdirSync(out).filter((name) => name.endsWith('.args')).length;
  if (result.status !== 0) {
    // a curl that failed stopped the script (set -e); what it said is in its .meta
    const said = runs ? readFileSync(join(out, `${runs}.meta`), 'utf8') : '';
    throw new Error(`the example failed (exit ${result.status}): ${result.stderr}${said}`);
  }
  return Array.from({ length: runs }, (_, i) => {
    const read = (ext: string) => readFileSync(join(out, `${i + 1}.${ext}`), 'utf8');
    const [info, headerJson] = read('meta').split('\n--\n');
    let meta: { http_code: number; method: string; url_effective: string };
    let headers: Record<string, string[]>;
    try {
      meta = JSON.parse(info!) as typeof meta;
      headers = JSON.parse(headerJson!) as typeof headers;
    } catch {
      throw new Error(`curl ${i + 1} of the example failed: ${read('meta')}`);
    }
    return {
      args: read('args').split('\0').slice(0, -1),
      status: meta.http_code,
      method: meta.method,
      url: new URL(meta.url_effective),
      headers: new Headers(Object.entries(headers).map(([name, values]) => [name, values.join(', ')] as [string, string])),
      stdout: read('out'),
      body: existsSync(join(out, `${i + 1}.body`)) ? read('body') : read('out'),
    };
  });
}

/** The request an API example sent, as far as the answer's checks need it: its JSON body, or its form's fields. */
function requestOf(run: CurlRun): Record<string, unknown> {
  const [data] = option(run.args, '-d', '--data', '--data-raw');
  if (data) return JSON.parse(data) as Record<string, unknown>;
  const fields = option(run.args, '-F', '--form').map((field) => field.split(/=(.*)/s) as [string, string]);
  return Object.fromEntries(fields.filter(([, value]) => !value.startsWith('@')).map(([name, value]) => [name, name === 'filters' ? JSON.parse(value) : value]));
}

/** Every key of `shown` is in `actual`, with a value of the same JSON type, recursively (arrays: by their first items). */
function expectSameShape(actual: unknown, shown: unknown, path = '$'): void {
  const type = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  expect(`${path}: ${type(actual)}`).toBe(`${path}: ${type(shown)}`);
  if (Array.isArray(shown) && Array.isArray(actual) && shown.length && actual.length) expectSameShape(actual[0], shown[0], `${path}[0]`);
  if (type(shown) === 'object') {
    for (const [name, value] of Object.entries(shown as object)) {
      expect(Object.keys(actual as object)).toContain(name);
      expectSameShape((actual as Record<string, unknown>)[name], value, `${path}.${name}`);
    }
  }
}

function expectApiAnswer(run: CurlRun, shown: Fence | undefined, last: boolean): void {
  const operationId = operationIdAt(run.method, run.url.pathname);
  if (!operationId) throw new Error(`${run.method} ${run.url.pathname} is not an operation of the contract`);
  // guide examples are meant to work; on failure, the answer says why
  expect({ operation: operationId, status: run.status, answer: run.body.slice(0, 500) }).toMatchObject({ status: successStatus(operationId) });
  const body = parseBody(run.body, `${operationId} ${run.status}`, mediaTypeOf(run.headers));
  expectDocumented({ status: run.status, headers: run.headers, body }, operationId);
  if (mediaTypeOf(run.headers) === 'text/event-stream') {
    // the streaming guide: citations first, then the answer's pieces, then usage
    const events = (body as { event: string }[]).map((e) => e.event);
    expect([events[0], events.at(-1)]).toEqual(['citations', 'usage']);
    return;
  }
  if (operationId === 'query' || operationId === 'queryMultipart') expectQueryAnswer(requestOf(run), body as Schemas['QueryResponse']);
  if (operationId === 'getUsage') expectUsage(body as Schemas['Usage']);
  if (!last || !shown) return;
  if (shown.lang === 'json') return expectSameShape(body, JSON.parse(shown.text));
  // the raw response as `curl -D -` prints it: the status line, then the headers shown
  const [statusLine, ...headerLines] = shown.text.split('\n');
  expect(run.stdout.split('\r\n')[0]).toBe(statusLine);
  for (const line of headerLines) expect(run.headers.has(line.split(':')[0]!)).toBe(true);
}

const pages = (JSON.parse(readFileSync('docs/site.json', 'utf8')) as { sections: { pages: { path: string; title: string }[] }[] }).sections.flatMap((s) => s.pages);

function expectDocsAnswer(run: CurlRun): void {
  // the docs-site guide: <page>.md, <page>.mdx and Accept: text/markdown give the page's Markdown
  const page = pages.find((p) => p.path === run.url.pathname.replace(/\.mdx?$/, ''));
  if (!page) throw new Error(`${run.url.pathname} is not a page of docs/site.json`);
  expect(run.status).toBe(200);
  expect(run.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  expect(run.headers.get('vary')).toBe('Accept');
  expect(run.stdout.split('\n')[0]).toBe(`# ${page.title}`);
}

const curls = curlExamples();

describe('the curl examples of the guides', () => {
  test('the guides have curl examples, for the API and for this site', () => {
    expect(curls.some((c) => c.script.includes('{base_url}'))).toBe(true);
    expect(curls.some((c) => c.script.includes('{docs_url}'))).toBe(true);
  });

  test.each(curls.map((c) => [c.where, c] as const))('%s answers as documented', async (_where, example) => {
    const runs = await runCurlExample(example.script);
    // every command of the block ran through the recording curl
    expect(runs.length).toBe(example.script.split('\n').filter((line) => line.startsWith('curl ')).length);
    runs.forEach((run, i) => {
      if (run.url.origin === new URL(server.url).origin) expectApiAnswer(run, example.shown, i === runs.length - 1);
      else if (run.url.origin === new URL(docs.url).origin) expectDocsAnswer(run);
      else throw new Error(`${run.url.href} is neither the API nor the documentation site`);
    });
  });
});
