import { beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { systemClock } from '../../src/clock.js';
import { pruneEvents } from '../../src/domain/webhooks/dispatch.js';
import { recordEvent } from '../../src/domain/webhooks/events.js';
import { WebhookWorker } from '../../src/jobs/webhook-worker.js';
import { newKey, newPlan } from './support/accounts.js';
import { onCleanup } from './support/cleanup.js';
import { apiClient, sendRaw, type Schemas } from './support/contract.js';
import { DashboardBrowser, mailTo, uniqueEmail } from './support/dashboard.js';
import { waitsForLock } from './support/locks.js';
import { startServer, testServices, type TestServer } from './support/server.js';
import { answer, startReceiver, verified, type Receiver } from './support/webhook-receiver.js';

// Webhooks end to end: endpoints over the API, events from the changes they report, delivered by
// the outbox relay to real HTTPS receivers on loopback that verify each signature with the
// Standard Webhooks reference code. The retry schedule is shortened (two retries 300 ms apart),
// one attempt may take 1 s, and an endpoint out of attempts is disabled at once.

let receiver: Receiver;
let server: TestServer;
/** What the relay logged at warn or above (a failure to record an attempt, say). */
const relayWarnings: string[] = [];

const ENDPOINTS = '/api/v1/dev/webhooks/endpoints' as const;
const ENDPOINT = '/api/v1/dev/webhooks/endpoints/{endpoint_id}' as const;

beforeAll(async () => {
  receiver = await startReceiver();
  const services = testServices({}, {
    WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.test',
    WEBHOOK_CA_FILE: receiver.caFile,
    WEBHOOK_RETRY_SCHEDULE_MS: '300,300',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_DISABLE_AFTER_MS: '0',
    WEBHOOK_POLL_MS: '50',
    SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000',
  });
  server = await startServer({ services });
  const worker = new WebhookWorker(server.orm, services, systemClock, pino({ level: 'warn' }, { write: (line: string) => void relayWarnings.push(line) }));
  worker.start();
  onCleanup(() => worker.stop());
});

let paths = 0;
/** A receiver path of its own for each endpoint, answering `respond` (200 by default). */
function receiverPath(respond = answer(200, 'ok')): string {
  const path = `/hook/${++paths}`;
  receiver.route(path, respond);
  return path;
}

async function createEndpoint(key: string, path: string, eventTypes: Schemas['WebhookEventType'][] = ['api_key.created']) {
  const { response, data } = await apiClient(server.url, key).POST(ENDPOINTS, { body: { url: receiver.url(path), event_types: eventTypes, description: 'test receiver' } });
  expect(response.status).toBe(201);
  return data!;
}

async function sendTest(key: string, endpointId: string) {
  const { response, data } = await apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints/{endpoint_id}/test', { params: { path: { endpoint_id: endpointId } } });
  expect(response.status).toBe(202);
  return data!;
}

async function deliveries(key: string, endpointId: string, query: { limit?: number; cursor?: string } = {}) {
  const { response, data } = await apiClient(server.url, key).GET('/api/v1/dev/webhooks/endpoints/{endpoint_id}/deliveries', { params: { path: { endpoint_id: endpointId }, query } });
  expect(response.status).toBe(200);
  return data!;
}

/** The endpoint's deliveries once `done` holds for them (the relay works in the background). */
async function settled(key: string, endpointId: string, done: (list: Schemas['WebhookDelivery'][]) => boolean, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = (await deliveries(key, endpointId, { limit: 100 })).data;
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries did not settle: ${JSON.stringify(list)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The dashboard's CSRF header of a signed-in browser. */
function csrf(browser: DashboardBrowser): { 'X-CSRF-Token': string } {
  return { 'X-CSRF-Token': browser.csrf! };
}

async function endpointOf(key: string, endpointId: string) {
  return (await apiClient(server.url, key).GET(ENDPOINT, { params: { path: { endpoint_id: endpointId } } })).data!;
}

describe('webhook endpoints over the API', () => {
  test('plans without webhooks answer 403 forbidden naming the plan, on every operation but listing and deleting', async () => {
    for (const plan of ['free', 'starter']) {
      const { key } = await newKey(server.orm, { plan });
      const res = await sendRaw(server.url, 'getWebhookEndpoint', { key, path: { endpoint_id: randomUUID() } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: { code: 'forbidden', message: `This API key does not have permission to access this resource: webhooks are not included in the ${plan === 'free' ? 'Free' : 'Starter'} plan.` } });
      const created = await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ url: receiver.url('/x'), event_types: ['api_key.created'] }) });
      expect(created.status).toBe(403);
    }
  });

  test('after a move to a plan without webhooks only subscription events are sent, and those from before; its endpoints can still be listed and deleted', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('webhook-downgrade'));
    const subscribe = (plan: 'free' | 'pro', trial?: boolean) => browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan, trial } });
    const newDashboardKey = async (name: string) => (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name } })).data!.api_key;
    expect((await subscribe('pro', true)).response.status).toBe(200);
    const key = (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name: 'manager' } })).data!.key;
    const path = receiverPath();
    const { endpoint, secret } = await createEndpoint(key, path, ['api_key.created', 'subscription.updated']);
    // made on Pro, and the move to Free follows at once (before the relay's next round)
    const onPro = await newDashboardKey('made on pro');
    expect((await subscribe('free')).response.status).toBe(200);
    const onFree = await newDashboardKey('made on free');
    const events = (await receiver.waitFor(path, 2)).map((r) => verified(r, secret));
    // the relay has gone round since the key made on Free (its event is dispatched, to no endpoint)
    const deadline = Date.now() + 15_000;
    const undispatched = async () =>
      (await server.orm.em.fork().execute<{ n: number }[]>("select count(*)::int as n from webhook_event where type = 'api_key.created' and dispatched_at is null and data->'api_key'->>'id' = ?", [onFree.id]))[0]!.n;
    while ((await undispatched()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await undispatched()).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    const all = receiver.received.filter((r) => r.path === path).map((r) => verified(r, secret));
    expect(all.map((e) => [e.type, (e.data.api_key as { id?: string } | undefined)?.id ?? e.data.plan]).sort()).toEqual([
      ['api_key.created', onPro.id],
      ['subscription.updated', 'free'],
    ]);
    expect(events).toHaveLength(2);

    const listed = await sendRaw(server.url, 'listWebhookEndpoints', { key });
    expect(listed.status).toBe(200);
    expect((listed.body as Schemas['WebhookEndpointList']).data.map((e) => e.id)).toEqual([endpoint.id]);
    expect((await sendRaw(server.url, 'getWebhookEndpoint', { key, path: { endpoint_id: endpoint.id } })).status).toBe(403);
    expect((await sendRaw(server.url, 'deleteWebhookEndpoint', { key, path: { endpoint_id: endpoint.id } })).status).toBe(204);
    expect((await sendRaw(server.url, 'listWebhookEndpoints', { key })).body).toEqual({ data: [] });
  });

  test('a read-only key may list and read, never create, change or delete', async () => {
    const { key, accountId } = await newKey(server.orm, { plan: 'pro' });
    const endpoint = await createEndpoint(key, receiverPath());
    const reader = (await newKey(server.orm, { plan: 'pro', accountId, readOnly: true })).key;
    expect((await sendRaw(server.url, 'listWebhookEndpoints', { key: reader })).status).toBe(200);
    expect((await sendRaw(server.url, 'getWebhookEndpoint', { key: reader, path: { endpoint_id: endpoint.endpoint.id } })).status).toBe(200);
    const json = { 'Content-Type': 'application/json' };
    const writes = [
      await sendRaw(server.url, 'createWebhookEndpoint', { key: reader, headers: json, body: JSON.stringify({ url: receiver.url('/x'), event_types: ['api_key.created'] }) }),
      await sendRaw(server.url, 'updateWebhookEndpoint', { key: reader, path: { endpoint_id: endpoint.endpoint.id }, headers: json, body: JSON.stringify({ enabled: false }) }),
      await sendRaw(server.url, 'deleteWebhookEndpoint', { key: reader, path: { endpoint_id: endpoint.endpoint.id } }),
      await sendRaw(server.url, 'rotateWebhookSecret', { key: reader, path: { endpoint_id: endpoint.endpoint.id } }),
    ];
    for (const res of writes) {
      expect(res.status).toBe(403);
      expect((res.body as Schemas['Error']).error.message).toMatch(/read-only/);
    }
  });

  test('create, get, list, update and delete; the secret is shown only at creation', async () => {
    const { key } = await newKey(server.orm, { plan: 'enterprise' });
    const client = apiClient(server.url, key);
    const created = await createEndpoint(key, receiverPath(), ['api_key.created', 'usage.threshold_reached']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(created.endpoint).toMatchObject({ url: receiver.url(`/hook/${paths}`), event_types: ['api_key.created', 'usage.threshold_reached'], enabled: true, disabled_reason: null, description: 'test receiver' });
    const id = created.endpoint.id;
    const got = await endpointOf(key, id);
    expect(got).toEqual(created.endpoint);
    expect(JSON.stringify(got)).not.toContain('whsec_');
    expect((await client.GET(ENDPOINTS)).data!.data.map((e) => e.id)).toEqual([id]);

    const changed = await client.PATCH(ENDPOINT, { params: { path: { endpoint_id: id } }, body: { event_types: ['subscription.cancelled'], description: 'renamed', enabled: false } });
    expect(changed.data).toMatchObject({ event_types: ['subscription.cancelled'], description: 'renamed', enabled: false, disabled_reason: 'manual' });
    const enabled = await client.PATCH(ENDPOINT, { params: { path: { endpoint_id: id } }, body: { enabled: true } });
    expect(enabled.data).toMatchObject({ enabled: true, disabled_reason: null });

    expect((await client.DELETE(ENDPOINT, { params: { path: { endpoint_id: id } } })).response.status).toBe(204);
    expect((await client.GET(ENDPOINT, { params: { path: { endpoint_id: id } } })).response.status).toBe(404);
    expect((await client.GET(ENDPOINTS)).data!.data).toEqual([]);
  });

  test('a creation retried with its Idempotency-Key answers the same endpoint and secret and creates nothing; another body with that key is 400', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const json = { 'Content-Type': 'application/json', 'Idempotency-Key': `retry-${paths}` };
    const body = JSON.stringify({ url: receiver.url(receiverPath()), event_types: ['api_key.created'] });
    const first = await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body });
    const again = await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // the secret is in both answers: neither may be cached
    expect([first.headers.get('cache-control'), again.headers.get('cache-control')]).toEqual(['no-store', 'no-store']);
    expect((await apiClient(server.url, key).GET(ENDPOINTS)).data!.data).toHaveLength(1);
    const other = await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: JSON.stringify({ url: receiver.url(receiverPath()), event_types: ['api_key.revoked'] }) });
    expect(other.status).toBe(400);
    expect((await apiClient(server.url, key).GET(ENDPOINTS)).data!.data).toHaveLength(1);
  });

  test('URLs that are not HTTPS to a public address are refused with 400, at creation and on update', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const client = apiClient(server.url, key);
    for (const url of ['http://receiver.test/hook', 'https://127.0.0.1/hook', 'https://10.0.0.5/hook', 'https://localhost/hook', 'https://user:pw@receiver.test/hook', 'https://169.254.169.254/latest']) {
      const { response, error } = await client.POST(ENDPOINTS, { body: { url, event_types: ['api_key.created'] } });
      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect((error as Schemas['Detail']).detail).toMatch(/^Field 'url': .* only HTTPS URLs to (hosts with public addresses are|public domains are allowed, without a user name or password: remove them)\.$/);
      // a JSON Pointer, as the contract's ValidationError says
      expect((error as Schemas['ValidationError']).errors).toEqual([{ path: '/url', message: expect.any(String) }]);
    }
    const endpoint = await createEndpoint(key, receiverPath());
    const { response, error } = await client.PATCH(ENDPOINT, { params: { path: { endpoint_id: endpoint.endpoint.id } }, body: { url: 'https://192.168.1.1/hook' } });
    expect(response.status).toBe(400);
    expect((error as Schemas['ValidationError']).errors).toEqual([{ path: '/url', message: expect.any(String) }]);
    expect((await endpointOf(key, endpoint.endpoint.id)).url).toBe(endpoint.endpoint.url);
  });

  test('URLs with control characters are refused, not silently changed by URL parsing, at creation and on update', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const client = apiClient(server.url, key);
    const endpoint = await createEndpoint(key, receiverPath());
    for (const url of [receiver.url('/ho\tok'), receiver.url('/hook\n'), `\t${receiver.url('/hook')}`, receiver.url('/hook\u007f'), receiver.url('/hook\u0085')]) {
      const created = await client.POST(ENDPOINTS, { body: { url, event_types: ['api_key.created'] } });
      const updated = await client.PATCH(ENDPOINT, { params: { path: { endpoint_id: endpoint.endpoint.id } }, body: { url } });
      for (const { response, error } of [created, updated]) {
        expect({ url, status: response.status }).toEqual({ url, status: 400 });
        const message = `'${url}' is not allowed: it contains control characters (such as a tab or a line break); remove them`;
        expect(error).toMatchObject({ detail: `Field 'url': ${message}.`, errors: [{ path: '/url', message }] });
      }
    }
    expect((await client.GET(ENDPOINTS)).data!.data.map((e) => e.url)).toEqual([endpoint.endpoint.url]);
  });

  test('a URL whose host does not resolve is refused, saying so', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    // .invalid is reserved: it never resolves (RFC 2606)
    const { response, error } = await apiClient(server.url, key).POST(ENDPOINTS, { body: { url: 'https://hooks.nowhere.invalid/hook', event_types: ['api_key.created'] } });
    expect(response.status).toBe(400);
    const message = "'https://hooks.nowhere.invalid/hook' is not allowed: its host 'hooks.nowhere.invalid' could not be resolved: check the name, or try again once its DNS records are published";
    expect(error).toMatchObject({ detail: `Field 'url': ${message}.`, errors: [{ path: '/url', message }] });
  });

  test('bad bodies, ids and cursors answer their documented 4xx, never 500', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const json = { 'Content-Type': 'application/json' };
    const bad = [
      await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: JSON.stringify({ url: receiver.url('/x'), event_types: ['webhook.test'] }) }),
      await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: JSON.stringify({ url: receiver.url('/x'), event_types: [] }) }),
      await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: JSON.stringify({ url: receiver.url('/x'), event_types: ['api_key.created'], secret: 'mine' }) }),
      await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: '{"url": ' }),
    ];
    expect(bad.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    const id = (await createEndpoint(key, receiverPath())).endpoint.id;
    // an id that cannot be one is a bad request; a well-formed id of nothing is not found
    expect((await sendRaw(server.url, 'getWebhookEndpoint', { key, path: { endpoint_id: 'not-a-uuid' } })).status).toBe(400);
    expect((await sendRaw(server.url, 'redeliverWebhook', { key, path: { endpoint_id: id, delivery_id: 'nope' } })).status).toBe(400);
    expect((await sendRaw(server.url, 'getWebhookEndpoint', { key, path: { endpoint_id: randomUUID() } })).status).toBe(404);
    expect((await sendRaw(server.url, 'redeliverWebhook', { key, path: { endpoint_id: id, delivery_id: randomUUID() } })).status).toBe(404);
    const withQuery = (query: string) => fetch(`${server.url}${ENDPOINTS}/${id}/deliveries?${query}`, { headers: { 'X-API-Key': key } });
    const cursor = (text: string) => `cursor=${Buffer.from(text).toString('base64url')}`;
    for (const query of ['limit=0', 'limit=101', 'limit=two', 'limit=1.5', 'cursor=garbage', cursor(`-200000-01-01T00:00:00Z|${randomUUID()}`), cursor(`+275760-09-13T00:00:00.000Z|${randomUUID()}`)]) {
      const res = await withQuery(query);
      const { errors } = (await res.json()) as Schemas['ValidationError'];
      // errors[].path is a JSON Pointer to the parameter
      expect({ query, status: res.status, paths: errors?.map((e) => e.path) }).toEqual({ query, status: 400, paths: [`/${query.split('=')[0]}`] });
    }
    // PostgreSQL's text holds no NUL: refused as a bad field, never a database error
    const nul = await sendRaw(server.url, 'createWebhookEndpoint', { key, headers: json, body: JSON.stringify({ url: receiver.url('/x'), event_types: ['api_key.created'], description: 'a\u0000b' }) });
    expect([nul.status, (nul.body as Schemas['Detail']).detail]).toEqual([400, "Field 'description' contains a NUL character (U+0000), which no text field accepts."]);
  });

  test('concurrent creations never take an account past its 20 endpoints', async () => {
    const { key, accountId } = await newKey(server.orm, { plan: 'pro' });
    const em = server.orm.em.fork();
    await em.execute(
      `insert into webhook_endpoint (id, account_id, url, description, event_types, enabled, secret, created_at, updated_at)
        select gen_random_uuid(), ?, 'https://203.0.113.' || n || '/hook', '', '{api_key.created}', true, 'whsec_AAAA', now(), now() from generate_series(1, 18) as n`,
      [accountId],
    );
    const tries = await Promise.all(
      Array.from({ length: 6 }, () => apiClient(server.url, key).POST(ENDPOINTS, { body: { url: receiver.url(receiverPath()), event_types: ['api_key.created'] } })),
    );
    expect(tries.map((t) => t.response.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    const [row] = await em.execute<{ n: number }[]>('select count(*)::int as n from webhook_endpoint where account_id = ?', [accountId]);
    expect(row!.n).toBe(20);
  });

  test('a test event or redelivery racing the endpoint\'s delete answers 404 with the documented body, never 500', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    for (const operation of ['sendWebhookTest', 'redeliverWebhook'] as const) {
      const id = (await createEndpoint(key, receiverPath())).endpoint.id;
      const delivery = (await sendTest(key, id)).id;
      const path: Record<string, string> = operation === 'sendWebhookTest' ? { endpoint_id: id } : { endpoint_id: id, delivery_id: delivery };
      let raced: ReturnType<typeof sendRaw> | undefined;
      // the delete's transaction, held open until the request waits on the endpoint's row to add its delivery
      await server.orm.em.fork().transactional(async (tx) => {
        await tx.execute('select id from webhook_endpoint where id = ? for update', [id]);
        raced = sendRaw(server.url, operation, { key, path });
        await waitsForLock(server.orm, 'insert into%webhook_%', operation);
        await tx.execute('delete from webhook_endpoint where id = ?', [id]);
      });
      const res = await raced!;
      expect({ operation, status: res.status, body: res.body }).toEqual({ operation, status: 404, body: { detail: `No webhook endpoint with id ${id}.` } });
    }
  });
});

