import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { sentenceSpans } from '../../src/domain/text/sentences.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { apiClient, expectDocumented, sendRaw, type Schemas } from './support/contract.js';
import { EventReader, type SseEvent } from './support/event-stream.js';
import { messageText, startFakeOpenAi, type FakeOpenAi } from './support/fake-openai.js';
import { waitsForLock } from './support/locks.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Answers as Server-Sent Events (Accept: text/event-stream), from the offline answerer and from a
// provider that streams over the OpenAI protocol, through the real server, PostgreSQL and Weaviate.
let offline: TestServer;
let withProvider: TestServer;
let fake: FakeOpenAi;
let owner: { key: string; keyId: string; accountId: string };
const STORE = `stream-${Math.random().toString(36).slice(2, 10)}`;
const QUESTION = 'Why do volcanoes erupt?';
const SSE = 'text/event-stream';

beforeAll(async () => {
  fake = await startFakeOpenAi();
  const services: Services = testServices();
  offline = await startServer({ services });
  withProvider = await startServer({
    services: testServices({}, {
      OPENAI_API_KEY: 'test-provider-key',
      OPENAI_BASE_URL: fake.url,
      OPENAI_MODEL_FAST: 'provider-fast-1',
      // far longer than any wait below: a provider call that ends did not end by its own timeout
      PROVIDER_TIMEOUT_MS: '300000',
    }),
    streamHeartbeatMs: 300,
  });
  owner = await newKey(offline.orm, { plan: 'enterprise' });
  for (const [name, body] of [
    ['volcano.md', 'Volcanoes erupt when magma rises through the crust. The magma collects in a chamber below the volcano.'],
    ['rain.md', 'Rain forms when water vapour condenses into droplets in clouds.'],
  ]) {
    await ingestDocument(offline.orm.em.fork(), services.index, null, {
      work: services.work,
      store: STORE,
      owner: owner.accountId,
      name: name!,
      bytes: new TextEncoder().encode(`--- PAGE 1 ---\n${body}`),
      metadata: { subject: 'Geography', grade: '8', category: 'short-notes', language: 'english' },
    });
  }
}, 180_000);

/** Posts a question to the server's query operation with the given Accept (none when undefined) and request id. */
function post(server: TestServer, accept: string | undefined, body: Partial<Schemas['QueryRequest']> = {}, init: { key?: string; requestId?: string; signal?: AbortSignal } = {}) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-API-Key': init.key ?? owner.key };
  if (accept !== undefined) headers.Accept = accept;
  if (init.requestId) headers['X-Request-Id'] = init.requestId;
  return fetch(`${server.url}/api/v1/dev/query`, { method: 'POST', headers, body: JSON.stringify({ query: QUESTION, store_id: STORE, ...body }), signal: init.signal });
}

const dataOf = (event: SseEvent | undefined): unknown => JSON.parse(event!.data);
const joinedText = (events: SseEvent[]) => events.filter((e) => e.event === 'delta').map((e) => (dataOf(e) as Schemas['QueryDeltaData']).text).join('');

/** The request's log row once its outcome is recorded (the row is completed after the response ends). */
async function logRow(server: TestServer, requestId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rows = await server.orm.em.fork().execute<{ status: number | null; model: string | null; tokens: number; cost_usd: string | number }[]>(
      'select status, model, tokens, cost_usd from request_log where request_id = ?',
      [requestId],
    );
    if (rows.length > 1) throw new Error(`${rows.length} log rows for one request`);
    if (rows[0]?.status != null || Date.now() > deadline) return rows[0];
    await new Promise((r) => setTimeout(r, 100));
  }
}

const queries = async (server: TestServer) => (await apiClient(server.url, owner.key).GET('/api/v1/dev/usage')).data!.by_endpoint['/api/v1/dev/query'] ?? 0;

