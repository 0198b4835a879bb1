import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey } from './support/accounts.js';
import { apiClient, type Schemas } from './support/contract.js';
import { startServer, type TestServer } from './support/server.js';
import { revokeKey } from '../../src/domain/keys/keys.js';

let server: TestServer;
const plans = (key?: string, headers: Record<string, string> = {}) => apiClient(server.url, key).GET('/api/v1/dev/plans', { headers });

beforeAll(async () => {
  server = await startServer();
});

function errorOf(body: unknown): Schemas['Error']['error'] {
  return (body as Schemas['Error']).error;
}

describe('authentication', () => {
  test('no X-API-Key header is 401 missing_api_key', async () => {
    const { response, error } = await plans();
    expect(response.status).toBe(401);
    expect(errorOf(error).code).toBe('missing_api_key');
    expect(errorOf(error).message).toMatch(/required/);
  });

  test('Authorization: Bearer alone is 401 missing_api_key, even with a valid key', async () => {
    const { key } = await newKey(server.orm);
    const { response, error } = await plans(undefined, { Authorization: `Bearer ${key}` });
    expect(response.status).toBe(401);
    expect(errorOf(error).code).toBe('missing_api_key');
  });

  test.each([
    ['too short', 'svc_abc123'],
    ['not alphanumeric', `svc_${'a'.repeat(31)}-`],
    ['unknown prefix', `sk_live_${'a'.repeat(40)}`],
    ['well formed but unknown', `svc_${'Z'.repeat(40)}`],
  ])('a key that is %s is 401 authentication_failed', async (_label, key) => {
    const { response, error } = await plans(key);
    expect(response.status).toBe(401);
    expect(errorOf(error).code).toBe('authentication_failed');
    expect(errorOf(error).message).toMatch(/invalid api key/i);
  });

  test('a test key never works on a live server', async () => {
    const { key } = await newKey(server.orm, { environment: 'test' });
    expect(key.startsWith('sk_test_')).toBe(true);
    const { response, error } = await plans(key);
    expect(response.status).toBe(401);
    expect(errorOf(error).code).toBe('authentication_failed');
  });

  test('a live key never works on a test server, and a test key does', async () => {
    const testServer = await startServer({ environment: 'test' });
    try {
      const live = await newKey(server.orm);
      const testKey = await newKey(server.orm, { environment: 'test' });
      expect((await apiClient(testServer.url, live.key).GET('/api/v1/dev/plans')).response.status).toBe(401);
      expect((await apiClient(testServer.url, testKey.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    } finally {
      await testServer.close();
    }
  });

  test('a revoked key is 401 api_key_revoked', async () => {
    const { key, keyId } = await newKey(server.orm);
    expect((await plans(key)).response.status).toBe(200);
    await revokeKey(server.orm.em.fork(), keyId, new Date());
    const { response, error } = await plans(key);
    expect(response.status).toBe(401);
    expect(errorOf(error).code).toBe('api_key_revoked');
  });

  test('401 responses carry no rate-limit headers and do not count', async () => {
    const { response } = await plans(`svc_${'Q'.repeat(40)}`);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('key restrictions', () => {
  test('a read-only key may GET but a POST is 403 forbidden and not counted', async () => {
    const { key } = await newKey(server.orm, { readOnly: true });
    const client = apiClient(server.url, key);
    const ok = await client.GET('/api/v1/dev/plans');
    expect(ok.response.status).toBe(200);
    const post = await client.POST('/api/v1/dev/query', { body: { query: 'What is photosynthesis?' } });
    expect(post.response.status).toBe(403);
    expect(errorOf(post.error).code).toBe('forbidden');
    expect(errorOf(post.error).message).toMatch(/read-only/);
    // the refused POST did not count: one GET so far, this GET is the second
    const usage = await client.GET('/api/v1/dev/usage');
    expect(usage.data?.total_requests).toBe(2);
  });

  test('an IP allow-list admits listed addresses and refuses others', async () => {
    const allowed = await newKey(server.orm, { allowedIps: ['127.0.0.0/8'] });
    expect((await plans(allowed.key)).response.status).toBe(200);
    const other = await newKey(server.orm, { allowedIps: ['203.0.113.0/24', '2001:db8::/32'] });
    const { response, error } = await plans(other.key);
    expect(response.status).toBe(403);
    expect(errorOf(error).code).toBe('forbidden');
    expect(errorOf(error).message).toContain('127.0.0.1');
    expect(response.headers.get('x-ratelimit-limit')).toBe('10');
  });

  test('behind a trusted proxy only the address the proxy appended counts', async () => {
    const proxied = await startServer({ trustProxy: true });
    try {
      const { key } = await newKey(proxied.orm, { allowedIps: ['203.0.113.0/24'] });
      const viaProxy = (forwardedFor: string) => apiClient(proxied.url, key).GET('/api/v1/dev/plans', { headers: { 'X-Forwarded-For': forwardedFor } });
      // the client wrote the first entry itself; the proxy appended the real address last
      expect((await viaProxy('203.0.113.5, 198.51.100.9')).response.status).toBe(403);
      expect((await viaProxy('198.51.100.9, 203.0.113.5')).response.status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  test('an account whose subscription was cancelled is 403 forbidden', async () => {
    const { key } = await newKey(server.orm, { state: 'cancelled' });
    const { response, error } = await plans(key);
    expect(response.status).toBe(403);
    expect(errorOf(error).code).toBe('forbidden');
    expect(errorOf(error).message).toMatch(/no active subscription/);
  });
});

describe('request ids and logs', () => {
  test('every response has an X-Request-Id; a well-formed client id is echoed', async () => {
    const generated = await plans();
    expect(generated.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await plans(undefined, { 'X-Request-Id': 'client-req.42' });
    expect(echoed.response.headers.get('x-request-id')).toBe('client-req.42');
    const replaced = await plans(undefined, { 'X-Request-Id': 'bad id with spaces' });
    expect(replaced.response.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  test('log lines carry the request id and never the API key', async () => {
    const { key } = await newKey(server.orm);
    const { response } = await plans(key, { 'X-Request-Id': 'trace-me-1' });
    expect(response.status).toBe(200);
    const unknown = `svc_${'K'.repeat(40)}`;
    await plans(unknown);
    const all = server.logs.join('');
    expect(all).toContain('"requestId":"trace-me-1"');
    expect(all).not.toContain(key);
    expect(all).not.toContain(unknown);
    for (const line of server.logs) expect(JSON.parse(line)).toHaveProperty('requestId');
  });
});
