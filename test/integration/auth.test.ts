import { beforeAll, describe, expect, test } from '@jest/globals';
import { newKey } from './support/accounts.js';
import { call, expectDocumented } from './support/contract.js';
import { startServer, type TestServer } from './support/server.js';
import { revokeKey } from '../../src/domain/keys/keys.js';

let server: TestServer;
const plans = () => `${server.url}/api/v1/dev/plans`;

beforeAll(async () => {
  server = await startServer();
});

function errorCode(body: unknown): string {
  return (body as { error: { code: string } }).error.code;
}

describe('authentication', () => {
  test('no X-API-Key header is 401 missing_api_key', async () => {
    const res = await call(plans());
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('missing_api_key');
    expect((res.body as { error: { message: string } }).error.message).toMatch(/required/);
    expectDocumented(res, 'getPlans');
  });

  test('Authorization: Bearer alone is 401 missing_api_key, even with a valid key', async () => {
    const { key } = await newKey(server.orm);
    const res = await call(plans(), { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('missing_api_key');
  });

  test.each([
    ['too short', 'svc_abc123'],
    ['not alphanumeric', `svc_${'a'.repeat(31)}-`],
    ['unknown prefix', `sk_live_${'a'.repeat(40)}`],
    ['well formed but unknown', `svc_${'Z'.repeat(40)}`],
  ])('a key that is %s is 401 authentication_failed', async (_label, key) => {
    const res = await call(plans(), { key });
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('authentication_failed');
    expect((res.body as { error: { message: string } }).error.message).toMatch(/invalid api key/i);
    expectDocumented(res, 'getPlans');
  });

  test('a test key never works on a live server', async () => {
    const { key } = await newKey(server.orm, { environment: 'test' });
    expect(key.startsWith('sk_test_')).toBe(true);
    const res = await call(plans(), { key });
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('authentication_failed');
  });

  test('a live key never works on a test server, and a test key does', async () => {
    const testServer = await startServer({ environment: 'test' });
    try {
      const live = await newKey(server.orm);
      const testKey = await newKey(server.orm, { environment: 'test' });
      expect((await call(`${testServer.url}/api/v1/dev/plans`, { key: live.key })).status).toBe(401);
      expect((await call(`${testServer.url}/api/v1/dev/plans`, { key: testKey.key })).status).toBe(200);
    } finally {
      await testServer.close();
    }
  });

  test('a revoked key is 401 api_key_revoked', async () => {
    const { key, keyId } = await newKey(server.orm);
    expect((await call(plans(), { key })).status).toBe(200);
    await revokeKey(server.orm.em.fork(), keyId, new Date());
    const res = await call(plans(), { key });
    expect(res.status).toBe(401);
    expect(errorCode(res.body)).toBe('api_key_revoked');
    expectDocumented(res, 'getPlans');
  });

  test('401 responses carry no rate-limit headers and do not count', async () => {
    const res = await call(plans(), { key: `svc_${'Q'.repeat(40)}` });
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('key restrictions', () => {
  test('a read-only key may GET but a POST is 403 forbidden and not counted', async () => {
    const { key } = await newKey(server.orm, { readOnly: true });
    const ok = await call(plans(), { key });
    expect(ok.status).toBe(200);
    const post = await call(`${server.url}/api/v1/dev/query`, {
      key,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'What is photosynthesis?' }),
    });
    expect(post.status).toBe(403);
    expect(errorCode(post.body)).toBe('forbidden');
    expect((post.body as { error: { message: string } }).error.message).toMatch(/read-only/);
    expectDocumented(post, 'query');
    // the refused POST did not count: one GET so far, this GET is the second
    const usage = await call(`${server.url}/api/v1/dev/usage`, { key });
    expect((usage.body as { total_requests: number }).total_requests).toBe(2);
  });

  test('an IP allow-list admits listed addresses and refuses others', async () => {
    const allowed = await newKey(server.orm, { allowedIps: ['127.0.0.0/8'] });
    expect((await call(plans(), { key: allowed.key })).status).toBe(200);
    const other = await newKey(server.orm, { allowedIps: ['203.0.113.0/24', '2001:db8::/32'] });
    const res = await call(plans(), { key: other.key });
    expect(res.status).toBe(403);
    expect(errorCode(res.body)).toBe('forbidden');
    expect((res.body as { error: { message: string } }).error.message).toContain('127.0.0.1');
    expect(res.headers.get('x-ratelimit-limit')).toBe('10');
    expectDocumented(res, 'getPlans');
  });

  test('behind a trusted proxy only the address the proxy appended counts', async () => {
    const proxied = await startServer({ trustProxy: true });
    try {
      const { key } = await newKey(proxied.orm, { allowedIps: ['203.0.113.0/24'] });
      const url = `${proxied.url}/api/v1/dev/plans`;
      // the client wrote the first entry itself; the proxy appended the real address last
      expect((await call(url, { key, headers: { 'X-Forwarded-For': '203.0.113.5, 198.51.100.9' } })).status).toBe(403);
      expect((await call(url, { key, headers: { 'X-Forwarded-For': '198.51.100.9, 203.0.113.5' } })).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  test('an account whose subscription was cancelled is 403 forbidden', async () => {
    const { key } = await newKey(server.orm, { state: 'cancelled' });
    const res = await call(plans(), { key });
    expect(res.status).toBe(403);
    expect(errorCode(res.body)).toBe('forbidden');
    expect((res.body as { error: { message: string } }).error.message).toMatch(/no active subscription/);
  });
});

describe('request ids and logs', () => {
  test('every response has an X-Request-Id; a well-formed client id is echoed', async () => {
    const generated = await call(plans());
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await call(plans(), { headers: { 'X-Request-Id': 'client-req.42' } });
    expect(echoed.headers.get('x-request-id')).toBe('client-req.42');
    const replaced = await call(plans(), { headers: { 'X-Request-Id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).not.toBe('bad id with spaces');
  });

  test('log lines carry the request id and never the API key', async () => {
    const { key } = await newKey(server.orm);
    const res = await call(plans(), { key, headers: { 'X-Request-Id': 'trace-me-1' } });
    expect(res.status).toBe(200);
    const unknown = `svc_${'K'.repeat(40)}`;
    await call(plans(), { key: unknown });
    const all = server.logs.join('');
    expect(all).toContain('"requestId":"trace-me-1"');
    expect(all).not.toContain(key);
    expect(all).not.toContain(unknown);
    for (const line of server.logs) expect(JSON.parse(line)).toHaveProperty('requestId');
  });
});