describe('delivery', () => {
  test("an endpoint deleted while its attempt's outcome is being recorded answers 204, and the relay neither deadlocks nor fails", async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    let arrived!: () => void;
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => { arrived = resolve; });
    const released = new Promise<void>((resolve) => { release = resolve; });
    // a failure, so that the record changes the endpoint (failing since) as well as the delivery
    const path = receiverPath((request, response) => { arrived(); void released.then(() => answer(500, 'down')(request, response)); });
    const id = (await createEndpoint(key, path)).endpoint.id;
    const delivery = (await sendTest(key, id)).id;
    await arrival;
    const warned = relayWarnings.length;
    let deleted: ReturnType<typeof sendRaw> | undefined;
    // the delivery's row held while the relay records its attempt and the delete starts, so that both are under way at once
    await server.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select id from webhook_delivery where id = ? for update', [delivery]);
      release();
      await waitsForLock(server.orm, 'insert into%webhook_attempt%', "the relay's record");
      deleted = sendRaw(server.url, 'deleteWebhookEndpoint', { key, path: { endpoint_id: id } });
      await waitsForLock(server.orm, 'delete from%webhook_endpoint%', 'the delete');
    });
    expect((await deleted!).status).toBe(204);
    const [left] = await server.orm.em.fork().execute<{ deliveries: number }[]>('select count(*)::int as deliveries from webhook_delivery where endpoint_id = ?', [id]);
    expect(left!.deliveries).toBe(0);
    // the delete waited for the relay's record to commit (a deadlock would have ended one of them)
    expect(relayWarnings.slice(warned)).toEqual([]);
  });

  test("an endpoint's delete that deadlocks with the prune of old events (which cascades from the events' side) runs again and answers 204", async () => {
    const { key, accountId } = await newKey(server.orm, { plan: 'pro' });
    const id = (await createEndpoint(key, receiverPath())).endpoint.id;
    // an event for this endpoint alone, and an account-wide one with a delivery to it
    const own = (await sendTest(key, id)).event_id;
    const shared = await server.orm.em.fork().transactional((tx) => Promise.resolve(recordEvent(tx, accountId, 'api_key.created', { marker: 'shared' }, new Date()).id));
    await settled(key, id, (list) => list.some((d) => d.event_id === shared));
    let deleted: ReturnType<typeof sendRaw> | undefined;
    // the prune's order: the shared event first (its delivery to the endpoint with it), then the
    // endpoint's own event, which the delete (waiting on that delivery) has taken meanwhile. The
    // delete waited first, so PostgreSQL ends it as the deadlock's victim.
    await server.orm.em.fork().transactional(async (tx) => {
      await tx.execute('delete from webhook_event where id = ?', [shared]);
      deleted = sendRaw(server.url, 'deleteWebhookEndpoint', { key, path: { endpoint_id: id } });
      await waitsForLock(server.orm, 'delete from%webhook_endpoint%', 'the delete');
      await tx.execute('delete from webhook_event where id = ?', [own]);
    });
    expect((await deleted!).status).toBe(204);
    const [left] = await server.orm.em.fork().execute<{ endpoints: number }[]>('select count(*)::int as endpoints from webhook_endpoint where id = ?', [id]);
    expect(left!.endpoints).toBe(0);
  });

  test('a test event arrives signed (verified by the reference code) and the delivery log shows the attempt with a truncated body', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath(answer(200, 'x'.repeat(3000)));
    const { endpoint, secret } = await createEndpoint(key, path);
    const delivery = await sendTest(key, endpoint.id);
    expect(delivery).toMatchObject({ endpoint_id: endpoint.id, event_type: 'webhook.test', state: 'pending', attempt_count: 0, attempts: [] });
    const [request] = await receiver.waitFor(path, 1);
    expect(request!.headers['webhook-id']).toBe(delivery.event_id);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(verified(request!, secret)).toMatchObject({ type: 'webhook.test', data: { endpoint_id: endpoint.id } });
    const [logged] = await settled(key, endpoint.id, (list) => list[0]?.state === 'succeeded');
    expect(logged).toMatchObject({ id: delivery.id, state: 'succeeded', attempt_count: 1, next_attempt_at: null });
    expect(logged!.attempts).toHaveLength(1);
    expect(logged!.attempts[0]).toMatchObject({ status: 200, error: null, response_body: 'x'.repeat(2048) });
    expect(logged!.attempts[0]!.response_time_ms).toBeGreaterThanOrEqual(0);
  });

  test('an answer with a NUL byte is logged (the NUL replaced) and ends the delivery, which arrives once', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath(answer(200, 'ok\u0000done'));
    const { endpoint } = await createEndpoint(key, path);
    await sendTest(key, endpoint.id);
    const [logged] = await settled(key, endpoint.id, (list) => list[0]?.state === 'succeeded');
    expect(logged!.attempts).toEqual([expect.objectContaining({ status: 200, response_body: 'ok\uFFFDdone' })]);
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(1);
  });

  test('a failing receiver gets the retries of the schedule, then the endpoint is disabled and its owner emailed', async () => {
    const email = uniqueEmail('webhook-owner');
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(email);
    expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan: 'pro', trial: true } })).response.status).toBe(200);
    const created = await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name: 'hooks' } });
    const key = created.data!.key;
    const path = receiverPath(answer(500, 'broken'));
    const { endpoint } = await createEndpoint(key, path);
    await sendTest(key, endpoint.id);
    const requests = await receiver.waitFor(path, 3);
    // the same event every time: one webhook-id
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const [failed] = await settled(key, endpoint.id, (list) => list[0]?.state === 'failed');
    expect(failed!.attempts.map((a) => [a.status, a.error])).toEqual([[500, 'the endpoint answered HTTP 500'], [500, 'the endpoint answered HTTP 500'], [500, 'the endpoint answered HTTP 500']]);
    const attemptTimes = failed!.attempts.map((a) => Date.parse(a.attempted_at));
    expect(attemptTimes[1]! - attemptTimes[0]!).toBeGreaterThanOrEqual(300);
    expect(attemptTimes[2]! - attemptTimes[1]!).toBeGreaterThanOrEqual(300);
    expect(await endpointOf(key, endpoint.id)).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    const deadline = Date.now() + 10_000;
    let mails = await mailTo(email);
    while (!mails.some((m) => m.subject === 'A webhook endpoint was disabled') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      mails = await mailTo(email);
    }
    expect(mails.find((m) => m.subject === 'A webhook endpoint was disabled')?.text).toContain(endpoint.url);
    // disabled: a test event is refused, nothing more is sent
    expect((await sendRaw(server.url, 'sendWebhookTest', { key, path: { endpoint_id: endpoint.id } })).status).toBe(409);
  });

  test('410 Gone disables the endpoint at once, without retries', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath(answer(410, 'gone'));
    const { endpoint } = await createEndpoint(key, path);
    await sendTest(key, endpoint.id);
    const [delivery] = await settled(key, endpoint.id, (list) => list[0]?.state === 'failed');
    expect(delivery!.attempts.map((a) => a.status)).toEqual([410]);
    expect(await endpointOf(key, endpoint.id)).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(1);
  });

  test('an endpoint its owner disables while an attempt is under way keeps the reason manual, whatever the attempt meets', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    let id = '';
    // the owner disables it while the receiver is answering; then the receiver says it is gone
    const path = receiverPath((request, response) => {
      void apiClient(server.url, key)
        .PATCH(ENDPOINT, { params: { path: { endpoint_id: id } }, body: { enabled: false } })
        .then(() => answer(410, 'gone')(request, response));
    });
    id = (await createEndpoint(key, path)).endpoint.id;
    await sendTest(key, id);
    const [delivery] = await settled(key, id, (list) => list[0]?.state === 'failed');
    expect(delivery!.attempts.map((a) => a.status)).toEqual([410]);
    expect(await endpointOf(key, id)).toMatchObject({ enabled: false, disabled_reason: 'manual' });
  });

  test('a redirect is not followed and counts as a failed attempt', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const target = receiverPath();
    const path = receiverPath(answer(302, '', { Location: receiver.url(target) }));
    const { endpoint } = await createEndpoint(key, path);
    await sendTest(key, endpoint.id);
    const [delivery] = await settled(key, endpoint.id, (list) => list[0]?.state === 'failed');
    expect(delivery!.attempts).toHaveLength(3);
    expect(delivery!.attempts[0]).toMatchObject({ status: 302, error: 'the endpoint answered a redirect (HTTP 302), which is not followed' });
    expect(receiver.received.filter((r) => r.path === target)).toEqual([]);
  });

  test('a receiver that does not answer in time is a failed attempt', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    // reads the request, then never answers
    const path = receiverPath(() => undefined);
    const { endpoint } = await createEndpoint(key, path);
    await sendTest(key, endpoint.id);
    const [delivery] = await settled(key, endpoint.id, (list) => list[0]?.state === 'failed', 20_000);
    expect(delivery!.attempts.map((a) => [a.status, a.error])).toEqual([1, 2, 3].map(() => [null, 'no answer within 1000 ms']));
    for (const attempt of delivery!.attempts) expect(attempt.response_time_ms).toBeGreaterThanOrEqual(900);
  });

  test("a receiver that never answers holds one place of the relay: another account's delivery goes out beside its backlog", async () => {
    const slow = await newKey(server.orm, { plan: 'pro' });
    const other = await newKey(server.orm, { plan: 'pro' });
    // reads each request and never answers: each attempt ends by the relay's 1 s timeout
    let slowEnded = 0;
    const slowPath = receiverPath((_req, res) => void res.on('close', () => slowEnded++));
    const otherPath = receiverPath();
    const { endpoint: slowEndpoint } = await createEndpoint(slow.key, slowPath);
    const { endpoint: otherEndpoint } = await createEndpoint(other.key, otherPath);
    // a backlog of 25 due deliveries, then one of another account, due after all of them
    for (let i = 0; i < 25; i++) await sendTest(slow.key, slowEndpoint.id);
    await sendTest(other.key, otherEndpoint.id);
    await receiver.waitFor(otherPath, 1, 30_000);
    // relayed earliest first, ten at a time, the backlog's attempts would all time out first
    expect(slowEnded).toBeLessThan(10);
  });

  test("one account's receivers that never answer hold at most its share of the relay's places: another account's delivery goes out at once", async () => {
    const slow = await newKey(server.orm, { plan: 'pro' });
    const other = await newKey(server.orm, { plan: 'pro' });
    // each of 12 endpoints reads its request and never answers (the relay's 1 s timeout ends it)
    let open = 0;
    let mostOpen = 0;
    const slowPaths = Array.from({ length: 12 }, () =>
      receiverPath((_req, res) => {
        mostOpen = Math.max(mostOpen, ++open);
        res.on('close', () => open--);
      }),
    );
    const otherPath = receiverPath();
    const slowEndpoints = [];
    for (const path of slowPaths) slowEndpoints.push((await createEndpoint(slow.key, path)).endpoint);
    const { endpoint: otherEndpoint } = await createEndpoint(other.key, otherPath);
    for (const endpoint of slowEndpoints) await sendTest(slow.key, endpoint.id);
    await receiver.waitFor(slowPaths[2]!, 1, 15_000);
    await sendTest(other.key, otherEndpoint.id);
    await receiver.waitFor(otherPath, 1, 15_000);
    // all 10 places would be the slow account's, for a second at a time, without its share of 3
    expect(mostOpen).toBe(3);
  });

  test('after a rotation both secrets verify each event for the grace period', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath();
    const { endpoint, secret: before } = await createEndpoint(key, path);
    const rotated = await apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints/{endpoint_id}/rotate-secret', { params: { path: { endpoint_id: endpoint.id } } });
    expect(rotated.response.status).toBe(200);
    expect(rotated.response.headers.get('cache-control')).toBe('no-store');
    const after = rotated.data!.secret;
    expect(after).not.toBe(before);
    expect(Date.parse(rotated.data!.endpoint.previous_secret_expires_at!) - Date.parse(rotated.data!.endpoint.secret_rotated_at!)).toBe(24 * 3_600_000);
    await sendTest(key, endpoint.id);
    const [request] = await receiver.waitFor(path, 1);
    expect(request!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified(request!, before).type).toBe('webhook.test');
    expect(verified(request!, after).type).toBe('webhook.test');
  });

  test('of two rotations at once, each secret shown signs: the later one as the current secret, the earlier as the previous', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath();
    const { endpoint } = await createEndpoint(key, path);
    const rotate = () => apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints/{endpoint_id}/rotate-secret', { params: { path: { endpoint_id: endpoint.id } } });
    let rotations: ReturnType<typeof rotate>[] = [];
    // the endpoint's row held until both rotations wait for it, so that they run at once
    await server.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select id from webhook_endpoint where id = ? for update', [endpoint.id]);
      rotations = [rotate(), rotate()];
      await waitsForLock(server.orm, '%webhook_endpoint%', 'both rotations', 2);
    });
    const answers = await Promise.all(rotations);
    expect(answers.map((a) => a.response.status)).toEqual([200, 200]);
    await sendTest(key, endpoint.id);
    const [request] = await receiver.waitFor(path, 1);
    for (const answer of answers) expect(verified(request!, answer.data!.secret).type).toBe('webhook.test');
  });

  test('a redelivery sends the same event again (same webhook-id) as a new delivery; pages of the log follow the cursor', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath();
    const { endpoint, secret } = await createEndpoint(key, path);
    const first = await sendTest(key, endpoint.id);
    await receiver.waitFor(path, 1);
    const again = await apiClient(server.url, key).POST('/api/v1/dev/webhooks/endpoints/{endpoint_id}/deliveries/{delivery_id}/redeliver', { params: { path: { endpoint_id: endpoint.id, delivery_id: first.id } } });
    expect(again.response.status).toBe(202);
    expect(again.data).toMatchObject({ event_id: first.event_id, state: 'pending' });
    expect(again.data!.id).not.toBe(first.id);
    const requests = await receiver.waitFor(path, 2);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([first.event_id, first.event_id]);
    expect(requests.map((r) => verified(r, secret).type)).toEqual(['webhook.test', 'webhook.test']);
    await sendTest(key, endpoint.id);
    await settled(key, endpoint.id, (list) => list.length === 3 && list.every((d) => d.state === 'succeeded'));
    const page1 = await deliveries(key, endpoint.id, { limit: 2 });
    expect(page1.data).toHaveLength(2);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = await deliveries(key, endpoint.id, { limit: 2, cursor: page1.next_cursor! });
    expect(page2.data).toHaveLength(1);
    expect(page2.next_cursor).toBeNull();
    expect(page2.data[0]!.id).toBe(first.id);
    expect(new Set([...page1.data, ...page2.data].map((d) => d.id)).size).toBe(3);
  });
});

