import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { newKey } from './support/accounts.js';
import { call, expectDocumented } from './support/contract.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

describe('routing', () => {
  test('an unknown path is 404 in the {detail} shape', async () => {
    const res = await call(`${server.url}/api/v1/dev/nothing-here`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.stringContaining('/api/v1/dev/nothing-here') });
  });

  test('a wrong method is 405 in the {detail} shape with an Allow header', async () => {
    const res = await call(`${server.url}/api/v1/dev/plans`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body).toEqual({ detail: expect.stringContaining('DELETE') });
  });

  test('the multipart operation is described but not built yet: 501 {detail} after authentication', async () => {
    const { key } = await newKey(server.orm);
    const res = await call(`${server.url}/api/v1/dev/query-multipart`, { key, method: 'POST', body: new FormData() });
    expect(res.status).toBe(501);
    expect(res.body).toEqual({ detail: expect.stringContaining('queryMultipart') });
    const anonymous = await call(`${server.url}/api/v1/dev/query-multipart`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expectDocumented(anonymous, 'queryMultipart');
  });
});
