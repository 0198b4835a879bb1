import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { freePort } from '../../scripts/lib/free-port.js';
import spec from '../../src/generated/openapi.json' with { type: 'json' };
import { KEYLESS_OPERATIONS } from '../../src/generated/contract-values.js';
import { sendRaw } from './support/contract.js';
import { DashboardBrowser, linkToken } from './support/dashboard.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// The request examples of the dashboard's and the payment gateway's operations, run in one
// signed-in session in the order a customer meets them, each answering a documented 2xx. What an
// example cannot know is filled in, and only that: the token of the link we mailed, the id of the
// key or order made before, and the notification's signature with this merchant's secret.

type Example = { operationId: string; value: Record<string, unknown> };
type MediaType = { schema?: { $ref?: string }; examples?: Record<string, { value: unknown }> };
type Operation = { operationId: string; requestBody?: { content: Record<string, MediaType> } };

const keyless = new Set<string>(KEYLESS_OPERATIONS);
const schemas = spec.components.schemas as Record<string, { examples?: unknown[] }>;
const examples: Example[] = Object.values(spec.paths as Record<string, Record<string, Operation>>).flatMap((item) =>
  Object.values(item)
    .filter((op) => keyless.has(op.operationId))
    .flatMap((op) =>
      Object.values(op.requestBody?.content ?? {}).flatMap((media) => [
        ...Object.values(media.examples ?? {}).map((e) => e.value),
        ...(schemas[media.schema?.$ref?.replace('#/components/schemas/', '') ?? '']?.examples ?? []),
      ]).map((value) => ({ operationId: op.operationId, value: value as Record<string, unknown> })),
    ),
);
const of = (operationId: string) => examples.filter((e) => e.operationId === operationId).map((e) => e.value);

let server: TestServer;

beforeAll(async () => {
  const port = await freePort();
  server = await startServer({ port, services: testServices({}, { API_BASE_URL: `http://127.0.0.1:${port}`, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' }) });
  // the examples name teacher@example.lk: a database reused by an earlier run has that account already
  await server.orm.em.fork().execute(`delete from account where email = 'teacher@example.lk'`);
});

describe('the request examples of the dashboard and billing operations', () => {
  test('every one of them runs in a customer\'s session and answers a documented 2xx', async () => {
    const browser = new DashboardBrowser(server.url);
    const json = (operationId: string, value: unknown, path?: Record<string, string>) =>
      sendRaw(server.url, operationId, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: `svc_session=${browser.cookie ?? ''}`, 'X-CSRF-Token': browser.csrf ?? '' },
        body: JSON.stringify(value),
        ...(path && { path }),
      });
    const ran = new Set<string>();
    const run = async (operationId: string, value: unknown, path?: Record<string, string>) => {
      const res = await json(operationId, value, path);
      expect({ operationId, status: res.status, body: res.body }).toMatchObject({ status: expect.any(Number) });
      expect(res.status >= 200 && res.status < 300 ? 'ok' : `${operationId} answered ${res.status}: ${JSON.stringify(res.body)}`).toBe('ok');
      ran.add(operationId);
      return res;
    };

    const [signUp] = of('signUp');
    const signedUp = await sendRaw(server.url, 'signUp', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(signUp) });
    expect(signedUp.status).toBe(201);
    ran.add('signUp');
    for (const logIn of of('logIn')) {
      expect((await browser.logIn(String(logIn.email), String(logIn.password))).status).toBe(200);
      ran.add('logIn');
    }
    const email = String(signUp!.email);
    for (const verify of of('verifyEmail')) await run('verifyEmail', { ...verify, token: await linkToken(email, '/dashboard/verify-email') });
    for (const subscribe of of('subscribe')) await run('subscribe', subscribe);
    let keyId = '';
    for (const key of of('createApiKey')) keyId = ((await run('createApiKey', key)).body as { api_key: { id: string } }).api_key.id;
    for (const roll of of('rollApiKey')) keyId = ((await run('rollApiKey', roll, { key_id: keyId })).body as { api_key: { id: string } }).api_key.id;
    let orderId = '';
    for (const checkout of of('startCheckout')) orderId = ((await run('startCheckout', checkout)).body as { order_id: string }).order_id;
    for (const fields of of('payhereNotify')) {
      const f = { ...fields, merchant_id: process.env.PAYHERE_MERCHANT_ID!, order_id: orderId } as Record<string, string>;
      const md5 = (text: string) => createHash('md5').update(text).digest('hex').toUpperCase();
      f.md5sig = md5(`${f.merchant_id}${f.order_id}${f.payhere_amount}${f.payhere_currency}${f.status_code}${md5(process.env.PAYHERE_MERCHANT_SECRET!)}`);
      const res = await sendRaw(server.url, 'payhereNotify', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(f).toString() });
      expect(res.status).toBe(200);
      ran.add('payhereNotify');
    }
    for (const reset of of('requestPasswordReset')) await run('requestPasswordReset', reset);
    for (const reset of of('resetPassword')) await run('resetPassword', { ...reset, token: await linkToken(email, '/dashboard/reset-password') });
    const withExamples = new Set(examples.map((e) => e.operationId));
    expect([...ran].sort()).toEqual([...withExamples].sort());
  });
});