describe('offline answers as events', () => {
  test('citations, then the answer a sentence at a time, then usage: the same answer as JSON, counted once with its figures', async () => {
    const json = await apiClient(offline.url, owner.key).POST('/api/v1/dev/query', { body: { query: QUESTION, store_id: STORE } });
    expect(json.response.status).toBe(200);
    const before = await queries(offline);
    const requestId = randomUUID();
    const res = await sendRaw(offline.url, 'query', {
      key: owner.key,
      headers: { 'Content-Type': 'application/json', Accept: SSE, 'X-Request-Id': requestId },
      body: JSON.stringify({ query: QUESTION, store_id: STORE }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('vary')).toContain('Accept');
    expect(res.headers.get('x-ratelimit-limit')).toBe('200');
    // a stream's headers leave before its work: no timings
    expect(res.headers.get('server-timing')).toBeNull();

    const events = res.body as SseEvent[];
    expect(events.map((e) => e.event)).toEqual(['citations', ...events.slice(1, -1).map(() => 'delta'), 'usage']);
    expect(dataOf(events[0])).toEqual({ citations: json.data!.citations, has_citations: json.data!.has_citations });
    expect(json.data!.citations.map((c) => c.document_name)).toEqual(['volcano.md']);
    // one event per sentence, and together exactly the JSON answer
    const deltas = events.filter((e) => e.event === 'delta');
    expect(deltas.length).toBe(sentenceSpans(json.data!.answer).length);
    expect(deltas.length).toBeGreaterThan(1);
    expect(joinedText(events)).toBe(json.data!.answer);

    const usage = dataOf(events.at(-1)) as Schemas['QueryUsageData'];
    expect(usage.model).toBe('svcai-fast');
    expect(usage.tokens).toBeGreaterThan(0);
    const row = await logRow(offline, requestId);
    expect(row).toMatchObject({ status: 200, model: 'svcai-fast', tokens: usage.tokens });
    // to the millionth, as the log keeps it and GET /usage reports it, without float noise
    expect(usage.cost_usd).toBe(Number(row!.cost_usd));
    expect(events.at(-1)!.data).toMatch(/"cost_usd":\d+(\.\d{1,6})?}$/);
    expect(await queries(offline)).toBe(before + 1);
  });

  test.each([
    [SSE, SSE],
    ['application/json', 'application/json'],
    [undefined, 'application/json'],
    ['*/*', 'application/json'],
    ['text/event-stream;q=0.5, application/json', 'application/json'],
    ['application/json;q=0.5, text/event-stream', SSE],
    ['text/event-stream;q=0, */*', 'application/json'],
    // a tie is JSON's, whichever the header lists first
    ['text/event-stream, application/json', 'application/json'],
    ['text/event-stream;q=0.9, application/json;q=0.9', 'application/json'],
    ['text/html', 'application/json'],
    // a range naming the charset the stream is sent in
    ['text/event-stream; charset=utf-8', SSE],
    ['text/event-stream; charset=iso-8859-1', 'application/json'],
    ['application/json, text/event-stream; charset=utf-8', 'application/json'],
  ])('Accept: %p answers %s', async (accept, mediaType) => {
    const res = await post(offline, accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')?.split(';')[0]).toBe(mediaType);
    const text = await res.text();
    if (mediaType === SSE) expect(text.startsWith('event: citations\n')).toBe(true);
    else expect(JSON.parse(text)).toMatchObject({ has_citations: true });
  });

  test('the multipart operation streams the same way', async () => {
    const form = new FormData();
    form.append('query', QUESTION);
    form.append('store_id', STORE);
    const res = await sendRaw(offline.url, 'queryMultipart', { key: owner.key, headers: { Accept: SSE }, body: form });
    expect(res.status).toBe(200);
    const events = res.body as SseEvent[];
    expect(events[0]!.event).toBe('citations');
    expect(events.at(-1)!.event).toBe('usage');
    expect(joinedText(events)).toContain('Volcanoes erupt when magma rises through the crust.');
  });

  test('failures before the stream starts keep their documented status and JSON body', async () => {
    const sse = { 'Content-Type': 'application/json', Accept: SSE };
    const body = (over: Record<string, unknown> = {}) => JSON.stringify({ query: QUESTION, store_id: STORE, ...over });
    const free = await newKey(offline.orm, { plan: 'free' });

    const cases = [
      [401, { headers: sse, body: body() }, { error: { code: 'missing_api_key', message: expect.any(String) } }],
      [400, { key: owner.key, headers: sse, body: body({ qurey: 'typo' }) }, { detail: expect.stringContaining('qurey'), errors: expect.any(Array) }],
      [404, { key: owner.key, headers: sse, body: body({ store_id: 'no-such-store' }) }, { detail: expect.any(String) }],
      [403, { key: free.key, headers: sse, body: body({ model: 'svcai-thinking' }) }, { error: { code: 'forbidden', message: expect.stringContaining('svcai-thinking') } }],
    ] as const;
    for (const [status, init, expected] of cases) {
      const res = await sendRaw(offline.url, 'query', init);
      expect([status, res.headers.get('content-type')]).toEqual([status, 'application/json; charset=utf-8']);
      expect(res.body).toEqual(expected);
    }

    // the Free plan's 10 a minute, used up (one by the 403 above)
    const client = apiClient(offline.url, free.key);
    for (let i = 0; i < 9; i++) expect((await client.GET('/api/v1/dev/plans')).response.status).toBe(200);
    const limited = await sendRaw(offline.url, 'query', { key: free.key, headers: sse, body: body() });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(limited.body).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.any(String) } });
  });
});

