import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { freePort } from '../../scripts/lib/free-port.js';
import { ARTIFACTS, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { apiClient } from './support/contract.js';
import { linkToken, uniqueEmail } from './support/dashboard.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// The dashboard in a real browser (Debian's Chromium driven by playwright-core, as the docs
// site's test): sign-up, the mailed verification link, the Free plan, a key shown once that works
// and is then revoked, and a Pro plan paid on the local PayHere sandbox with 402 while its
// notification is on its way. Requests may go to the service and the sandbox only; a request
// elsewhere, or a Content-Security-Policy violation, fails the test. Screenshots of each page are
// kept in .data/test-artifacts/.
const sandbox = process.env.PAYHERE_SANDBOX_URL;
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  if (!sandbox) throw new Error('PAYHERE_SANDBOX_URL is not set: run the tests through scripts/test.sh');
  const port = await freePort();
  server = await startServer({ port, services: testServices({}, { API_BASE_URL: `http://127.0.0.1:${port}`, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' }) });
  browser = await launchBrowser();
});

interface Session extends WatchedPage {
  shot(name: string): Promise<void>;
}

async function openBrowser(options: { javaScript?: boolean } = {}): Promise<Session> {
  const watched = await watchedPage(browser, [server.url, new URL(sandbox!).origin], { ...options, width: 1200 });
  return { ...watched, shot: (name) => watched.page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true }).then(() => undefined) };
}

async function signUpAndVerify(s: Session, email: string): Promise<void> {
  const { page } = s;
  await page.goto(`${server.url}/dashboard/sign-up`);
  await s.shot('sign-up');
  await page.getByLabel('Organisation').fill('Nalanda College ICT Club');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(`${server.url}/dashboard?done=signed-up`);
  expect(await page.getByRole('status').textContent()).toContain('We mailed you a link');
  await s.shot('overview-new');
  await page.goto(`${server.url}/dashboard/verify-email?token=${await linkToken(email, '/dashboard/verify-email')}`);
  await s.shot('verify-email');
  await page.getByRole('button', { name: 'Confirm my email address' }).click();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Email address confirmed');
}

async function createKeyOnPage(page: Page, name: string): Promise<void> {
  await page.goto(`${server.url}/dashboard/keys`);
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
}

describe('the dashboard in Chromium', () => {
  test('sign up, confirm the address, take the Free plan, create a key shown once, use it, revoke it', async () => {
    const s = await openBrowser();
    const { page } = s;
    await signUpAndVerify(s, uniqueEmail('browser-free'));
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Use Free' }).click();
    await page.waitForURL(`${server.url}/dashboard?done=subscribed`);
    expect(await page.locator('#subscription').textContent()).toContain('Free');
    await s.shot('overview-free');

    await createKeyOnPage(page, 'school website');
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32,}$/);
    expect(await page.getByRole('alert').textContent()).toContain('shown only this once');
    await s.shot('key-created');
    expect((await apiClient(server.url, key).GET('/api/v1/dev/plans')).response.status).toBe(200);

    await page.goto(`${server.url}/dashboard/keys`);
    const row = page.locator('#keys tbody tr', { hasText: 'school website' });
    expect(await row.textContent()).toContain(key.slice(0, 10));
    expect(await page.content()).not.toContain(key);
    await s.shot('keys');
    await row.getByRole('link', { name: 'Revoke…' }).click();
    await s.shot('revoke-key');
    await page.getByRole('button', { name: 'Revoke the key' }).click();
    await page.waitForURL(`${server.url}/dashboard/keys?done=key-revoked`);
    const revoked = await apiClient(server.url, key).GET('/api/v1/dev/plans');
    expect(revoked.error).toMatchObject({ error: { code: 'api_key_revoked' } });

    await page.goto(`${server.url}/dashboard/usage`);
    // the call with the revoked key was refused before admission: it does not count
    expect(await page.locator('#totals').textContent()).toContain('1 request,');
    expect(await page.locator('meter').count()).toBe(0);
    await s.shot('usage-free');

    await page.goto(`${server.url}/dashboard/audit-log`);
    const audit = await page.locator('#audit').textContent();
    for (const action of ['account.created', 'email.verified', 'subscription.changed', 'key.created', 'key.revoked']) expect(audit).toContain(action);
    await s.shot('audit-log');
    expect(s.outside).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  test('pay for Pro on the PayHere sandbox: 402 and a refreshing page while the notification is on its way, then a working Pro key', async () => {
    const s = await openBrowser();
    const { page } = s;
    await signUpAndVerify(s, uniqueEmail('browser-pro'));
    // the customer's Pay press reaches the sandbox with a 3-second delay of its notification
    await page.route(`${sandbox}/pay/complete`, (route) => route.continue({ postData: `${route.request().postData()}&delay_ms=3000` }));
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Pay for Pro' }).click();
    // dashboard.js hands the form over to the gateway at once
    await page.waitForURL(`${sandbox}/pay/checkout`);
    expect(await page.textContent('body')).toContain('LKR 3499.00, every 1 Month');
    await s.shot('payhere-checkout');
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/dashboard\/billing\?order=ord_/);
    expect(await page.locator('#order').textContent()).toContain('being processed');
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(1);
    await s.shot('billing-pending');

    const billing = page.url();
    const keys = await s.page.context().newPage();
    await keys.goto(`${server.url}/dashboard/keys`);
    await keys.getByLabel('Name').fill('too early');
    const early = keys.waitForResponse((r) => r.url().endsWith('/dashboard/keys') && r.request().method() === 'POST');
    await keys.getByRole('button', { name: 'Create key' }).click();
    expect((await early).status()).toBe(402);
    expect(await keys.getByRole('alert').textContent()).toContain('No active plan found');
    await keys.screenshot({ path: join(ARTIFACTS, 'dashboard-keys-402.png'), fullPage: true });

    // the billing page reloads itself until the payment is in
    await page.getByText('Payment received').waitFor({ timeout: 60_000 });
    expect(page.url()).toBe(billing);
    expect(await page.locator('#invoices').textContent()).toContain('Pro');
    await s.shot('billing-paid');
    await createKeyOnPage(keys, 'pro backend');
    const key = (await keys.locator('#new-key').textContent())!.trim();
    expect((await apiClient(server.url, key).GET('/api/v1/dev/plans')).data!.current_plan.name).toBe('Pro');
    // Pro's analytics: a chart drawn by uPlot from our own origin, per key and per model
    await page.goto(`${server.url}/dashboard/usage`);
    await page.locator('#chart canvas').first().waitFor();
    expect(await page.locator('#per-key').textContent()).toContain('pro backend');
    expect(await page.locator('meter').count()).toBe(1);
    await s.shot('usage-pro');
    expect(s.outside).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  test('a declined payment says so and charges nothing', async () => {
    const s = await openBrowser();
    const { page } = s;
    await signUpAndVerify(s, uniqueEmail('browser-declined'));
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Pay for Starter' }).click();
    await page.waitForURL(`${sandbox}/pay/checkout`);
    await page.getByRole('button', { name: 'Decline' }).click();
    await page.waitForURL(/\/dashboard\/billing\?order=ord_.*cancelled=1/);
    await page.getByText('declined or cancelled').waitFor({ timeout: 60_000 });
    await s.shot('billing-declined');
    expect(await page.textContent('#invoices, .card')).not.toContain('LKR 999');
    expect(s.outside).toEqual([]);
    expect(s.errors).toEqual([]);
  });

  test('without JavaScript the core flows still work: sign up, Free, a key, and the hand-over to the payment page by a button', async () => {
    const s = await openBrowser({ javaScript: false });
    const { page } = s;
    const response = await page.goto(`${server.url}/dashboard/sign-up`);
    const csp = response!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    await signUpAndVerify(s, uniqueEmail('browser-nojs'));
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Use Free' }).click();
    await createKeyOnPage(page, 'no script');
    expect((await page.locator('#new-key').textContent())!.trim()).toMatch(/^svc_/);
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('button', { name: 'Pay for Starter' }).click();
    await s.shot('checkout-without-javascript');
    await page.getByRole('button', { name: 'Continue to PayHere' }).click();
    await page.waitForURL(`${sandbox}/pay/checkout`);
    expect(await page.textContent('body')).toContain('LKR 999.00');
    expect(s.outside).toEqual([]);
  });
});
