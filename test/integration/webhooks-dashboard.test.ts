import { join } from 'node:path';
import { beforeAll, expect, test } from '@jest/globals';
import { pino } from 'pino';
import { systemClock } from '../../src/clock.js';
import { WebhookWorker } from '../../src/jobs/webhook-worker.js';
import { ARTIFACTS, launchBrowser, watchedPage } from './support/browser.js';
import { onCleanup } from './support/cleanup.js';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { startServer, testServices, type TestServer } from './support/server.js';
import { answer, startReceiver, verified, type Receiver } from './support/webhook-receiver.js';

// The dashboard's webhook pages, as a browser without JavaScript uses them (HTML and form posts
// with the session cookie and CSRF token): add an endpoint, see its secret once, send a test
// event, read the delivery log, redeliver, disable, delete; plans without webhooks only list and
// delete endpoints, and other accounts' endpoints are refused. Then in Chromium: the delivery log updates by itself while a
// delivery is on its way.

let receiver: Receiver;
let server: TestServer;

beforeAll(async () => {
  receiver = await startReceiver();
  const services = testServices({}, { WEBHOOKS_TEST_LOOPBACK_SUFFIX: '.test', WEBHOOK_CA_FILE: receiver.caFile, WEBHOOK_POLL_MS: '50', SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' });
  server = await startServer({ services });
  const worker = new WebhookWorker(server.orm, services, systemClock, pino({ level: 'silent' }));
  worker.start();
  onCleanup(() => worker.stop());
});

async function signedIn(plan: 'free' | 'pro'): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(server.url);
  await browser.signUp(uniqueEmail(`webhook-pages-${plan}`));
  const body = plan === 'free' ? { plan } : { plan, trial: true };
  expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body })).response.status).toBe(200);
  return browser;
}

test('add an endpoint, test it, read its delivery log, redeliver, disable and delete it', async () => {
  const browser = await signedIn('pro');
  const path = '/hook/pages';
  receiver.route(path, answer(200, 'thanks'));
  expect((await browser.page('/dashboard/webhooks')).html).toContain('Add an endpoint');

  const refused = await browser.submit('/dashboard/webhooks', { url: 'https://10.0.0.5/hook', 'event:api_key.created': 'on' });
  expect(refused.status).toBe(400);
  expect(refused.html).toContain('only HTTPS URLs to hosts with public addresses are');
  // the form refuses what URL parsing would silently drop, as the API does
  const tab = await browser.submit('/dashboard/webhooks', { url: receiver.url('/ho\tok'), 'event:api_key.created': 'on' });
  expect(tab.status).toBe(400);
  expect(tab.html).toContain('it contains control characters (such as a tab or a line break); remove them');
  // an over-long note or URL is refused as the JSON operation refuses it, never cut short
  const long = await browser.submit('/dashboard/webhooks', { url: receiver.url('/hook-long'), description: 'n'.repeat(201), 'event:api_key.created': 'on' });
  expect(long.status).toBe(400);
  expect(long.html).toContain('description');
  const longUrl = await browser.submit('/dashboard/webhooks', { url: receiver.url(`/${'u'.repeat(2100)}`), 'event:api_key.created': 'on' });
  expect(longUrl.status).toBe(400);

  const created = await browser.submit('/dashboard/webhooks', { url: receiver.url(path), description: 'from the pages', 'event:api_key.created': 'on', 'event:api_key.revoked': 'on' });
  expect(created.status).toBe(201);
  const secret = /whsec_[A-Za-z0-9+/]+={0,2}/.exec(created.html)![0];
  const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})/.exec(created.html)![1]!;
  const list = (await browser.page('/dashboard/webhooks')).html;
  expect(list).toContain(receiver.url(path));
  expect(list).toContain('api_key.created, api_key.revoked');
  expect(list).not.toContain('whsec_');

  const tested = await browser.submit(`/dashboard/webhooks/${id}/test`);
  expect([tested.status, tested.location]).toEqual([303, `/dashboard/webhooks/${id}?done=webhook-test`]);
  const [request] = await receiver.waitFor(path, 1);
  expect(verified(request!, secret).type).toBe('webhook.test');
  const logged = await browser.pageUntil(`/dashboard/webhooks/${id}`, (html) => html.includes('state-succeeded'));
  expect(logged).toContain('HTTP 200');
  expect(logged).toContain('thanks');
  const deliveryId = new RegExp(`/dashboard/webhooks/${id}/deliveries/([0-9a-f-]{36})/redeliver`).exec(logged)![1]!;

  expect((await browser.submit(`/dashboard/webhooks/${id}/deliveries/${deliveryId}/redeliver`)).status).toBe(303);
  const requests = await receiver.waitFor(path, 2);
  expect(requests[1]!.headers['webhook-id']).toBe(requests[0]!.headers['webhook-id']);

  const rotated = await browser.submit(`/dashboard/webhooks/${id}/rotate`);
  expect(rotated.status).toBe(200);
  expect(/whsec_[A-Za-z0-9+/]+={0,2}/.exec(rotated.html)![0]).not.toBe(secret);

  expect((await browser.submit(`/dashboard/webhooks/${id}/enabled`, { enabled: 'false' })).status).toBe(303);
  expect((await browser.page(`/dashboard/webhooks/${id}`)).html).toContain('disabled (manual)');
  expect((await browser.submit(`/dashboard/webhooks/${id}/test`)).status).toBe(409);

  expect((await browser.submit(`/dashboard/webhooks/${id}/delete`)).location).toBe('/dashboard/webhooks?done=webhook-deleted');
  expect((await browser.page(`/dashboard/webhooks/${id}`)).status).toBe(404);
});