describe('provider answers as events', () => {
  test('each piece is passed on as the provider writes it; usage is what the provider reported', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const answer = 'Magma rises through the crust [1], and the volcano erupts.';
    fake.setChat(() => ({ text: answer, hold }));
    const requestId = randomUUID();
    const res = await post(withProvider, SSE, {}, { requestId });
    expect(res.status).toBe(200);
    const reader = new EventReader(res);

    const citations = dataOf(await reader.next()) as Schemas['QueryCitationsData'];
    // every passage the model was given, in its numbering
    expect(citations.citations.map((c) => c.document_name)).toContain('volcano.md');
    const prompt = messageText(fake.chatRequests.at(-1)!.messages[1]!.content);
    citations.citations.forEach((c, i) => expect(prompt).toContain(`[${i + 1}] ${c.document_name}`));
    expect(prompt).not.toContain(`[${citations.citations.length + 1}]`);
    // the first piece arrives while the provider still holds back the rest: nothing is buffered
    const first = await reader.next();
    expect(first).toEqual({ event: 'delta', data: JSON.stringify({ text: 'Magma' }) });
    release();

    const rest = await reader.remaining();
    const events = [{ event: 'citations', data: JSON.stringify(citations) }, first!, ...rest];
    expectDocumented({ status: res.status, headers: res.headers, body: events }, 'query');
    expect(rest.at(-1)!.event).toBe('usage');
    expect(joinedText(events)).toBe(answer);

    const request = fake.chatRequests.at(-1)!;
    expect(request).toMatchObject({ model: 'provider-fast-1', stream: true, stream_options: { include_usage: true } });
    const reported = Math.ceil(request.messages.map((m) => messageText(m.content)).join(' ').length / 4) + Math.ceil(answer.length / 4);
    expect(dataOf(rest.at(-1))).toMatchObject({ model: 'svcai-fast', tokens: reported });
    const row = await logRow(withProvider, requestId);
    expect(row).toMatchObject({ status: 200, model: 'svcai-fast', tokens: reported });
    expect(rest.at(-1)!.data).toMatch(/"cost_usd":\d+(\.\d{1,6})?}$/);
    expect((dataOf(rest.at(-1)) as Schemas['QueryUsageData']).cost_usd).toBe(Number(row!.cost_usd));
  });

  test("the stream ends only once its outcome is recorded: a GET /usage as it ends counts the answer's tokens", async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    fake.setChat(() => ({ text: 'Magma rises through the crust [1].', hold }));
    const tokensBefore = (await apiClient(withProvider.url, owner.key).GET('/api/v1/dev/usage')).data!.total_tokens;
    const requestId = randomUUID();
    const reader = new EventReader(await post(withProvider, SSE, {}, { requestId }));
    expect((await reader.next())?.event).toBe('citations');
    let ended = false;
    let rest: Promise<SseEvent[]> | undefined;
    // the request's log row held (it was written at admission), so that its outcome waits
    await withProvider.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select id from request_log where request_id = ? for update', [requestId]);
      release();
      rest = reader.remaining().then((events) => ((ended = true), events));
      await waitsForLock(withProvider.orm, '%update request_log%', 'the outcome');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ended).toBe(false);
    });
    const usage = dataOf((await rest!).at(-1)) as Schemas['QueryUsageData'];
    expect(usage.tokens).toBeGreaterThan(0);
    const [row] = await withProvider.orm.em.fork().execute<{ status: number | null; tokens: number }[]>('select status, tokens from request_log where request_id = ?', [requestId]);
    expect(row).toEqual({ status: 200, tokens: usage.tokens });
    // the GET /usage is the only other request of the key meanwhile: it counts no tokens
    expect((await apiClient(withProvider.url, owner.key).GET('/api/v1/dev/usage')).data!.total_tokens).toBe(tokensBefore + usage.tokens);
  });

  test('a database slow to take the outcome does not hold a stream whose events are all sent past 5 s; the outcome follows', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    fake.setChat(() => ({ text: 'Magma rises through the crust [1].', hold }));
    const requestId = randomUUID();
    const reader = new EventReader(await post(withProvider, SSE, {}, { requestId }));
    expect((await reader.next())?.event).toBe('citations');
    await withProvider.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select id from request_log where request_id = ? for update', [requestId]);
      release();
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      // bounded, so that a stream that never ends fails the test and releases the row
      const rest = await Promise.race([
        reader.remaining(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the stream did not end while its outcome waited')), 20_000))),
      ]).finally(() => clearTimeout(timer));
      expect(rest.at(-1)?.event).toBe('usage');
      // ended while the row is still held: after the 5 s wait, well before a proxy's idle timeout
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_500);
      expect(Date.now() - started).toBeLessThan(30_000);
    });
    expect(await logRow(withProvider, requestId)).toMatchObject({ status: 200 });
  }, 60_000);

  test('a quiet provider: comment lines keep the stream open; the text is trimmed as a whole answer is', async () => {
    fake.setChat(() => ({ text: 'Magma rises [1].', pieces: ['\n Magma', ' rises [1]. ', ' \n'], pauseMs: 1_500 }));
    const res = await post(withProvider, SSE);
    const reader = new EventReader(res);
    const events = await reader.remaining();
    expect(joinedText(events)).toBe('Magma rises [1].');
    expect(reader.text).toMatch(/\n\n: keep-alive\n\n/);
    expectDocumented({ status: res.status, headers: res.headers, body: events }, 'query');
  });

  test('a provider failing mid-answer: a final error event with the 502 body; recorded as 502 and counted once', async () => {
    fake.setChat(() => ({ text: 'overloaded', pieces: ['Magma', ' rises', ' and'], failAfter: 2 }));
    const before = await queries(withProvider);
    const requestId = randomUUID();
    const res = await sendRaw(withProvider.url, 'query', {
      key: owner.key,
      headers: { 'Content-Type': 'application/json', Accept: SSE, 'X-Request-Id': requestId },
      body: JSON.stringify({ query: QUESTION, store_id: STORE }),
    });
    expect(res.status).toBe(200);
    const events = res.body as SseEvent[];
    expect(events.map((e) => e.event)).toEqual(['citations', 'delta', 'delta', 'error']);
    expect(dataOf(events.at(-1))).toEqual({ detail: 'The model provider failed to answer in time. The request was counted; please retry.' });
    expect(await logRow(withProvider, requestId)).toMatchObject({ status: 502, tokens: 0 });
    expect(await queries(withProvider)).toBe(before + 1);
  });

  test('a provider refusing the request before any text: 502 with the JSON body', async () => {
    fake.setChat(() => ({ text: 'overloaded', status: 500 }));
    const res = await sendRaw(withProvider.url, 'query', {
      key: owner.key,
      headers: { 'Content-Type': 'application/json', Accept: SSE },
      body: JSON.stringify({ query: QUESTION, store_id: STORE }),
    });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: expect.stringContaining('model provider') });
  });

  test('a client that goes away mid-answer stops the provider call; recorded once, as 499', async () => {
    // held until the connection closes: only the client going away can end this answer
    fake.setChat(() => ({ text: 'Magma rises [1] and never stops.', hold: new Promise<void>(() => undefined) }));
    const streams = fake.streams.length;
    const requestId = randomUUID();
    const abort = new AbortController();
    const res = await post(withProvider, SSE, {}, { requestId, signal: abort.signal });
    const reader = new EventReader(res);
    expect((await reader.next())!.event).toBe('citations');
    expect(await reader.next()).toEqual({ event: 'delta', data: JSON.stringify({ text: 'Magma' }) });
    abort.abort();

    expect(fake.streams.length).toBe(streams + 1);
    const ended = await Promise.race([fake.streams.at(-1)!.ended, new Promise((r) => setTimeout(() => r('still open after 60 s'), 60_000).unref())]);
    expect(ended).toBe('closed');
    expect(await logRow(withProvider, requestId)).toMatchObject({ status: 499 });
  });

  test('a client of a JSON answer that goes away stops the provider call too; recorded once, as 499', async () => {
    // held until the connection closes: only the client going away can end this answer
    fake.setChat(() => ({ text: 'Magma rises [1].', hold: new Promise<void>(() => undefined) }));
    const held = fake.held.length;
    const requestId = randomUUID();
    const abort = new AbortController();
    const res = post(withProvider, 'application/json', {}, { requestId, signal: abort.signal }).catch((error: unknown) => error);
    const deadline = Date.now() + 60_000;
    while (fake.held.length === held && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    expect(await res).toMatchObject({ name: 'AbortError' });

    expect(fake.held.length).toBe(held + 1);
    const ended = await Promise.race([fake.held.at(-1)!.ended, new Promise((r) => setTimeout(() => r('still open after 60 s'), 60_000).unref())]);
    expect(ended).toBe('closed');
    expect(await logRow(withProvider, requestId)).toMatchObject({ status: 499 });
  });
});
