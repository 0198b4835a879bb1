import { beforeAll, describe, expect, test } from '@jest/globals';
import { call, expectDocumented } from './support/contract.js';
import { startServer, type TestServer } from './support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
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

  test('every operation of the contract has its handler: anonymous calls are 401, never 501', async () => {
    for (const [method, path, operationId] of [
      ['POST', '/api/v1/dev/query', 'query'],
      ['POST', '/api/v1/dev/query-multipart', 'queryMultipart'],
      ['GET', '/api/v1/dev/usage', 'getUsage'],
      ['GET', '/api/v1/dev/plans', 'getPlans'],
    ] as const) {
      const res = await call(`${server.url}${path}`, { method });
      expect(res.status).toBe(401);
      expectDocumented(res, operationId);
    }
  });
});