test("plans without webhooks see why; another account's endpoint is not found", async () => {
  const owner = await signedIn('pro');
  const created = await owner.submit('/dashboard/webhooks', { url: receiver.url('/hook/owner'), 'event:api_key.created': 'on' });
  const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})/.exec(created.html)![1]!;

  const free = await signedIn('free');
  expect((await free.page('/dashboard/webhooks')).html).toContain('part of the Pro and Enterprise plans; your account is on the Free plan');
  expect((await free.submit('/dashboard/webhooks', { url: receiver.url('/hook/free'), 'event:api_key.created': 'on' })).status).toBe(403);

  const other = await signedIn('pro');
  expect((await other.page(`/dashboard/webhooks/${id}`)).status).toBe(404);
  for (const action of ['test', 'rotate', 'delete']) expect((await other.submit(`/dashboard/webhooks/${id}/${action}`)).status).toBe(404);
  expect((await other.submit(`/dashboard/webhooks/${id}/enabled`, { enabled: 'false' })).status).toBe(404);
  expect((await other.page('/dashboard/webhooks')).html).not.toContain(id);
  expect((await owner.page(`/dashboard/webhooks/${id}`)).html).toContain('enabled');
});

test('after a move to Free the endpoints are still listed, with a note and a delete button, and the form deletes them', async () => {
  const browser = await signedIn('pro');
  const created = await browser.submit('/dashboard/webhooks', { url: receiver.url('/hook/downgraded'), 'event:subscription.updated': 'on' });
  const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})/.exec(created.html)![1]!;
  expect((await browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { plan: 'free' } })).response.status).toBe(200);

  const listed = await browser.page('/dashboard/webhooks');
  expect(listed.status).toBe(200);
  expect(listed.html).toContain(receiver.url('/hook/downgraded'));
  expect(listed.html).toContain('Your plan does not include webhooks');
  expect(listed.html).toContain(`action="/dashboard/webhooks/${id}/delete"`);
  // nothing else is offered: no form to add one, no test, rotation or endpoint page
  expect(listed.html).not.toContain('Add an endpoint');
  for (const action of ['test', 'rotate', 'enabled']) expect(listed.html).not.toContain(`/dashboard/webhooks/${id}/${action}`);
  expect(listed.html).not.toContain(`href="/dashboard/webhooks/${id}"`);
  expect((await browser.submit(`/dashboard/webhooks/${id}/rotate`)).status).toBe(403);

  // the form as a browser posts it, with the session's CSRF token; without the token it is refused
  expect((await browser.submit(`/dashboard/webhooks/${id}/delete`, {}, '')).status).toBe(403);
  const deleted = await browser.submit(`/dashboard/webhooks/${id}/delete`);
  expect([deleted.status, deleted.location]).toEqual([303, '/dashboard/webhooks?done=webhook-deleted']);
  const after = await browser.page('/dashboard/webhooks?done=webhook-deleted');
  expect(after.html).toContain('The endpoint is deleted.');
  expect(after.html).not.toContain(receiver.url('/hook/downgraded'));
});

test('in Chromium, the delivery log updates by itself while a delivery is on its way', async () => {
  const browser = await signedIn('pro');
  const path = '/hook/slow';
  // the answer takes a while, so that the page arrives while the delivery is still pending
  receiver.route(path, (request, response) => void setTimeout(() => answer(200, 'late but fine')(request, response), 5_000));
  const created = await browser.submit('/dashboard/webhooks', { url: receiver.url(path), 'event:api_key.created': 'on' });
  const id = /\/dashboard\/webhooks\/([0-9a-f-]{36})/.exec(created.html)![1]!;

  const chromium = await launchBrowser();
  const { page: tab, outside, errors } = await watchedPage(chromium, [server.url]);
  await tab.context().addCookies([{ name: 'svc_session', value: browser.cookie!, url: server.url }]);
  await tab.goto(`${server.url}/dashboard/webhooks/${id}`);
  expect(await tab.locator('#deliveries').getAttribute('data-live')).toBe('false');
  await tab.getByRole('button', { name: 'Send a test event' }).click();
  await tab.waitForURL(`${server.url}/dashboard/webhooks/${id}?done=webhook-test`);
  expect(await tab.locator('#deliveries').getAttribute('data-live')).toBe('true');
  expect(await tab.locator('#webhook-deliveries td.state').textContent()).toMatch(/^pending/);
  // not reloaded: a marker on the page survives until the delivery reads succeeded
  await tab.evaluate(`document.body.setAttribute('data-marker', 'same page')`);
  await tab.locator('td.state-succeeded').waitFor({ timeout: 60_000 });
  expect(await tab.evaluate(`document.body.getAttribute('data-marker')`)).toBe('same page');
  expect(await tab.locator('#deliveries').getAttribute('data-live')).toBe('false');
  expect(await tab.locator('#webhook-deliveries').textContent()).toContain('late but fine');
  await tab.screenshot({ path: join(ARTIFACTS, 'dashboard-webhook.png'), fullPage: true });
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
}, 120_000);