describe('isolation', () => {
  test("one account never sees or changes another's endpoints or deliveries, on any operation", async () => {
    const owner = await newKey(server.orm, { plan: 'pro' });
    const other = (await newKey(server.orm, { plan: 'enterprise' })).key;
    const path = receiverPath();
    const { endpoint } = await createEndpoint(owner.key, path);
    const delivery = await sendTest(owner.key, endpoint.id);
    await receiver.waitFor(path, 1);
    const ids = { endpoint_id: endpoint.id };
    const json = { 'Content-Type': 'application/json' };
    const attempts = {
      getWebhookEndpoint: await sendRaw(server.url, 'getWebhookEndpoint', { key: other, path: ids }),
      updateWebhookEndpoint: await sendRaw(server.url, 'updateWebhookEndpoint', { key: other, path: ids, headers: json, body: JSON.stringify({ enabled: false }) }),
      rotateWebhookSecret: await sendRaw(server.url, 'rotateWebhookSecret', { key: other, path: ids }),
      sendWebhookTest: await sendRaw(server.url, 'sendWebhookTest', { key: other, path: ids }),
      listWebhookDeliveries: await sendRaw(server.url, 'listWebhookDeliveries', { key: other, path: ids }),
      redeliverWebhook: await sendRaw(server.url, 'redeliverWebhook', { key: other, path: { ...ids, delivery_id: delivery.id } }),
      deleteWebhookEndpoint: await sendRaw(server.url, 'deleteWebhookEndpoint', { key: other, path: ids }),
    };
    for (const [operation, res] of Object.entries(attempts)) {
      expect({ operation, status: res.status, body: res.body }).toEqual({ operation, status: 404, body: { detail: `No webhook endpoint with id ${endpoint.id}.` } });
    }
    expect((await apiClient(server.url, other).GET(ENDPOINTS)).data!.data).toEqual([]);
    // the owner's endpoint is untouched, and got nothing more
    expect(await endpointOf(owner.key, endpoint.id)).toEqual(endpoint);
    expect((await deliveries(owner.key, endpoint.id)).data).toHaveLength(1);
    // another endpoint's delivery, even of the same account, is not this endpoint's
    const second = await createEndpoint(owner.key, receiverPath());
    expect((await sendRaw(server.url, 'redeliverWebhook', { key: owner.key, path: { endpoint_id: second.endpoint.id, delivery_id: delivery.id } })).status).toBe(404);
  });
});

