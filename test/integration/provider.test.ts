import { beforeAll, describe, expect, test } from '@jest/globals';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { apiClient, type Schemas } from './support/contract.js';
import { messageText, startFakeOpenAi, type FakeOpenAi } from './support/fake-openai.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// The OpenAI path against a local server that speaks the OpenAI protocol.
let fake: FakeOpenAi;
let services: Services;
let server: TestServer;
let owner: { key: string; keyId: string; accountId: string };
const STORE = `provider-${Math.random().toString(36).slice(2, 10)}`;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  services = testServices({}, {
    OPENAI_API_KEY: 'test-provider-key',
    OPENAI_BASE_URL: fake.url,
    OPENAI_MODEL_FAST: 'provider-fast-1',
    OPENAI_MODEL_THINKING: 'provider-thinking-1',
    EMBEDDINGS_BASE_URL: fake.url,
    EMBEDDINGS_API_KEY: 'test-provider-key',
    EMBEDDINGS_MODEL: 'provider-embed-1',
    PROVIDER_TIMEOUT_MS: '1000',
  });
  server = await startServer({ services });
  owner = await newKey(server.orm, { plan: 'enterprise' });
  for (const [name, body] of [
    ['volcano.md', 'Volcanoes erupt when magma rises through the crust.'],
    ['rain.md', 'Rain forms when water vapour condenses into droplets in clouds.'],
  ]) {
    await ingestDocument(server.orm.em.fork(), services.index, services.embedder, {
      work: services.work,
      store: STORE,
      owner: owner.accountId,
      name: name!,
      bytes: new TextEncoder().encode(`--- PAGE 1 ---\n${body}`),
      metadata: { subject: 'Geography', grade: '8', category: 'short-notes', language: 'english' },
    });
  }
});

const ask = (body: Schemas['QueryRequest']) => apiClient(server.url, owner.key).POST('/api/v1/dev/query', { body: { store_id: STORE, ...body } });

describe('answers from an OpenAI-compatible provider', () => {
  test('ingestion stores embeddings; the query is hybrid; the answer is generated from the retrieved chunks only', async () => {
    expect(fake.embeddingRequests.some((r) => r.model === 'provider-embed-1' && r.inputType === 'passage' && r.input.some((t) => t.includes('magma')))).toBe(true);
    fake.setChat(() => ({ text: 'Magma rising through the crust makes volcanoes erupt [1].' }));
    const res = await ask({ query: 'Why do volcanoes erupt?' });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ answer: 'Magma rising through the crust makes volcanoes erupt [1].', has_citations: true });
    expect(res.data!.citations.map((c) => c.document_name)).toEqual(['volcano.md']);
    const request = fake.chatRequests.at(-1)!;
    expect(request.model).toBe('provider-fast-1');
    expect(messageText(request.messages[0]!.content)).toMatch(/only the numbered passages/);
    expect(messageText(request.messages[1]!.content)).toContain('Volcanoes erupt when magma rises through the crust.');
    expect(fake.embeddingRequests.at(-1)).toMatchObject({ input: ['Why do volcanoes erupt?'], inputType: 'query' });
    expect(res.response.headers.get('X-Retrieval-Mode')).toBe('hybrid');
  });

  test('the prompt numbers the passages; the answer\'s marks are renumbered to the citations, which keep rank order', async () => {
    fake.setChat(() => ({ text: 'Droplets condense in clouds [2]; magma rises [1][2].' }));
    const res = await ask({ query: 'Why do volcanoes erupt and how does rain form in clouds?' });
    expect(res.response.status).toBe(200);
    const prompt = messageText(fake.chatRequests.at(-1)!.messages[1]!.content);
    const numbered = [...prompt.matchAll(/^\[(\d)\] (\S+), page 1$/gm)].map((m) => [m[1], m[2]]);
    expect(numbered).toEqual([['1', expect.any(String)], ['2', expect.any(String)]]);
    expect(res.data!.citations.map((c) => c.document_name)).toEqual(numbered.map(([, name]) => name));
    expect(res.data!.answer).toBe('Droplets condense in clouds [2]; magma rises [1][2].');

    fake.setChat(() => ({ text: 'Droplets condense in clouds [2].' }));
    const second = await ask({ query: 'Why do volcanoes erupt and how does rain form in clouds?' });
    // the only citation is the prompt's second passage, and the answer points at it as [1]
    expect(second.data).toMatchObject({ answer: 'Droplets condense in clouds [1].', citations: [{ document_name: numbered[1]![1] }] });
  });

  test('svcai-thinking maps to its configured provider model; provider-reported tokens go into usage', async () => {
    fake.setChat(() => ({ text: 'Clouds hold droplets [2].' }));
    const before = fake.chatRequests.length;
    const res = await ask({ query: 'How does rain form in clouds?', model: 'svcai-thinking' });
    expect(res.response.status).toBe(200);
    expect(fake.chatRequests[before]!.model).toBe('provider-thinking-1');
    const [row] = await server.orm.em.fork().execute<{ model: string; tokens: number }[]>(
      'select model, tokens from request_log where api_key_id = ? order by id desc limit 1',
      [owner.keyId],
    );
    const prompt = fake.chatRequests[before]!.messages.map((m) => messageText(m.content)).join(' ');
    expect(row).toEqual({ model: 'svcai-thinking', tokens: Math.ceil(prompt.length / 4) + Math.ceil('Clouds hold droplets [2].'.length / 4) });
  });

  test('a provider error is 502 {detail} and the request counts once', async () => {
    fake.setChat(() => ({ text: 'overloaded', status: 500 }));
    // this file's own store: the shared `default` store may still be empty, and then no provider is asked
    const client = apiClient(server.url, owner.key);
    const queries = async () => (await client.GET('/api/v1/dev/usage')).data!.by_endpoint['/api/v1/dev/query'] ?? 0;
    const before = await queries();
    const res = await ask({ query: 'Why do volcanoes erupt?' });
    expect(res.response.status).toBe(502);
    expect(res.error).toEqual({ detail: expect.stringContaining('model provider') });
    expect(await queries()).toBe(before + 1);
  });

  test('a provider that does not answer in time is 502', async () => {
    fake.setChat(() => ({ text: 'late', delayMs: 5_000 }));
    const started = Date.now();
    const res = await ask({ query: 'Why do volcanoes erupt?' });
    expect(res.response.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(4_900);
  });
});
