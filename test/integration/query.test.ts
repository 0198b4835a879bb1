import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey } from './support/accounts.js';
import { apiClient, detailOf, sendRaw, type Schemas } from './support/contract.js';
import { ingestSamples } from './support/corpus.js';
import { startServer, testServices, type TestServer } from './support/server.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import type { Services } from '../../src/services.js';

let server: TestServer;
let services: Services;
let key: string;

const ask = (body: Schemas['QueryRequest'], apiKey = key) => apiClient(server.url, apiKey).POST('/api/v1/dev/query', { body });

const text = (s: string) => new TextEncoder().encode(s);
// stores made by this run (a rerun against the same database must not meet them)
const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}`;

beforeAll(async () => {
  services = testServices();
  server = await startServer({ services });
  await ingestSamples(server.orm, services, 'default');
  key = (await newKey(server.orm, { plan: 'enterprise' })).key;
}, 180_000);

describe('POST /api/v1/dev/query', () => {
  test('answers from the curriculum with citations: document, pages, metadata and the matched text', async () => {
    const res = await ask({ query: 'What do plants need for photosynthesis?', store_id: 'default', filters: { language: 'english' } });
    expect(res.response.status).toBe(200);
    expect(res.data!.has_citations).toBe(true);
    expect(res.data!.citations.length).toBeGreaterThan(0);
    const top = res.data!.citations[0]!;
    expect(top.document_name).toBe('grade10-science-photosynthesis.pdf');
    expect(top.document_id).toMatch(/^doc_[0-9a-f]{24}$/);
    expect(top.metadata).toMatchObject({ subject: 'Science', grade: '10', language: 'english', category: 'textbook' });
    expect(top.pages.length).toBeGreaterThan(0);
    // the extractive answer quotes the cited text, it does not invent any
    const cited = res.data!.citations.map((c) => c.chunk_text.replace(/\s+/g, ' ')).join(' ');
    for (const sentence of res.data!.answer.split(/(?<=[.?!])\s+/)) expect(cited).toContain(sentence.replace(/\s+/g, ' ').trim());
  });

  test('a JSON answer says where its time went: admission, retrieval and answer, in milliseconds (Server-Timing)', async () => {
    const res = await ask({ query: 'What do plants need for photosynthesis?', store_id: 'default' });
    expect(res.response.status).toBe(200);
    const header = res.response.headers.get('server-timing') ?? '';
    const phases = header.split(', ').map((metric) => /^([a-z]+);dur=(\d+\.\d)$/.exec(metric));
    expect(phases.map((m) => m?.[1])).toEqual(['admission', 'retrieval', 'answer']);
    // a search of the sample curriculum, a call to the index, takes a measurable time
    expect(Number(phases[1]![2])).toBeGreaterThan(0);
    expect((await apiClient(server.url, key).GET('/api/v1/dev/plans')).response.headers.get('server-timing')).toBeNull();
  });

  test('store_id is optional and means default', async () => {
    const res = await ask({ query: 'What do plants need for photosynthesis?' });
    expect(res.response.status).toBe(200);
    expect(res.data!.has_citations).toBe(true);
  });

  test("the quick start's question is answered with what photosynthesis uses, raw materials named", async () => {
    const res = await ask({ query: 'What do plants need for photosynthesis?' });
    expect(res.data!.answer).toContain('In photosynthesis, a plant uses light energy to join simple raw materials into sugar.');
    expect(res.data!.answer).toContain('The raw materials are carbon dioxide');
  });

  test('filters are exact whole values: Science does not match Computer Science', async () => {
    const res = await ask({ query: 'binary numbers', filters: { subject: 'Science' } });
    expect(res.response.status).toBe(200);
    for (const c of res.data!.citations) expect(c.metadata?.subject).toBe('Science');
    const cs = await ask({ query: 'binary numbers', filters: { subject: 'Computer Science' } });
    expect(cs.data!.citations.length).toBeGreaterThan(0);
    for (const c of cs.data!.citations) expect(c.metadata?.subject).toBe('Computer Science');
  });

  test('filters are case-sensitive and combine with AND', async () => {
    const lower = await ask({ query: 'What do plants need for photosynthesis?', filters: { subject: 'science' } });
    expect(lower.response.status).toBe(200);
    expect(lower.data).toMatchObject({ citations: [], has_citations: false });
    expect(lower.data!.answer).toMatch(/No relevant passages/);
    const both = await ask({ query: 'ஒளித்தொகுப்பு', filters: { subject: 'Science', grade: '10', language: 'tamil' } });
    expect(both.data!.citations.length).toBeGreaterThan(0);
    for (const c of both.data!.citations) expect(c.metadata).toMatchObject({ subject: 'Science', grade: '10', language: 'tamil' });
  });

  test('a Sinhala question finds its Sinhala passage and is answered in Sinhala', async () => {
    const res = await ask({ query: 'පරාක්‍රම සමුද්‍රය ඉදි කළේ කවුද?' });
    expect(res.response.status).toBe(200);
    expect(res.data!.citations[0]?.document_name).toBe('grade10-history-polonnaruwa-si.pdf');
    expect(res.data!.citations[0]?.pages).toContain(2);
    expect(res.data!.answer).toMatch(/[\u0D80-\u0DFF]/);
  });

  test('a Tamil question finds its Tamil passage and is answered in Tamil', async () => {
    const res = await ask({ query: 'காவல் கலங்கள் என்றால் என்ன? இலைவாய் எப்போது திறக்கிறது?' });
    expect(res.response.status).toBe(200);
    expect(res.data!.citations[0]?.document_name).toBe('grade10-science-photosynthesis-ta.pdf');
    expect(res.data!.citations[0]?.pages).toContain(2);
    expect(res.data!.answer).toMatch(/[\u0B80-\u0BFF]/);
  });

  test('nothing relevant: a plain statement and no citations', async () => {
    const res = await ask({ query: 'zyxwvut qwertyuiop' });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ answer: expect.stringMatching(/No relevant passages/), citations: [], has_citations: false });
  });

  test('an unknown store is 404, and so is another account\'s store', async () => {
    const missing = await ask({ query: 'photosynthesis', store_id: 'no-such-store' });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ detail: "Store 'no-such-store' was not found." });

    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const ownedStore = unique('owned');
    await ingestDocument(server.orm.em.fork(), services.index, null, {
      work: services.work,
      store: ownedStore,
      owner: owner.accountId,
      name: 'private-notes.md',
      bytes: text('--- PAGE 1 ---\nThe private notes explain the osmosis experiment with potato strips.'),
      metadata: { subject: 'Science', grade: '9', category: 'short-notes', language: 'english' },
    });
    const mine = await ask({ query: 'osmosis potato strips', store_id: ownedStore }, owner.key);
    expect(mine.response.status).toBe(200);
    expect(mine.data!.citations[0]?.document_name).toBe('private-notes.md');
    const theirs = await ask({ query: 'osmosis potato strips', store_id: ownedStore });
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toEqual({ detail: `Store '${ownedStore}' was not found.` });
  });

  test('a custom store needs a plan with custom knowledge bases: 403 otherwise', async () => {
    const owner = await newKey(server.orm, { plan: 'pro' });
    const store = unique('pro-store');
    await ingestDocument(server.orm.em.fork(), services.index, null, {
      work: services.work,
      store,
      owner: owner.accountId,
      name: 'notes.md',
      bytes: text('--- PAGE 1 ---\nLenses bend light by refraction.'),
      metadata: { subject: 'Science', grade: '9', category: 'short-notes', language: 'english' },
    });
    const res = await ask({ query: 'How do lenses bend light?', store_id: store }, owner.key);
    expect(res.response.status).toBe(403);
    expect(res.error).toEqual({
      error: { code: 'forbidden', message: 'This API key does not have permission to access this resource: custom knowledge bases are not included in the Pro plan.' },
    });
  });

  test('a chunk spanning two pages lists both and keeps the page marker', async () => {
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const store = unique('span');
    await ingestDocument(server.orm.em.fork(), services.index, null, {
      work: services.work,
      store,
      owner: owner.accountId,
      name: 'short.md',
      bytes: text('--- PAGE 1 ---\nMagnets attract iron filings strongly.\n--- PAGE 2 ---\nMagnets have a north pole and a south pole.'),
      metadata: { subject: 'Science', grade: '6', category: 'tutorial', language: 'english' },
    });
    const res = await ask({ query: 'magnets poles iron', store_id: store }, owner.key);
    expect(res.data!.citations[0]).toMatchObject({ document_name: 'short.md', pages: [1, 2], chunk_text: expect.stringContaining('--- PAGE 2 ---') });
  });

  test('re-ingesting a document replaces its chunks instead of adding to them', async () => {
    const owner = await newKey(server.orm, { plan: 'enterprise' });
    const store = unique('reingest');
    const doc = (body: string) => ({
      store,
      owner: owner.accountId,
      name: 'notes.md',
      bytes: text(`--- PAGE 1 ---\n${body}`),
      metadata: { subject: 'Science', grade: '8', category: 'short-notes' as const, language: 'english' as const },
      work: services.work,
    });
    const first = await ingestDocument(server.orm.em.fork(), services.index, null, doc('Volcanoes erupt molten lava called magma.'));
    expect(first.replaced).toBe(false);
    const second = await ingestDocument(server.orm.em.fork(), services.index, null, doc('Earthquakes shake the ground along fault lines.'));
    expect(second).toMatchObject({ replaced: true, documentId: first.documentId });
    const old = await ask({ query: 'volcanoes magma lava', store_id: store }, owner.key);
    expect(old.data!.citations).toEqual([]);
    const fresh = await ask({ query: 'earthquakes fault lines', store_id: store }, owner.key);
    expect(fresh.data!.citations).toHaveLength(1);
  });
});

describe('models and plans', () => {
  test('a model outside the plan is 403 naming the model, the plan and the allowed models', async () => {
    const free = await newKey(server.orm, { plan: 'free' });
    const res = await ask({ query: 'photosynthesis', model: 'svcai-thinking' }, free.key);
    expect(res.response.status).toBe(403);
    expect(res.error).toEqual({
      error: { code: 'forbidden', message: "Model 'svcai-thinking' is not allowed on the Free plan. Allowed models: svcai-fast." },
    });
  });

  test('Enterprise may use svcai-thinking; the default model is the plan\'s first and is recorded with tokens and cost', async () => {
    const enterprise = await newKey(server.orm, { plan: 'enterprise' });
    expect((await ask({ query: 'photosynthesis', model: 'svcai-thinking' }, enterprise.key)).response.status).toBe(200);
    expect((await ask({ query: 'photosynthesis' }, enterprise.key)).response.status).toBe(200);
    const rows = await server.orm.em.fork().execute<{ model: string; tokens: number; cost_usd: string }[]>(
      "select model, tokens, cost_usd from request_log where api_key_id = ? and endpoint = '/api/v1/dev/query' order by id",
      [enterprise.keyId],
    );
    expect(rows.map((r) => r.model)).toEqual(['svcai-thinking', 'svcai-fast']);
    for (const r of rows) {
      expect(r.tokens).toBeGreaterThan(50);
      expect(Number(r.cost_usd)).toBeGreaterThan(0);
    }
    const usage = await apiClient(server.url, enterprise.key).GET('/api/v1/dev/usage');
    expect(usage.data).toMatchObject({ total_requests: 3, total_tokens: rows[0]!.tokens + rows[1]!.tokens });
  });
});

describe('bad requests get the documented errors and still count', () => {
  // bodies as written, most of which the typed client could not send
  const post = (body: string, contentType = 'application/json', apiKey = key) =>
    sendRaw(server.url, 'query', { key: apiKey, method: 'POST', headers: { 'Content-Type': contentType }, body });

  test.each([
    ['{"query": "x", "extra": true}', 400, "Unknown field 'extra'"],
    ['{"query": "x", "filters": {"language": "french"}}', 400, "Field 'filters.language' must be one of"],
    ['{"query": "x", "filters": {"grade": 10}}', 400, "Field 'filters.grade' must be of type string"],
    // the index trims a filter's value: a padded one would match the unpadded value, not exactly
    ['{"query": "x", "filters": {"subject": "Science "}}', 400, "Field 'filters.subject' must not contain control characters, nor start or end with a space."],
    ['{"query": "x", "store_id": "bad store!"}', 400, "Field 'store_id' must be 1 to 64 letters, digits, underscores or hyphens."],
    ['{"query": "   "}', 400, "Field 'query' must contain at least one non-whitespace character."],
    ['{"store_id": "default"}', 400, "Field 'query' is required."],
    ['{"query": "x", "attachments": [{"url":"https://a.lk/1"},{"url":"https://a.lk/2"},{"url":"https://a.lk/3"},{"url":"https://a.lk/4"},{"url":"https://a.lk/5"},{"url":"https://a.lk/6"}]}', 400, 'at most 5 are allowed'],
    ['{"query": ', 400, 'not valid JSON'],
    ['[1, 2]', 400, 'must be a JSON object'],
    ['{"query": "photosynthesis", "filters": {"subject": "\\ud800"}}', 400, "Field 'filters.subject' contains an unpaired surrogate"],
    ['{"query": "\\udfff x"}', 400, "Field 'query' contains an unpaired surrogate"],
    ['{"query": "x", "attachments": [{"url": "https://example.com/a\\u0000.pdf"}]}', 400, "Field 'attachments.0.url' contains a NUL character (U+0000)"],
  ])('%s -> %i', async (body, status, detail) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(detailOf(res.body)).toContain(detail);
  });

  test('a body that is not what its Content-Encoding says is 400', async () => {
    for (const encoding of ['gzip', 'deflate']) {
      const res = await sendRaw(server.url, 'query', {
        key,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        body: '{"query":"x"}',
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: `The request body could not be decompressed as ${encoding}.` });
    }
  });

  test('a body that is not JSON is 415; one over 1 MiB is 413', async () => {
    const wrongType = await post('query=photosynthesis', 'application/x-www-form-urlencoded');
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toEqual({ detail: "Unsupported Content-Type 'application/x-www-form-urlencoded'. This operation accepts application/json." });
    const big = await ask({ query: 'x'.repeat(1_100_000) });
    expect(big.response.status).toBe(413);
    expect(big.error).toEqual({ detail: 'Request body is larger than the limit of 1048576 bytes.' });
  });

  test('refused bodies count toward usage and carry the rate-limit headers', async () => {
    const fresh = await newKey(server.orm, { plan: 'free' });
    const res = await post('{"query": "x", "extra": 1}', 'application/json', fresh.key);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('9');
    const usage = await apiClient(server.url, fresh.key).GET('/api/v1/dev/usage');
    expect(usage.data).toMatchObject({ total_requests: 2, by_endpoint: { '/api/v1/dev/query': 1, '/api/v1/dev/usage': 1 } });
  });
});

describe("the default store's documents as the documents operations list them", () => {
  test('have consistent timings: created, then processing started, then finished and updated; a re-ingestion keeps created_at', async () => {
    const list = async () => {
      const res = await sendRaw(server.url, 'listDocuments', { key, path: { kb_id: 'default' }, query: { limit: '100' } });
      expect(res.status).toBe(200);
      return (res.body as Schemas['KnowledgeBaseDocumentList']).documents;
    };
    const name = `timings-${unique('notes')}.md`;
    const doc = (body: string) => ({
      store: 'default',
      name,
      bytes: text(`--- PAGE 1 ---\n${body}`),
      metadata: { subject: 'Science', grade: '8', category: 'short-notes' as const, language: 'english' as const },
      work: services.work,
    });
    await ingestDocument(server.orm.em.fork(), services.index, null, doc('A first version of the timing notes.'));
    const first = (await list()).find((d) => d.name === name)!;
    await ingestDocument(server.orm.em.fork(), services.index, null, doc('A second version of the timing notes.'));
    const documents = await list();
    const second = documents.find((d) => d.name === name)!;
    expect(second.created_at).toBe(first.created_at);
    expect(Date.parse(second.processing_started_at!)).toBeGreaterThan(Date.parse(first.updated_at));
    // the samples ingested before the tests and this one alike
    for (const d of documents) {
      const [created, started, finished, updated] = [d.created_at, d.processing_started_at, d.finished_at, d.updated_at].map((t) => (t === null ? Number.NaN : Date.parse(t)));
      expect({ name: d.name, state: d.state, ordered: created! <= started! && started! <= finished! && finished! <= updated! }).toEqual({ name: d.name, state: 'ready', ordered: true });
    }
  });
});