describe('events', () => {
  test('keys created, rolled and revoked and subscription changes in the dashboard each send their event', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('webhook-events'));
    expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan: 'pro', trial: true } })).response.status).toBe(200);
    const key = (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name: 'manager' } })).data!.key;
    const path = receiverPath();
    const { secret } = await createEndpoint(key, path, ['api_key.created', 'api_key.revoked', 'subscription.activated', 'subscription.updated', 'subscription.cancelled']);

    const made = (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name: 'school site' } })).data!.api_key;
    const rolled = (await browser.client.POST('/dashboard/api/keys/{key_id}/roll', { params: { path: { key_id: made.id }, header: csrf(browser) }, body: { grace_minutes: 0 } })).data!.api_key;
    expect((await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: rolled.id }, header: csrf(browser) } })).response.status).toBe(200);
    expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan: 'free' } })).response.status).toBe(200);
    expect((await browser.client.POST('/dashboard/api/subscription/cancel', { params: { header: csrf(browser) } })).response.status).toBe(200);

    const events = (await receiver.waitFor(path, 6)).map((r) => verified(r, secret));
    const summary = events.map((e) => [e.type, (e.data.api_key as { id?: string } | undefined)?.id ?? e.data.plan]);
    expect(summary).toEqual(expect.arrayContaining([
      ['api_key.created', made.id],
      ['api_key.created', rolled.id],
      ['api_key.revoked', made.id],
      ['api_key.revoked', rolled.id],
      ['subscription.updated', 'free'],
      ['subscription.cancelled', 'free'],
    ]));
    expect(events).toHaveLength(6);
    expect(events.find((e) => e.type === 'api_key.revoked' && (e.data.api_key as { id: string }).id === rolled.id)?.data.api_key).toMatchObject({ state: 'revoked', name: 'school site' });
    // the audit log still records each change once, with who made it
    const audit = (await browser.client.GET('/dashboard/api/audit-log')).data!;
    expect(JSON.stringify(audit)).toContain('key.rolled');
  });

  test('a new subscription sends subscription.activated', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('webhook-activated'));
    expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan: 'pro', trial: true } })).response.status).toBe(200);
    const key = (await browser.client.POST('/dashboard/api/keys', { params: { header: csrf(browser) }, body: { name: 'manager' } })).data!.key;
    const path = receiverPath();
    const { secret } = await createEndpoint(key, path, ['subscription.activated']);
    expect((await browser.client.POST('/dashboard/api/subscription/cancel', { params: { header: csrf(browser) } })).response.status).toBe(200);
    // cancelled, then the Free plan: activated again (the account had no plan)
    expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: csrf(browser) }, body: { plan: 'free' } })).response.status).toBe(200);
    const [event] = (await receiver.waitFor(path, 1)).map((r) => verified(r, secret));
    expect(event).toMatchObject({ type: 'subscription.activated', data: { plan: 'free', state: 'active', current_period_end: null, trial_ends_at: null } });
  });

  test('usage thresholds send one event each at 50, 80 and 100% of the quota, and a refusal one usage.rate_limited an hour', async () => {
    // the quota and the minute's limit run out with the same request: the refusals are for the month
    const plan = await newPlan(server.orm, { perMinute: 10, perDay: 100, perMonth: 10, webhooks: true });
    const manager = await newKey(server.orm, { plan });
    const path = receiverPath();
    const { secret } = await createEndpoint(manager.key, path, ['usage.threshold_reached', 'usage.rate_limited']);
    const user = await newKey(server.orm, { plan, accountId: manager.accountId });
    const statuses: number[] = [];
    const codes: string[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await sendRaw(server.url, 'getUsage', { key: user.key });
      statuses.push(res.status);
      if (res.status === 429) codes.push((res.body as { error: { code: string } }).error.code);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    expect(codes).toEqual(['quota_exceeded', 'quota_exceeded']);
    const events = (await receiver.waitFor(path, 4)).map((r) => verified(r, secret));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received.filter((r) => r.path === path)).toHaveLength(4);
    const thresholds = events.filter((e) => e.type === 'usage.threshold_reached').map((e) => e.data).sort((a, b) => Number(a.threshold_percent) - Number(b.threshold_percent));
    expect(thresholds).toEqual([50, 80, 100].map((percent) => ({
      api_key_id: user.keyId,
      threshold_percent: percent,
      monthly_quota: 10,
      requests_this_period: percent / 10,
      period_start: new Date().toISOString().slice(0, 8) + '01',
    })));
    expect(events.filter((e) => e.type === 'usage.rate_limited').map((e) => e.data)).toEqual([{ api_key_id: user.keyId, code: 'quota_exceeded', limit: 'month' }]);
  });
});

