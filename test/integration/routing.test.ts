import { beforeAll, describe, expect, test } from '@jest/globals';
import spec from '../../src/generated/openapi.json' with { type: 'json' };
import { expectSchema, operationIds, sendRaw } from './support/contract.js';
import { newKey } from './support/accounts.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});

// answers outside any operation: the contract documents them as `Detail` in its error table
async function unrouted(path: string, method = 'GET') {
  const res = await fetch(`${server.url}${path}`, { method });
  const body = await res.json();
  expectSchema(body, 'Detail');
  return { status: res.status, headers: res.headers, body };
}

describe('routing', () => {
  test('an unknown path is 404 in the {detail} shape', async () => {
    const res = await unrouted('/api/v1/dev/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.stringContaining('/api/v1/dev/nothing-here') });
  });

  test('a wrong method is 405 in the {detail} shape with an Allow header', async () => {
    const res = await unrouted('/api/v1/dev/plans', 'DELETE');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.body).toEqual({ detail: expect.stringContaining('DELETE') });
  });

  test('a query parameter the operation does not take is 400 naming it and those it takes (a mistyped filter listed every document)', async () => {
    const { key } = await newKey(server.orm);
    const res = await fetch(`${server.url}/api/v1/dev/knowledge-bases/default/documents?stat=failed&limit=3`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ detail: "Unknown query parameter 'stat': this operation takes category, cursor, grade, language, limit, state, subject, year." });
    const plans = await fetch(`${server.url}/api/v1/dev/plans?verbose=1`, { headers: { 'X-API-Key': key } });
    expect([plans.status, ((await plans.json()) as { detail: string }).detail]).toEqual([400, "Unknown query parameter 'verbose': this operation takes none."]);
  });

  test.each(['getPlans', 'getUsage', 'listKnowledgeBases', 'listWebhookEndpoints'])('%s, which takes no parameter, answers one with the 400 its contract documents (it listed none)', async (operationId) => {
    const { key } = await newKey(server.orm, { plan: 'enterprise' });
    // sendRaw fails on a status or body the contract does not document for the operation
    const res = await sendRaw(server.url, operationId, { key, query: { verbose: '1' } });
    expect([res.status, (res.body as { detail: string }).detail]).toEqual([400, "Unknown query parameter 'verbose': this operation takes none."]);
  });

  test("HEAD on a GET operation answers as GET does, without the body (it was 405); on a POST operation it is 405", async () => {
    const { key } = await newKey(server.orm);
    const head = await fetch(`${server.url}/api/v1/dev/plans`, { method: 'HEAD', headers: { 'X-API-Key': key } });
    const get = await fetch(`${server.url}/api/v1/dev/plans`, { headers: { 'X-API-Key': key } });
    expect([head.status, head.headers.get('content-type')]).toEqual([200, get.headers.get('content-type')]);
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
    expect(await head.text()).toBe('');
    expect((await fetch(`${server.url}/api/v1/dev/usage`, { method: 'HEAD' })).status).toBe(401);
    const post = await fetch(`${server.url}/api/v1/dev/query`, { method: 'HEAD', headers: { 'X-API-Key': key } });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'POST']);
    // and so do the dashboard's pages (a monitor's HEAD got the 404 page)
    const page = await fetch(`${server.url}/dashboard/log-in`, { method: 'HEAD' });
    expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([200, 'text/html; charset=utf-8', '']);
  });

  test('every operation of the contract has its handler: anonymous calls are 401 where a key or session is needed, never 501', async () => {
    const operations = operationIds();
    expect(operations).toEqual(expect.arrayContaining(['query', 'queryMultipart', 'getUsage', 'getPlans', 'signUp', 'createApiKey']));
    const open = Object.values(spec.paths as Record<string, Record<string, { operationId: string; security?: unknown[] }>>)
      .flatMap((item) => Object.values(item))
      .filter((op) => Array.isArray(op.security) && op.security.length === 0)
      .map((op) => op.operationId);
    // sign-up, log-in, the links from mails and the payment gateway's notifications
    expect(open.length).toBeGreaterThan(0);
    for (const operationId of operations) {
      // raw: no credentials and no body, which the typed client would not send; sendRaw checks the answer is documented
      const res = await sendRaw(server.url, operationId);
      if (open.includes(operationId)) expect([400, 415]).toContain(res.status);
      else expect({ operationId, status: res.status }).toEqual({ operationId, status: 401 });
    }
  });
});
