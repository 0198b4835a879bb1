import { beforeAll, describe, expect, test } from '@jest/globals';
import { createHash } from 'node:crypto';
import { freePort } from '../../scripts/lib/free-port.js';
import { apiClient, sendRaw, type Schemas } from './support/contract.js';
import { DashboardBrowser, linkToken, uniqueEmail } from './support/dashboard.js';
import { ManualClock } from './support/clock.js';
import { runProcess } from './support/processes.js';
import { databaseUrl, HASH_SECRET, startServer, testServices, type TestServer } from './support/server.js';
import { until } from './support/until.js';

// Paid plans through the local PayHere sandbox (scripts/payhere-sandbox.ts, started with the test
// services), which speaks PayHere's protocol: the checkout form, then signed notifications to the
// service's notify_url, processed by the durable job queue (pg-boss on the test database).

let server: TestServer;
let services: ReturnType<typeof testServices>;
const sandbox = process.env.PAYHERE_SANDBOX_URL;
// moved forward by the renewals test (to the end of a first month) and by the trial test, which runs last
const clock = new ManualClock(new Date());

beforeAll(async () => {
  if (!sandbox) throw new Error('PAYHERE_SANDBOX_URL is not set: run the tests through scripts/test.sh');
  // the gateway calls back the address the service gives it: the server's own
  const port = await freePort();
  // a notice whose payment PayHere does not list is tried once more (about 2 s later), then ignored
  services = testServices({}, { API_BASE_URL: `http://127.0.0.1:${port}`, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000', PAYHERE_UNLISTED_RETRIES: '1' });
  server = await startServer({ services, port, clock });
});

async function verifiedBrowser(label: string): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(server.url);
  const email = uniqueEmail(label);
  await browser.signUp(email);
  const token = await linkToken(email, '/dashboard/verify-email');
  expect((await browser.client.POST('/dashboard/api/verify-email', { body: { token } })).response.status).toBe(204);
  return browser;
}

async function checkout(browser: DashboardBrowser, plan: 'starter' | 'pro' | 'enterprise'): Promise<Schemas['Checkout']> {
  const { response, data } = await browser.client.POST('/dashboard/api/checkout', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { plan } });
  expect(response.status).toBe(201);
  return data!;
}

/** What the customer's browser does on the gateway: post the form, then press Pay or Decline. */
async function payOnGateway(order: Schemas['Checkout'], outcome: 'paid' | 'declined', options: { duplicate?: boolean; delayMs?: number; unlistedLookups?: number } = {}): Promise<string> {
  const page = await fetch(order.action_url, { method: 'POST', body: new URLSearchParams(order.fields) });
  expect(page.status).toBe(200);
  const checkoutId = /name="checkout" value="([^"]+)"/.exec(await page.text())![1]!;
  const done = await fetch(`${sandbox}/pay/complete`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ checkout: checkoutId, outcome, duplicate: options.duplicate ? '1' : '0', delay_ms: String(options.delayMs ?? 0), unlisted_lookups: String(options.unlistedLookups ?? 0) }),
  });
  expect(done.status).toBe(302);
  return done.headers.get('location')!;
}

async function orderState(browser: DashboardBrowser, orderId: string, done: (state: string) => boolean): Promise<string> {
  return until(async () => (await browser.client.GET('/dashboard/api/checkout/{order_id}', { params: { path: { order_id: orderId } } })).data!.state, done);
}

async function createKey(browser: DashboardBrowser) {
  return browser.client.POST('/dashboard/api/keys', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { name: 'paid' } });
}