describe('the outbox', () => {
  test('an event is written with the change that records it, and not at all when that change rolls back', async () => {
    const { accountId } = await newKey(server.orm, { plan: 'pro' });
    const count = async (marker: string) =>
      (await server.orm.em.fork().getConnection().execute<{ n: number }[]>("select count(*)::int as n from webhook_event where account_id = ? and data->>'marker' = ?", [accountId, marker]))[0]!.n;
    await expect(server.orm.em.fork().transactional(async (tx) => {
      recordEvent(tx, accountId, 'api_key.created', { marker: 'rolled back' }, new Date());
      await tx.flush();
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    await server.orm.em.fork().transactional((tx) => {
      recordEvent(tx, accountId, 'api_key.created', { marker: 'committed' }, new Date());
      return Promise.resolve();
    });
    expect([await count('rolled back'), await count('committed')]).toEqual([0, 1]);
  });
});

describe('retention', () => {
  test('events older than 30 days leave with their deliveries and attempts; newer ones stay', async () => {
    const { key } = await newKey(server.orm, { plan: 'pro' });
    const path = receiverPath();
    const { endpoint } = await createEndpoint(key, path);
    const recent = await sendTest(key, endpoint.id);
    await settled(key, endpoint.id, (list) => list[0]?.state === 'succeeded');
    // the same event as if made 31 days ago, delivered then
    const em = server.orm.em.fork();
    await em.getConnection().execute("update webhook_event set created_at = now() - interval '31 days' where id = ?", [recent.event_id]);
    const kept = await sendTest(key, endpoint.id);
    expect(await pruneEvents(em, new Date())).toBeGreaterThanOrEqual(1);
    expect((await deliveries(key, endpoint.id)).data.map((d) => d.id)).toEqual([kept.id]);
  });
});
