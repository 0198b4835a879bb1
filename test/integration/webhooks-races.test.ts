import { beforeAll, expect, test } from '@jest/globals';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { waitsForLock } from './support/locks.js';
import { startServer, testServices, type TestServer } from './support/server.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

// A change of plan fans out the account's pending webhook events in its own transaction, and may
// meet a delete of one of its endpoints half-way. The server runs no relay, so the events wait
// for the plan change's fan-out.

let receiver: Receiver;
let server: TestServer;

beforeAll(async () => {
  receiver = await startReceiver();
  const services = testServices({}, { WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.test', WEBHOOK_CA_FILE: receiver.caFile, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' });
  server = await startServer({ services });
});

const csrf = (browser: DashboardBrowser) => ({ header: { 'X-CSRF-Token': browser.csrf! } });

test("a plan change whose fan-out meets an endpoint's delete under way answers 200, and the event goes to no deleted endpoint", async () => {
  const browser = new DashboardBrowser(server.url);
  const email = uniqueEmail('plan-change-race');
  await browser.signUp(email);
  expect((await browser.client.POST('/dashboard/api/subscription', { params: csrf(browser), body: { plan: 'pro', trial: true } })).response.status).toBe(200);
  const created = await browser.submit('/dashboard/webhooks', { url: receiver.url('/hook/deleted'), 'event:api_key.created': 'on' });
  const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})/.exec(created.html)![1]!;
  // an event for the endpoint, pending: nothing relays it here
  expect((await browser.client.POST('/dashboard/api/keys', { params: csrf(browser), body: { name: 'pending event' } })).response.status).toBe(201);

  let changed: Promise<{ response: Response }> | undefined;
  // the endpoint's delete, held open until the plan change waits on it; the key's event is then
  // fanned out once the delete commits, to no endpoint
  await server.orm.em.fork().transactional(async (tx) => {
    await tx.execute('delete from webhook_endpoint where id = ?', [id]);
    changed = browser.client.POST('/dashboard/api/subscription', { params: csrf(browser), body: { plan: 'free' } });
    await waitsForLock(server.orm, '%webhook_%', 'the plan change');
  });
  expect((await changed!).response.status).toBe(200);
  const [left] = await server.orm.em.fork().execute<{ deliveries: number; pending: number }[]>(
    `select (select count(*)::int from webhook_delivery where endpoint_id = ?) as deliveries,
       (select count(*)::int from webhook_event e join dashboard_user u on u.account_id = e.account_id where u.email = ? and e.type = 'api_key.created' and e.dispatched_at is null) as pending`,
    [id, email],
  );
  expect(left).toEqual({ deliveries: 0, pending: 0 });
});