async function sandboxCall(path: string, body: unknown): Promise<void> {
  const res = await fetch(`${sandbox}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
}

async function gatewaySubscriptionOf(browser: DashboardBrowser): Promise<string | null> {
  const rows = await server.orm.em.fork().execute<{ gateway_subscription_id: string | null }[]>(
    'select gateway_subscription_id from subscription s join dashboard_user u on u.account_id = s.account_id where u.email = ?',
    [(await browser.client.GET('/dashboard/api/session')).data!.user.email],
  );
  return rows[0]?.gateway_subscription_id ?? null;
}

async function gatewayState(gatewaySubscriptionId: string): Promise<string> {
  const res = await fetch(`${sandbox}/sandbox/subscriptions/${gatewaySubscriptionId}`);
  return ((await res.json()) as { state: string }).state;
}

/** How each job stopping these recurring payments ended, as the server logged it. */
function cancelOutcomes(gatewaySubscriptionId: string): string[] {
  return server.logs
    .map((line) => JSON.parse(line) as { msg: string; gatewaySubscription?: string; outcome?: string })
    .filter((l) => l.msg === 'recurring payments stopped at the gateway' && l.gatewaySubscription === gatewaySubscriptionId)
    .map((l) => l.outcome!);
}

async function paidFor(browser: DashboardBrowser, plan: 'starter' | 'pro' | 'enterprise'): Promise<void> {
  const order = await checkout(browser, plan);
  await payOnGateway(order, 'paid');
  expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
}

/** The subscription events the account's changes wrote to the webhook outbox: [type, plan]. */
async function subscriptionEvents(browser: DashboardBrowser): Promise<[string, string][]> {
  const email = (await browser.client.GET('/dashboard/api/session')).data!.user.email;
  const rows = await server.orm.em.fork().execute<{ type: string; plan: string }[]>(
    "select e.type, e.data->>'plan' as plan from webhook_event e join dashboard_user u on u.account_id = e.account_id where u.email = ? and e.type like 'subscription.%' order by e.created_at, e.id",
    [email],
  );
  return rows.map((r) => [r.type, r.plan]);
}

async function subscriptionOf(browser: DashboardBrowser) {
  return (await browser.client.GET('/dashboard/api/session')).data!.subscription;
}

/** How many of the order's notifications have been processed. */
async function processedNotices(orderId: string): Promise<number> {
  const rows = await server.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from payment_notification where order_id = ? and processed_at is not null', [orderId]);
  return rows[0]!.n;
}

/** The gateway's recurring payments named by the order's notifications, in the order received. */
async function recurringOfOrder(orderId: string): Promise<string[]> {
  const rows = await server.orm.em.fork().execute<{ body: string }[]>('select body from payment_notification where order_id = ? order by id', [orderId]);
  return [...new Set(rows.map((r) => new URLSearchParams(r.body).get('subscription_id')!))];
}

/** The recurring payments PayHere lists for the order, as its merchant API lists them. */
async function recurringAtGateway(orderId: string): Promise<string[]> {
  const basic = Buffer.from(`${process.env.PAYHERE_APP_ID}:${process.env.PAYHERE_APP_SECRET}`).toString('base64');
  const token = (await (await fetch(`${sandbox}/merchant/v1/oauth/token`, { method: 'POST', headers: { Authorization: `Basic ${basic}` }, body: 'grant_type=client_credentials' })).json()) as { access_token: string };
  const listed = (await (await fetch(`${sandbox}/merchant/v1/subscription`, { headers: { Authorization: `Bearer ${token.access_token}` } })).json()) as { data: { subscription_id: number; order_id: string }[] | null };
  return (listed.data ?? []).filter((s) => s.order_id === orderId).map((s) => String(s.subscription_id));
}

/**
 * A notification for the order signed as PayHere signs it, with fields of its own: md5sig covers
 * the merchant, order, amount, currency and status only, so this is what a copy of a real one can be.
 */
function signedNotice(order: Schemas['Checkout'], fields: Record<string, string>, amount = order.fields.amount!, status = '2'): string {
  const secret = process.env.PAYHERE_MERCHANT_SECRET!;
  const signed = { merchant_id: order.fields.merchant_id!, order_id: order.order_id, payhere_amount: amount, payhere_currency: 'LKR', status_code: status };
  const md5 = (text: string) => createHash('md5').update(text).digest('hex').toUpperCase();
  const md5sig = md5(`${signed.merchant_id}${signed.order_id}${signed.payhere_amount}${signed.payhere_currency}${signed.status_code}${md5(secret)}`);
  return new URLSearchParams({ ...signed, md5sig, ...fields }).toString();
}

async function sendSigned(order: Schemas['Checkout'], fields: Record<string, string>, amount?: string, status?: string): Promise<void> {
  expect((await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: signedNotice(order, fields, amount, status) })).status).toBe(200);
}

/**
 * A notice of the order's payment `paymentId` stored as receiving one stores it, but never queued.
 * PayHere does not list the payment, so its job, once queued, retries a while before ignoring it.
 */
async function storedNotQueued(order: Schemas['Checkout'], paymentId: string): Promise<{ id: string }> {
  const [row] = await server.orm.em.fork().execute<{ id: string }[]>(
    'insert into payment_notification (received_at, body, verified, dedupe_key, order_id) values (now(), ?, true, ?, ?) returning id::text as id',
    [signedNotice(order, { payment_id: paymentId }), `payhere:${order.order_id}:${paymentId}:2:`, order.order_id],
  );
  return row!;
}

/** The notices the sandbox has sent, each with its fields as signed and sent. */
async function sentNotices(): Promise<Record<string, string>[]> {
  const res = await fetch(`${sandbox}/sandbox/notifications`);
  return ((await res.json()) as { fields: Record<string, string> }[]).map((n) => n.fields);
}

/** Sends a notice as it is, as someone who caught one on its way could. */
async function resend(fields: Record<string, string>): Promise<void> {
  expect((await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() })).status).toBe(200);
}

async function outcomes(orderId: string): Promise<string[]> {
  const rows = await server.orm.em.fork().execute<{ outcome: string }[]>('select outcome from payment_notification where order_id = ? and processed_at is not null order by id', [orderId]);
  return rows.map((r) => r.outcome);
}

function cancel(browser: DashboardBrowser) {
  return browser.client.POST('/dashboard/api/subscription/cancel', { params: { header: { 'X-CSRF-Token': browser.csrf! } } });
}

function subscribeFree(browser: DashboardBrowser) {
  return browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { plan: 'free' } });
}

describe('paid plans through the PayHere sandbox', () => {
  test('a Pro checkout: 402 while the notification is on its way, then an active Pro subscription, an invoice and a working key', async () => {
    const browser = await verifiedBrowser('pro');
    const order = await checkout(browser, 'pro');
    expect(order).toMatchObject({ state: 'pending', plan: 'Pro', amount_lkr: 3499 });
    expect(order.fields).toMatchObject({ currency: 'LKR', amount: '3499.00', recurrence: '1 Month', notify_url: `${server.url}/billing/payhere/notify` });
    const back = await payOnGateway(order, 'paid', { delayMs: 1500 });
    expect(back).toBe(`${server.url}/dashboard/billing?order=${order.order_id}`);
    const waiting = await createKey(browser);
    expect(waiting.response.status).toBe(402);

    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'active' });
    const { response, data } = await createKey(browser);
    expect(response.status).toBe(201);
    const plans = await apiClient(server.url, data!.key).GET('/api/v1/dev/plans');
    expect(plans.data!.current_plan.name).toBe('Pro');
    const invoices = (await browser.client.GET('/dashboard/api/invoices')).data!.invoices;
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ order_id: order.order_id, plan: 'Pro', amount: 3499, currency: 'LKR' });
  });

  test('a declined payment leaves the account without a plan', async () => {
    const browser = await verifiedBrowser('declined');
    const order = await checkout(browser, 'starter');
    expect(await payOnGateway(order, 'declined')).toContain('cancelled=1');
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('declined');
    expect(await subscriptionOf(browser)).toBeNull();
    expect((await createKey(browser)).response.status).toBe(402);
  });

  test('a notification sent twice is processed once', async () => {
    const browser = await verifiedBrowser('twice');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid', { duplicate: true });
    expect(await orderState(browser, order.order_id, (s) => s === 'paid')).toBe('paid');
    const rows = await until(
      () => server.orm.em.fork().execute<{ outcome: string | null }[]>('select outcome from payment_notification where order_id = ? order by id', [order.order_id]),
      (r) => r.length === 2 && r.every((x) => x.outcome !== null),
    );
    expect(rows.map((r) => r.outcome)).toEqual(['paid', 'duplicate']);
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(1);
    // one webhook event, written with the change it reports
    expect(await subscriptionEvents(browser)).toEqual([['subscription.activated', 'starter']]);
  });

  test('renewals extend the period, also when they arrive out of order; a failed renewal changes nothing; a stop cancels', async () => {
    const browser = await verifiedBrowser('renew');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s === 'paid')).toBe('paid');
    const first = await subscriptionOf(browser);
    const gatewayId = (await gatewaySubscriptionOf(browser))!;
    // the gateway charges the second and third months at once, at the end of the first (a next
    // charge date more than two months and a few days ahead is not believed)
    const email = (await browser.client.GET('/dashboard/api/session')).data!.user.email;
    clock.advance(29 * 86_400_000);
    expect((await browser.logIn(email, 'a long enough password')).status).toBe(200);
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success', count: 2, reversed: true });
    const invoices = await until(async () => (await browser.client.GET('/dashboard/api/invoices')).data!.invoices, (list) => list.length === 3);
    expect(invoices).toHaveLength(3);
    const latestEnd = invoices.map((i) => i.period_end).sort().at(-1);
    // the plan runs three days past the paid month, while the next charge arrives
    const usableUntil = new Date(Date.parse(latestEnd!) + 3 * 86_400_000).toISOString();
    const renewed = await until(() => subscriptionOf(browser), (s) => s?.current_period_end === usableUntil);
    expect(renewed!.current_period_end).toBe(usableUntil);
    // and the period starts with the latest payment (it stayed at the first one's)
    expect(renewed!.current_period_start).toBe(invoices.map((i) => i.period_start).sort().at(-1));
    expect(new Date(latestEnd!).getTime()).toBeGreaterThan(new Date(first!.current_period_end!).getTime() + 50 * 86_400_000);

    // copies of a real renewal, signed by the gateway, claiming what its signature leaves out: a
    // payment id and a next charge date of their own, or another message type for the same payment
    const real = (await sentNotices()).find((n) => n.order_id === order.order_id && n.message_type === 'RECURRING_INSTALLMENT_SUCCESS')!;
    await resend({ ...real, payment_id: '4971894179', item_rec_date_next: '2099-12-31' });
    await resend({ ...real, message_type: 'AUTHORIZATION_SUCCESS' });
    await until(() => processedNotices(order.order_id), (n) => n === 5);
    expect(await subscriptionOf(browser)).toMatchObject({ state: 'active', current_period_end: usableUntil });
    expect(await outcomes(order.order_id)).toEqual(
      expect.arrayContaining(['ignored: the gateway lists no payment 4971894179 received for the order', `ignored: payment ${real.payment_id} is counted already`]),
    );
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(3);

    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'failed' });
    await until(() => processedNotices(order.order_id), (n) => n === 6);
    expect(await subscriptionOf(browser)).toMatchObject({ state: 'active', current_period_end: usableUntil });

    await sandboxCall('/sandbox/stop', { subscription_id: gatewayId });
    expect(await until(() => subscriptionOf(browser), (s) => s?.state === 'cancelled')).toMatchObject({ state: 'cancelled' });
    expect((await createKey(browser)).response.status).toBe(402);
    // each change wrote its webhook event; the copies, the failed renewal and the renewal that
    // paid for no later time changed nothing and wrote none (the test's clock stands still meanwhile, so the events'
    // times do not order them)
    expect((await subscriptionEvents(browser)).sort()).toEqual([
      ['subscription.activated', 'starter'],
      ['subscription.cancelled', 'starter'],
      // the later renewal, noticed first; the earlier one, noticed after it, pays for no later time and changes nothing
      ['subscription.updated', 'starter'],
    ]);
  });

  test("a renewal whose notice comes before the first payment's gives the plan; the first payment's, late, changes nothing", async () => {
    // the service's clock reads the sandbox's (earlier tests moved it on): choices and payments are compared
    clock.set(new Date());
    const browser = await verifiedBrowser('renewed-first');
    const order = await checkout(browser, 'starter');
    // the first payment's notice is held up past the next month's charge (dated a month after the
    // payment; the service's clock is left as it is, which later tests' paid months depend on)
    await payOnGateway(order, 'paid', { delayMs: 8000 });
    const [gatewayId] = await until(() => recurringAtGateway(order.order_id), (ids) => ids.length === 1);
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success' });
    const renewed = await until(() => subscriptionOf(browser), (s) => s?.plan === 'Starter');
    expect(renewed).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await outcomes(order.order_id)).toEqual(['renewed']);
    const [invoice] = (await browser.client.GET('/dashboard/api/invoices')).data!.invoices;
    // paid until a month after the renewal, and its recurring payments go on
    const usableUntil = new Date(Date.parse(invoice!.period_end) + 3 * 86_400_000).toISOString();
    expect(renewed!.current_period_end).toBe(usableUntil);
    await until(() => processedNotices(order.order_id), (n) => n === 2);
    expect((await outcomes(order.order_id)).sort()).toEqual(['paid', 'renewed']);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active', current_period_end: usableUntil });
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(2);
    expect(await gatewayState(gatewayId!)).toBe('active');
    expect(await gatewaySubscriptionOf(browser)).toBe(gatewayId);
    // the late notice changed nothing, and told no one it did: one event, the renewal's
    expect(await subscriptionEvents(browser)).toEqual([['subscription.activated', 'starter']]);
    // a renewal is no choice: a plan bought after it gives the plan
    const pro = await checkout(browser, 'pro');
    await payOnGateway(pro, 'paid');
    expect(await until(() => subscriptionOf(browser), (s) => s?.plan === 'Pro')).toMatchObject({ plan: 'Pro', state: 'active' });
  });

  test("a renewal noticed first while the account had chosen a trial after opening the checkout waits for the first payment's notice, which gives the plan paid until a month after the renewal", async () => {
    clock.set(new Date());
    const browser = await verifiedBrowser('renewed-first-trial');
    const order = await checkout(browser, 'starter');
    await new Promise((r) => setTimeout(r, 1100));
    clock.set(new Date());
    const trial = await browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { plan: 'pro', trial: true } });
    expect(trial.response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    await payOnGateway(order, 'paid', { delayMs: 8000 });
    const [gatewayId] = await until(() => recurringAtGateway(order.order_id), (ids) => ids.length === 1);
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success' });
    await until(() => processedNotices(order.order_id), (n) => n === 2);
    expect(await outcomes(order.order_id)).toEqual(["renewed: invoice recorded, the order's first payment is not seen yet: its notice decides", 'paid']);
    const invoices = (await browser.client.GET('/dashboard/api/invoices')).data!.invoices;
    expect(invoices).toHaveLength(2);
    const latestEnd = invoices.map((i) => i.period_end).sort().at(-1)!;
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active', current_period_end: new Date(Date.parse(latestEnd) + 3 * 86_400_000).toISOString() });
    // the renewal did not stop the recurring payments while the first payment's notice was due: they pay for the plan
    expect(await gatewaySubscriptionOf(browser)).toBe(gatewayId);
    expect(await gatewayState(gatewayId!)).toBe('active');
  });

  test('a payment made in the same second as a choice in the dashboard, noticed after it, gives the plan (PayHere dates payments to the second)', async () => {
    clock.set(new Date());
    const browser = await verifiedBrowser('same-second');
    const order = await checkout(browser, 'starter');
    // the choice is made now, by the service's clock, and the payment right after it
    clock.set(new Date());
    expect((await subscribeFree(browser)).response.status).toBe(200);
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await outcomes(order.order_id)).toEqual(['paid']);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
  });

  test('a copy of a signed notice claiming RECURRING_STOPPED leaves the plan while PayHere lists its recurring payments active; a genuine stop cancels it, also after PayHere could not be asked', async () => {
    const browser = await verifiedBrowser('forged-stop');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s === 'paid')).toBe('paid');
    const gatewayId = (await gatewaySubscriptionOf(browser))!;
    // md5sig leaves out message_type: the customer's own signed payment notice, sent on as a stop
    const real = (await sentNotices()).find((n) => n.order_id === order.order_id && n.message_type === 'AUTHORIZATION_SUCCESS')!;
    await resend({ ...real, message_type: 'RECURRING_STOPPED' });
    expect(await until(() => outcomes(order.order_id), (o) => o.length === 2)).toEqual(['paid', `ignored: the gateway lists recurring payments ${gatewayId} as ACTIVE`]);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await gatewaySubscriptionOf(browser)).toBe(gatewayId);
    expect(await gatewayState(gatewayId)).toBe('active');
    // PayHere goes on charging, and each charge goes on paying for the plan
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success' });
    expect((await until(() => outcomes(order.order_id), (o) => o.length === 3)).at(-1)).toBe('renewed');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await gatewayState(gatewayId)).toBe('active');

    // the customer stops them at PayHere, which cannot be asked when its notice arrives: the
    // notice's job fails, and its retry finds them stopped
    await sandboxCall('/sandbox/list-outage', { count: 1 });
    await sandboxCall('/sandbox/stop', { subscription_id: gatewayId });
    expect(await until(() => subscriptionOf(browser), (s) => s?.state === 'cancelled')).toMatchObject({ plan: 'Starter', state: 'cancelled' });
    expect((await outcomes(order.order_id)).at(-1)).toBe('stopped');
    expect(server.logs.some((line) => line.includes('job failed') && line.includes("PayHere's list of subscriptions answered 503"))).toBe(true);
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    expect((await subscriptionEvents(browser)).sort()).toEqual([
      ['subscription.activated', 'starter'],
      ['subscription.cancelled', 'starter'],
      ['subscription.updated', 'starter'],
    ]);
  });

  test("a stop naming another order's stopped recurring payments, or the order's own still charging, leaves a plan whose recurring payments are not recorded; PayHere's stop of its own cancels it", async () => {
    const other = await verifiedBrowser('stopped-elsewhere');
    await paidFor(other, 'starter');
    const othersRecurring = (await gatewaySubscriptionOf(other))!;
    expect((await cancel(other)).response.status).toBe(200);
    expect(await until(() => gatewayState(othersRecurring), (s) => s === 'cancelled')).toBe('cancelled');
    // the customer has the gateway's notice sent to them, and sends it on naming the other's
    // recurring payments: the payment counts, the recurring payments are not recorded as the plan's
    const browser = await verifiedBrowser('unrecorded-stop');
    const order = await checkout(browser, 'starter');
    await payOnGateway({ ...order, fields: { ...order.fields, notify_url: `${sandbox}/caught` } }, 'paid');
    const caught = (await until(async () => (await sentNotices()).find((n) => n.order_id === order.order_id), (n) => n !== undefined))!;
    const own = caught.subscription_id!;
    await resend({ ...caught, subscription_id: othersRecurring });
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    await resend({ ...caught, message_type: 'RECURRING_STOPPED', subscription_id: othersRecurring });
    expect((await until(() => outcomes(order.order_id), (o) => o.length === 2)).at(-1)).toBe(`ignored: the gateway lists recurring payments ${othersRecurring} for another order`);
    // (a payment id of its own: the notice above is its repeat otherwise, the recurring payments named being no part of that)
    await resend({ ...caught, message_type: 'RECURRING_STOPPED', payment_id: '320000401' });
    expect((await until(() => outcomes(order.order_id), (o) => o.length === 3)).at(-1)).toBe(`ignored: the gateway lists recurring payments ${own} as ACTIVE`);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await gatewayState(own)).toBe('active');

    // PayHere's own stop notice goes where the checkout said (the customer's), who sends it on as it is
    await sandboxCall('/sandbox/stop', { subscription_id: own });
    const stopped = (await until(async () => (await sentNotices()).find((n) => n.order_id === order.order_id && n.message_type === 'RECURRING_STOPPED'), (n) => n !== undefined))!;
    await resend(stopped);
    expect(await until(() => subscriptionOf(browser), (s) => s?.state === 'cancelled')).toMatchObject({ plan: 'Starter', state: 'cancelled' });
    expect((await outcomes(order.order_id)).at(-1)).toBe('stopped');
  });

  test('a notification with a tampered signature is stored, refused and changes nothing', async () => {
    const browser = await verifiedBrowser('tampered');
    const order = await checkout(browser, 'enterprise');
    const forged = new URLSearchParams({
      merchant_id: order.fields.merchant_id!,
      order_id: order.order_id,
      payment_id: '320000001',
      payhere_amount: '14999.00',
      payhere_currency: 'LKR',
      status_code: '2',
      md5sig: 'F'.repeat(32),
    });
    const res = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: forged.toString() });
    expect(res.status).toBe(403);
    const [row] = await server.orm.em.fork().execute<{ verified: boolean; outcome: string; body: string }[]>('select verified, outcome, body from payment_notification where order_id = ?', [order.order_id]);
    expect(row).toMatchObject({ verified: false, outcome: 'rejected: bad signature', body: forged.toString() });
    expect(server.logs.some((line) => line.includes('payment notification refused') && line.includes(order.order_id))).toBe(true);
    // a NUL byte (which no text field accepts, and PostgreSQL's text cannot store) makes a body that is no notification
    for (const body of ['md5sig=x&payhere_currency=LKR&payhere_amount=1&status_code=2&merchant_id=1&payment_id=1&order_id=%C3%9A%00', 'merchant_id=1\u0000&order_id=o&payment_id=1&payhere_amount=1&payhere_currency=LKR&status_code=2&md5sig=AA']) {
      const odd = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
      expect(odd.status).toBe(400);
    }
    expect(await subscriptionOf(browser)).toBeNull();
    expect(await orderState(browser, order.order_id, () => true)).toBe('pending');
  });

  test("past the address's allowance of refused notices a forged one is refused unstored (429); PayHere's signed notices still count", async () => {
    const browser = await verifiedBrowser('forger');
    const order = await checkout(browser, 'starter');
    // a minute of its own: the refusals of earlier tests (all from this address) are over
    clock.advance(61_000);
    const forged = (n: number) =>
      sendRaw(server.url, 'payhereNotify', {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ merchant_id: order.fields.merchant_id!, order_id: order.order_id, payment_id: String(330000000 + n), payhere_amount: order.fields.amount!, payhere_currency: 'LKR', status_code: '2', md5sig: 'F'.repeat(32) }).toString(),
      });
    const statuses: number[] = [];
    for (let n = 0; n < 62; n++) statuses.push((await forged(n)).status);
    expect(statuses.filter((s) => s === 403)).toHaveLength(60);
    expect(statuses.slice(60)).toEqual([429, 429]);
    const refused = await forged(99);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((refused.body as Schemas['Error']).error).toMatchObject({ code: 'rate_limit_exceeded', message: expect.stringContaining('Too many refused notifications') });
    const [stored] = await server.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from payment_notification where order_id = ?', [order.order_id]);
    expect(stored!.n).toBe(60);
    // the gateway's own notice, from the same address, is taken
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    clock.advance(61_000);
    expect((await forged(100)).status).toBe(403);
  });

  test('an order has at most 20 notices waiting: a year of renewals at once all count; copies of a real one under new payment ids past 20 are refused unstored (429), also sent at once', async () => {
    const browser = await verifiedBrowser('copies');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    await until(() => processedNotices(order.order_id), (n) => n === 1);
    // PayHere catching up on twelve months at once: every one is taken
    await sandboxCall('/sandbox/renew', { subscription_id: (await gatewaySubscriptionOf(browser))!, outcome: 'success', count: 12 });
    await until(() => processedNotices(order.order_id), (n) => n === 13);
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(13);
    const real = (await sentNotices()).find((n) => n.order_id === order.order_id)!;
    // PayHere lists none of these payments: each waits for a retry (2 s) before it is ignored
    const copies = await Promise.all(
      Array.from({ length: 22 }, (_, n) => sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...real, payment_id: String(340000000 + n) }).toString() })),
    );
    expect(copies.filter((r) => r.status === 200)).toHaveLength(20);
    const busy = copies.filter((r) => r.status === 429);
    expect(busy).toHaveLength(2);
    expect(busy[0]!.headers.get('retry-after')).toBe('60');
    expect((busy[0]!.body as Schemas['Error']).error.message).toContain('already has 20 notifications waiting');
    // PayHere repeating one of the twenty is told it arrived, though twenty wait
    const kept = copies.findIndex((r) => r.status === 200);
    const repeat = await sendRaw(server.url, 'payhereNotify', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ ...real, payment_id: String(340000000 + kept) }).toString() });
    expect(repeat.status).toBe(200);
    const [stored] = await server.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from payment_notification where order_id = ?', [order.order_id]);
    expect(stored!.n).toBe(34);
    // once they are ignored, the order takes notices again (twenty jobs that each wait for a retry: up to 90 s)
    for (let tries = 0; tries < 3 && (await processedNotices(order.order_id)) < 34; tries++) await until(() => processedNotices(order.order_id), (n) => n === 34);
    expect((await outcomes(order.order_id))[33]).toBe('duplicate');
    const ignored = (await outcomes(order.order_id)).slice(13, 33);
    expect(ignored.filter((o) => o.startsWith('ignored: the gateway lists no payment'))).toEqual(ignored);
    expect(ignored).toHaveLength(20);
    await resend({ ...real, payment_id: '340000099' });
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
  });

  test('a payment PayHere lists only after its notice arrived counts once listed; a refused access token is fetched again', async () => {
    const browser = await verifiedBrowser('late-listing');
    // the service has an access token once it has confirmed a payment; PayHere then lets it run out early
    await paidFor(browser, 'starter');
    await sandboxCall('/sandbox/expire-tokens', {});
    const order = await checkout(browser, 'pro');
    // missing from both lists the first look reads (the recurring payments', then the order's)
    await payOnGateway(order, 'paid', { unlistedLookups: 2 });
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'active' });
    const failures = server.logs.filter((line) => line.includes('job failed') && line.includes(order.order_id));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(`lists no payment`);
    expect(server.logs.filter((line) => line.includes('job failed') && line.includes('answered 401'))).toEqual([]);
  });

  test('a signed notice for no order of ours, or for another amount, is ignored at once, without waiting for PayHere to list its payment', async () => {
    const browser = await verifiedBrowser('not-ours');
    const order = await checkout(browser, 'starter');
    const stranger = { ...order, order_id: `not-ours-${Date.now()}` };
    await sendSigned(stranger, { payment_id: '320000101' });
    await sendSigned(order, { payment_id: '320000102' }, '1.00');
    expect(await until(() => outcomes(stranger.order_id), (o) => o.length === 1)).toEqual(['ignored: unknown order']);
    expect((await until(() => outcomes(order.order_id), (o) => o.length === 1))[0]).toMatch(/^ignored: paid 1\.00 LKR, the order is /);
    // the first attempt settled them: none failed for want of PayHere's listing
    expect(server.logs.filter((line) => line.includes('job failed') && (line.includes(stranger.order_id) || line.includes(order.order_id)))).toEqual([]);
    expect(await orderState(browser, order.order_id, () => true)).toBe('pending');
  });

  test('a notice stored but never queued (the process stopped between the two) is queued at start, once however many processes start', async () => {
    const browser = await verifiedBrowser('restart-sweep');
    const order = await checkout(browser, 'starter');
    const em = server.orm.em.fork();
    const row = await storedNotQueued(order, '320000201');
    // two processes start at once, each queueing the notices not processed yet
    const env = { PAYHERE_UNLISTED_RETRIES: '1' };
    const started = await Promise.all([startServer({ services: testServices({}, env) }), startServer({ services: testServices({}, env) })]);
    try {
      expect(await until(() => outcomes(order.order_id), (o) => o.length === 1)).toEqual(['ignored: the gateway lists no payment 320000201 received for the order']);
      const jobs = await em.execute<{ n: number }[]>("select count(*)::int as n from pgboss.job where name = 'billing-notification' and data->>'notificationId' = ?", [row.id]);
      expect(jobs[0]!.n).toBe(1);
    } finally {
      // the later tests read the jobs' outcomes in the first server's log
      await Promise.all(started.map((s) => s.close()));
    }
  });

  test('a notice stored but never queued (queueing it failed) is queued when PayHere sends it again', async () => {
    const browser = await verifiedBrowser('repeat-queues');
    const order = await checkout(browser, 'starter');
    await storedNotQueued(order, '320000202');
    await sendSigned(order, { payment_id: '320000202' });
    expect(await until(() => outcomes(order.order_id), (o) => o.length === 2)).toEqual(['ignored: the gateway lists no payment 320000202 received for the order', 'duplicate']);
  });

  test("a copy of one's own notice claiming another customer's coming payment id does not make that customer's notice a repeat", async () => {
    const forger = await verifiedBrowser('forger');
    const own = await checkout(forger, 'starter');
    const victim = await verifiedBrowser('shadowed');
    const order = await checkout(victim, 'starter');
    // the victim's notice is held back (sent elsewhere), so that the copy, with its payment id, arrives first
    await payOnGateway({ ...order, fields: { ...order.fields, notify_url: `${sandbox}/caught` } }, 'paid');
    const genuine = (await until(async () => (await sentNotices()).find((n) => n.order_id === order.order_id), (n) => n !== undefined))!;
    await sendSigned(own, { payment_id: genuine.payment_id!, recurring: '1', message_type: genuine.message_type!, subscription_id: genuine.subscription_id! });
    await resend(genuine);
    expect(await orderState(victim, order.order_id, (s) => s !== 'pending')).toBe('paid');
    expect(await subscriptionOf(victim)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await outcomes(order.order_id)).toEqual(['paid']);
    expect(await until(() => outcomes(own.order_id), (o) => o.length === 1)).toEqual([`ignored: the gateway lists no payment ${genuine.payment_id} received for the order`]);
  });

  test("the dashboard's forms offer only the plans customers may choose, not one made for one customer", async () => {
    const code = `custom-${Date.now()}`;
    await server.orm.em.fork().execute(
      `insert into plan (id, code, name, description, price_lkr, rate_limit_per_minute, rate_limit_per_day, monthly_quota, allowed_models, custom_knowledge_bases, webhooks, analytics, support, sort_order, listed)
       values (gen_random_uuid(), ?, 'Custom', 'Made for one customer', 500, 1000, 100000, 100000, '{svcai-fast,svcai-thinking}', true, true, 'custom', 'dedicated_sla', 99, false)`,
      [code],
    );
    const browser = await verifiedBrowser('unlisted');
    for (const [path, fields] of [['/dashboard/checkout', { plan: code }], ['/dashboard/subscription', { plan: code, trial: 'true' }], ['/dashboard/subscription', { plan: code }]] as const) {
      const refused = await browser.submit(path, fields);
      expect(refused.status).toBe(400);
      expect(refused.html).toMatch(/role="alert">Field &#39;plan&#39; must be one of: (free, )?starter, pro, enterprise\./);
    }
    expect(await subscriptionOf(browser)).toBeNull();
    const orders = await server.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from checkout_order o join plan p on p.id = o.plan_id where p.code = ?', [code]);
    expect(orders[0]!.n).toBe(0);
    // the forms' own plans still work
    expect((await browser.submit('/dashboard/subscription', { plan: 'free' })).status).toBe(303);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Free', state: 'active' });
  });

  test('the billing page says a cancelled checkout was cancelled, and stops reloading itself for a payment that does not come', async () => {
    const browser = await verifiedBrowser('abandoned');
    const order = await checkout(browser, 'pro');
    const refreshes = (html: string) => html.includes('http-equiv="refresh"');
    const waiting = await browser.page(`/dashboard/billing?order=${order.order_id}`);
    expect(waiting.html).toContain('is being processed');
    expect(refreshes(waiting.html)).toBe(true);
    // the gateway's cancel link, followed before any notice (none comes for a cancelled payment)
    const cancelled = await browser.page(`/dashboard/billing?order=${order.order_id}&cancelled=1`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.html).toContain('The payment for the Pro plan was declined or cancelled: nothing was charged. <a href="/dashboard">Choose a plan again</a>');
    expect(refreshes(cancelled.html)).toBe(false);
    // a payment still not in long after the checkout began: said once, without reloading
    await server.orm.em.fork().execute("update checkout_order set created_at = created_at - interval '1 hour' where id = ?", [order.order_id]);
    const late = await browser.page(`/dashboard/billing?order=${order.order_id}`);
    expect(late.html).toContain('has not reached us yet');
    expect(late.html).toContain('href="/dashboard">choose a plan again</a>');
    expect(refreshes(late.html)).toBe(false);
  });

  test('the overview shows a paid plan paid until the end of its paid month, without the grace, and a cancelled one paid until nothing', async () => {
    const browser = await verifiedBrowser('paid-until');
    await paidFor(browser, 'starter');
    const [invoice] = (await browser.client.GET('/dashboard/api/invoices')).data!.invoices;
    const subscription = (await subscriptionOf(browser))!;
    expect(subscription.current_period_end).not.toBe(invoice!.period_end);
    const paid = await browser.page('/dashboard');
    expect(paid.html).toContain(`paid until ${invoice!.period_end.slice(0, 10)}.`);
    expect((await cancel(browser)).response.status).toBe(200);
    const cancelled = await browser.page('/dashboard');
    expect(cancelled.html).toContain('state-cancelled');
    expect(cancelled.html).not.toContain('paid until');
  });

  test('checkout needs a confirmed email address, and one account never sees another\'s orders or invoices', async () => {
    const unverified = new DashboardBrowser(server.url);
    await unverified.signUp(uniqueEmail('unverified'));
    const refused = await unverified.client.POST('/dashboard/api/checkout', { params: { header: { 'X-CSRF-Token': unverified.csrf! } }, body: { plan: 'pro' } });
    expect(refused.response.status).toBe(403);

    const owner = await verifiedBrowser('order-owner');
    const order = await checkout(owner, 'pro');
    const other = await verifiedBrowser('order-other');
    const peek = await other.client.GET('/dashboard/api/checkout/{order_id}', { params: { path: { order_id: order.order_id } } });
    expect(peek.response.status).toBe(404);
    expect((await other.client.GET('/dashboard/api/invoices')).data!.invoices).toEqual([]);
  });

  test('a plan bought over another stops the other\'s recurring payments; cancelling stops them too', async () => {
    const browser = await verifiedBrowser('upgrade');
    await paidFor(browser, 'starter');
    const starter = (await gatewaySubscriptionOf(browser))!;
    await paidFor(browser, 'pro');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'active' });
    const pro = (await gatewaySubscriptionOf(browser))!;
    expect(pro).not.toBe(starter);
    expect(await until(() => gatewayState(starter), (s) => s === 'cancelled')).toBe('cancelled');
    expect(await gatewayState(pro)).toBe('active');

    const cancelled = await cancel(browser);
    expect(cancelled.response.status).toBe(200);
    expect(cancelled.data!.state).toBe('cancelled');
    expect(await until(() => gatewayState(pro), (s) => s === 'cancelled')).toBe('cancelled');
    expect((await createKey(browser)).response.status).toBe(402);
    expect((await cancel(browser)).response.status).toBe(409);
  });

  test('a stop of recurring payments whose queueing fails after the plan change is committed is queued again, and done', async () => {
    const browser = await verifiedBrowser('stop-queue-fails');
    await paidFor(browser, 'starter');
    const starter = (await gatewaySubscriptionOf(browser))!;
    // the job queue refuses the stop once: after the commit of the notice that replaces the plan
    const send = services.jobs.send.bind(services.jobs);
    let refusals = 1;
    services.jobs.send = (queue, data, options) => (queue === 'billing-cancel-recurring' && refusals-- > 0 ? Promise.reject(new Error('job queue unavailable')) : send(queue, data, options));
    try {
      await paidFor(browser, 'pro');
      expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'active' });
      // the notice's job fails, and its retry (the change is applied already) queues the recorded stop
      expect(await until(() => gatewayState(starter), (s) => s === 'cancelled')).toBe('cancelled');
    } finally {
      services.jobs.send = send;
    }
    expect(refusals).toBeLessThan(0);
    expect(server.logs.some((line) => line.includes('job failed') && line.includes('job queue unavailable'))).toBe(true);
    // done stops are not kept
    const left = () => server.orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from recurring_stop where gateway_subscription_id = ?', [starter]);
    expect((await until(left, (rows) => rows[0]!.n === 0))[0]!.n).toBe(0);
  });

  test('a cancel whose stop cannot be queued is still made (200), and the billing worker\'s sweep stops the recurring payments later', async () => {
    // a process whose sweep runs every second, started before the stop exists: its start-time
    // queueing cannot have queued it, and what it queues afterwards is recorded
    const sweeperServices = testServices({}, { PAYHERE_UNLISTED_RETRIES: '1', BILLING_SWEEP_MS: '1000' });
    const sweeperSend = sweeperServices.jobs.send.bind(sweeperServices.jobs);
    const sweptStops: unknown[] = [];
    sweeperServices.jobs.send = (queue, data, options) => {
      if (queue === 'billing-cancel-recurring') sweptStops.push(data.gatewaySubscriptionId);
      return sweeperSend(queue, data, options);
    };
    const sweeper = await startServer({ services: sweeperServices, clock });
    try {
      const browser = await verifiedBrowser('stop-swept');
      await paidFor(browser, 'starter');
      const starter = (await gatewaySubscriptionOf(browser))!;
      const send = services.jobs.send.bind(services.jobs);
      services.jobs.send = (queue, data, options) => (queue === 'billing-cancel-recurring' ? Promise.reject(new Error('job queue unavailable')) : send(queue, data, options));
      try {
        const cancelled = await cancel(browser);
        expect(cancelled.response.status).toBe(200);
        expect(cancelled.data).toMatchObject({ plan: 'Starter', state: 'cancelled' });
      } finally {
        services.jobs.send = send;
      }
      expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'cancelled' });
      expect(server.logs.some((line) => line.includes('could not queue the stop of recurring payments after a plan change') && line.includes('job queue unavailable'))).toBe(true);
      expect(await until(() => gatewayState(starter), (s) => s === 'cancelled')).toBe('cancelled');
      expect(sweptStops).toContain(starter);
    } finally {
      await sweeper.close();
    }
  });

  test('going back to Free from a paid plan takes effect at once and stops the recurring payments', async () => {
    const browser = await verifiedBrowser('downgrade');
    await paidFor(browser, 'starter');
    const { data } = await createKey(browser);
    const starter = (await gatewaySubscriptionOf(browser))!;
    const free = await subscribeFree(browser);
    expect(free.data).toMatchObject({ plan: 'Free', state: 'active' });
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).data!.current_plan.name).toBe('Free');
    expect(await until(() => gatewayState(starter), (s) => s === 'cancelled')).toBe('cancelled');
  });

  test('moving a paying account to another plan with npm run keys stops its recurring payments', async () => {
    const browser = await verifiedBrowser('operator-change');
    await paidFor(browser, 'starter');
    const starter = (await gatewaySubscriptionOf(browser))!;
    const account = (await browser.client.GET('/dashboard/api/session')).data!.account.id;
    const cli = await runProcess(process.execPath, ['dist/scripts/keys.js', 'subscription', 'set', '--account', account, '--plan', 'pro'], {
      env: { ...process.env, DATABASE_URL: databaseUrl(), KEY_HASH_SECRET: HASH_SECRET, OPENAI_API_KEY: '' },
    });
    expect(cli.stdout).toContain('plan Pro, state active');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'active' });
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    expect(await until(() => gatewayState(starter), (s) => s === 'cancelled')).toBe('cancelled');
  });

  test('a cancel PayHere refuses while its list of subscriptions cannot be read is tried again until the recurring payments stop', async () => {
    const browser = await verifiedBrowser('refused-cancel');
    await paidFor(browser, 'starter');
    const gatewayId = (await gatewaySubscriptionOf(browser))!;
    await sandboxCall('/sandbox/refuse-cancels', { count: 1 });
    expect((await cancel(browser)).response.status).toBe(200);
    expect(await until(() => gatewayState(gatewayId), (s) => s === 'cancelled')).toBe('cancelled');
    expect(cancelOutcomes(gatewayId)).toEqual(['stopped']);
    expect(server.logs.some((line) => line.includes('job failed') && line.includes(`PayHere did not cancel subscription ${gatewayId}`))).toBe(true);
  });

  test('a renewal charged before the customer cancels or goes back to Free, noticed after, brings nothing back', async () => {
    for (const giveUp of [cancel, subscribeFree]) {
      const browser = await verifiedBrowser('late-renewal');
      const order = await checkout(browser, 'starter');
      await payOnGateway(order, 'paid');
      expect(await orderState(browser, order.order_id, (s) => s === 'paid')).toBe('paid');
      const gatewayId = (await gatewaySubscriptionOf(browser))!;
      // the gateway charges the next month now; its notice reaches the service after the change
      await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success', delay_ms: 2000 });
      expect((await giveUp(browser)).response.status).toBe(200);
      const after = await subscriptionOf(browser);
      expect(after).not.toMatchObject({ plan: 'Starter', state: 'active' });
      expect(await until(() => processedNotices(order.order_id), (n) => n === 2)).toBe(2);
      expect(await subscriptionOf(browser)).toEqual(after);
      // the money taken is still invoiced, and the recurring payments stay stopped
      expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(2);
      expect(await until(() => gatewayState(gatewayId), (s) => s === 'cancelled')).toBe('cancelled');
      // the late notice asks for them to be stopped again: PayHere refuses, and its list of
      // subscriptions shows them cancelled, so the job is done rather than retried for hours
      expect(await until(() => Promise.resolve(cancelOutcomes(gatewayId)), (o) => o.includes('stopped already'))).toEqual(['stopped', 'stopped already']);
      expect(server.logs.filter((line) => line.includes('job failed') && line.includes(gatewayId))).toEqual([]);
    }
  });

  test('a charge back stops the recurring payments; a renewal charged before it, noticed after, is invoiced and brings nothing back', async () => {
    const browser = await verifiedBrowser('charged-back');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid');
    expect(await orderState(browser, order.order_id, (s) => s === 'paid')).toBe('paid');
    const gatewayId = (await gatewaySubscriptionOf(browser))!;
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success', delay_ms: 2000 });
    await sendSigned(order, { payment_id: '320000301' }, undefined, '-3');
    expect(await until(() => subscriptionOf(browser), (s) => s?.state === 'expired')).toMatchObject({ plan: 'Starter', state: 'expired' });
    expect(await until(() => gatewayState(gatewayId), (s) => s === 'cancelled')).toBe('cancelled');
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    expect(await until(() => processedNotices(order.order_id), (n) => n === 3)).toBe(3);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'expired' });
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(2);
    expect(await until(() => Promise.resolve(cancelOutcomes(gatewayId)), (o) => o.length === 2)).toEqual(['stopped', 'stopped already']);
  });

  test('a renewal of a plan charged back while its recurring payments were still recorded for it stops them', async () => {
    const browser = await verifiedBrowser('expired-recorded');
    await paidFor(browser, 'starter');
    const gatewayId = (await gatewaySubscriptionOf(browser))!;
    const email = (await browser.client.GET('/dashboard/api/session')).data!.user.email;
    // as a charge back applied before they were stopped with it left the subscription
    await server.orm.em.fork().execute("update subscription set state = 'expired' where account_id = (select account_id from dashboard_user where email = ?)", [email]);
    await sandboxCall('/sandbox/renew', { subscription_id: gatewayId, outcome: 'success' });
    expect(await until(() => gatewayState(gatewayId), (s) => s === 'cancelled')).toBe('cancelled');
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'expired' });
  });

  test('the same checkout form paid twice leaves one recurring payment for the order, and cancelling leaves none', async () => {
    const browser = await verifiedBrowser('paid-twice');
    const order = await checkout(browser, 'starter');
    await payOnGateway(order, 'paid');
    expect(await until(() => processedNotices(order.order_id), (n) => n === 1)).toBe(1);
    await payOnGateway(order, 'paid');
    expect(await until(() => processedNotices(order.order_id), (n) => n === 2)).toBe(2);
    const recurring = await recurringOfOrder(order.order_id);
    expect(recurring).toHaveLength(2);
    const states = () => Promise.all(recurring.map(gatewayState));
    expect((await until(states, (s) => s.includes('cancelled'))).sort()).toEqual(['active', 'cancelled']);
    // the one left running is the one the account stops when it cancels
    const kept = (await gatewaySubscriptionOf(browser))!;
    expect(await gatewayState(kept)).toBe('active');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(2);

    expect((await cancel(browser)).response.status).toBe(200);
    expect(await until(states, (s) => s.every((state) => state === 'cancelled'))).toEqual(['cancelled', 'cancelled']);
  });

  test('of two open checkouts the one paid last gives the plan, whichever was opened first; a copy of the other\'s payment changes nothing', async () => {
    const browser = await verifiedBrowser('paid-last');
    const enterprise = await checkout(browser, 'enterprise');
    const starter = await checkout(browser, 'starter');
    await payOnGateway(starter, 'paid');
    expect(await orderState(browser, starter.order_id, (s) => s === 'paid')).toBe('paid');
    const starterRecurring = (await gatewaySubscriptionOf(browser))!;
    await payOnGateway(enterprise, 'paid');
    expect(await orderState(browser, enterprise.order_id, (s) => s === 'paid')).toBe('paid');
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Enterprise', state: 'active' });
    const enterpriseRecurring = (await gatewaySubscriptionOf(browser))!;
    expect(await until(() => gatewayState(starterRecurring), (s) => s === 'cancelled')).toBe('cancelled');
    expect(await gatewayState(enterpriseRecurring)).toBe('active');

    await sendSigned(starter, { payment_id: '4971894180', recurring: '1', message_type: 'AUTHORIZATION_SUCCESS', item_rec_status: '0', subscription_id: starterRecurring });
    expect(await until(() => processedNotices(starter.order_id), (n) => n === 2)).toBe(2);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Enterprise', state: 'active' });
    expect(await gatewayState(enterpriseRecurring)).toBe('active');
  });

  test('the payment taken last gives the plan, also when its notice arrives first', async () => {
    const browser = await verifiedBrowser('noticed-late');
    const pro = await checkout(browser, 'pro');
    const starter = await checkout(browser, 'starter');
    // Pro is paid first, but its notice is held back until after Starter's (paid a second later:
    // the gateway dates payments to the second, and within one the notice received last wins)
    await payOnGateway(pro, 'paid', { delayMs: 4000 });
    await new Promise((r) => setTimeout(r, 1100));
    await payOnGateway(starter, 'paid');
    expect(await orderState(browser, starter.order_id, (s) => s === 'paid')).toBe('paid');
    expect(await orderState(browser, pro.order_id, (s) => s === 'paid')).toBe('paid');
    expect(await outcomes(pro.order_id)).toEqual(['paid: invoice recorded, the plan the account has was chosen after this payment']);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    // the money is invoiced, and the earlier plan's recurring payments are stopped
    expect((await browser.client.GET('/dashboard/api/invoices')).data!.invoices).toHaveLength(2);
    const [proRecurring] = await recurringOfOrder(pro.order_id);
    expect(await until(() => gatewayState(proRecurring!), (s) => s === 'cancelled')).toBe('cancelled');
    expect(await gatewayState((await gatewaySubscriptionOf(browser))!)).toBe('active');
    // each order's page says which gives the plan (both said it was active)
    expect((await browser.page(`/dashboard/billing?order=${starter.order_id}`)).html).toContain('Payment received: the Starter plan is active.');
    const proPage = (await browser.page(`/dashboard/billing?order=${pro.order_id}`)).html;
    expect(proPage).toContain('Payment for the Pro plan received and invoiced below, but it does not give your plan now');
    expect(proPage).not.toContain('plan is active');
  });

  test('a cancel after two payments, one of whose notices comes late, stays cancelled: the late payment is invoiced and its recurring payments stop', async () => {
    const browser = await verifiedBrowser('cancelled-late');
    const starter = await checkout(browser, 'starter');
    const enterprise = await checkout(browser, 'enterprise');
    await payOnGateway(starter, 'paid', { delayMs: 5000 });
    await new Promise((r) => setTimeout(r, 1100));
    await payOnGateway(enterprise, 'paid');
    expect(await orderState(browser, enterprise.order_id, (s) => s === 'paid')).toBe('paid');
    expect((await cancel(browser)).response.status).toBe(200);
    expect(await orderState(browser, starter.order_id, (s) => s === 'paid')).toBe('paid');
    expect(await outcomes(starter.order_id)).toEqual(['paid: invoice recorded, the plan the account has was chosen after this payment']);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Enterprise', state: 'cancelled' });
    const [starterRecurring] = await recurringOfOrder(starter.order_id);
    expect(await until(() => gatewayState(starterRecurring!), (s) => s === 'cancelled')).toBe('cancelled');
  });

  test("a notice sent on with another customer's recurring payments named counts the payment, never those recurring payments", async () => {
    const other = await verifiedBrowser('victim');
    await paidFor(other, 'starter');
    const othersRecurring = (await gatewaySubscriptionOf(other))!;
    const browser = await verifiedBrowser('redirected');
    const order = await checkout(browser, 'starter');
    // the checkout hash does not cover notify_url: the customer has the gateway's notice sent elsewhere
    await payOnGateway({ ...order, fields: { ...order.fields, notify_url: `${sandbox}/caught` } }, 'paid');
    const caught = await until(async () => (await sentNotices()).find((n) => n.order_id === order.order_id), (n) => n !== undefined);
    await resend({ ...caught!, subscription_id: othersRecurring });
    expect(await orderState(browser, order.order_id, (s) => s !== 'pending')).toBe('paid');
    // the payment is real and gives the plan; the recurring payments it names are not taken as the customer's
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Starter', state: 'active' });
    expect(await gatewaySubscriptionOf(browser)).toBeNull();
    expect((await cancel(browser)).response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await gatewayState(othersRecurring)).toBe('active');
    expect(await gatewaySubscriptionOf(other)).toBe(othersRecurring);
  });

  test('plan changes made at the same moment are made one after another, on one subscription', async () => {
    const browser = await verifiedBrowser('at-once');
    const changes = await Promise.all(Array.from({ length: 6 }, () => subscribeFree(browser)));
    expect(changes.map((c) => c.response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const email = (await browser.client.GET('/dashboard/api/session')).data!.user.email;
    const rows = await server.orm.em.fork().execute<{ n: number }[]>(
      'select count(*)::int as n from subscription s join dashboard_user u on u.account_id = s.account_id where u.email = ?',
      [email],
    );
    expect(rows[0]!.n).toBe(1);
    // the first activates the plan; each later one finds it and updates it
    expect((await subscriptionEvents(browser)).sort()).toEqual([['subscription.activated', 'free'], ...Array.from({ length: 5 }, () => ['subscription.updated', 'free'])]);
  });

  // runs last: it moves the server's clock past the trial
  test('a trial of a paid plan is given once and ends in expired unless paid', async () => {
    const email = uniqueEmail('trial');
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(email, 'a long enough password');
    const subscribe = (body: { plan: 'free' | 'starter' | 'pro' | 'enterprise'; trial?: boolean }) =>
      browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body });
    const paidWithoutTrial = await subscribe({ plan: 'pro' });
    expect(paidWithoutTrial.response.status).toBe(400);
    expect((paidWithoutTrial.error as Schemas['ValidationError']).errors).toEqual([{ path: '/plan', message: 'paid plan: use checkout or a trial' }]);
    const freeTrial = await subscribe({ plan: 'free', trial: true });
    expect((freeTrial.error as Schemas['ValidationError']).errors).toEqual([{ path: '/trial', message: 'only for paid plans' }]);
    const trial = await subscribe({ plan: 'pro', trial: true });
    expect(trial.data).toMatchObject({ plan: 'Pro', state: 'trialing' });
    expect(new Date(trial.data!.trial_ends_at!).getTime() - clock.now().getTime()).toBe(14 * 86_400_000);
    const { data } = await createKey(browser);
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).data!.current_plan.name).toBe('Pro');
    expect((await subscribe({ plan: 'enterprise', trial: true })).response.status).toBe(409);

    clock.advance(15 * 86_400_000);
    expect((await browser.logIn(email, 'a long enough password')).status).toBe(200);
    expect(await subscriptionOf(browser)).toMatchObject({ plan: 'Pro', state: 'expired' });
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(403);
    expect((await createKey(browser)).response.status).toBe(402);
  });
});
