import { beforeAll, describe, expect, test } from '@jest/globals';
import { apiClient } from './support/contract.js';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Self-serve keys through the dashboard's operations: 402 without a plan, the Free plan at once,
// a key shown once that works on the API, listing, revocation that the next API call sees, the
// audit log, and one account never reaching another's keys.

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ services: testServices({}, { SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' }) });
});

async function subscribedBrowser(label: string): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(server.url);
  await browser.signUp(uniqueEmail(label));
  const { response } = await browser.client.POST('/dashboard/api/subscription', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body: { plan: 'free' } });
  expect(response.status).toBe(200);
  return browser;
}

async function createKey(browser: DashboardBrowser, body: { name: string; read_only?: boolean; allowed_ips?: string[]; expires_at?: string }) {
  return browser.client.POST('/dashboard/api/keys', { params: { header: { 'X-CSRF-Token': browser.csrf! } }, body });
}

describe('API keys in the dashboard', () => {
  test('without a subscription key creation answers 402 with the specification wording', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('no-plan'));
    const { response, error } = await createKey(browser, { name: 'first' });
    expect(response.status).toBe(402);
    expect((error as { detail: string }).detail).toMatch(/no active plan/i);
    expect((error as { detail: string }).detail).toMatch(/subscribe/i);
  });

  test('Free activates at once; the key is shown once, works on the API, is listed without its secret, and revocation applies to the next call', async () => {
    const browser = await subscribedBrowser('keys');
    const session = (await browser.client.GET('/dashboard/api/session')).data!;
    expect(session.subscription).toMatchObject({ plan: 'Free', state: 'active', current_period_end: null });

    const { response, data } = await createKey(browser, { name: 'school website' });
    expect(response.status).toBe(201);
    // the key is shown this once: no cache may keep it
    expect(response.headers.get('cache-control')).toBe('no-store');
    const key = data!.key;
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32,}$/);
    expect(data!.api_key).toMatchObject({ name: 'school website', environment: 'live', state: 'active', read_only: false, allowed_ips: [] });
    expect(key.startsWith(data!.api_key.display_prefix)).toBe(true);

    const plans = await apiClient(server.url, key).GET('/api/v1/dev/plans');
    expect(plans.response.status).toBe(200);
    expect(plans.data!.current_plan.name).toBe('Free');

    const listed = (await browser.client.GET('/dashboard/api/keys')).data!;
    expect(listed.keys.map((k) => k.id)).toEqual([data!.api_key.id]);
    expect(JSON.stringify(listed)).not.toContain(key);

    const revoked = await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', {
      params: { path: { key_id: data!.api_key.id }, header: { 'X-CSRF-Token': browser.csrf! } },
    });
    expect(revoked.response.status).toBe(200);
    expect(revoked.data!.state).toBe('revoked');
    const after = await apiClient(server.url, key).GET('/api/v1/dev/plans');
    expect(after.response.status).toBe(401);
    expect(after.error).toMatchObject({ error: { code: 'api_key_revoked' } });

    const audit = (await browser.client.GET('/dashboard/api/audit-log')).data!;
    expect(audit.events.map((e) => e.action)).toEqual(['key.revoked', 'key.created', 'subscription.changed', 'account.created']);
    expect(audit.events[0]!.user_email).toBe(session.user.email);
    expect(audit.events[0]!.subject).toBe(data!.api_key.display_prefix);
    // what changed is told, not only that something did (each subscription change read alike)
    expect(audit.events[1]!.detail).toEqual({ name: data!.api_key.name });
    expect(audit.events[2]!.detail).toMatchObject({ state: 'active' });
    const page = await browser.page('/dashboard/audit-log');
    expect(page.html).toContain(`<td>name: ${data!.api_key.name}</td>`);
    expect(page.html).toContain('<td>state: active</td>');
  });

  test('restrictions are kept, and an invalid IP range is refused with the field named', async () => {
    const browser = await subscribedBrowser('restricted');
    const { data } = await createKey(browser, { name: 'reader', read_only: true, allowed_ips: ['203.0.113.0/24', '2001:db8::1'] });
    expect(data!.api_key).toMatchObject({ read_only: true, allowed_ips: ['203.0.113.0/24', '2001:db8::1/128'] });
    // the server sees 127.0.0.1, outside the allow-list
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(403);
    const bad = await createKey(browser, { name: 'bad', allowed_ips: ['10.0.0.0/33'] });
    expect(bad.response.status).toBe(400);
    expect(JSON.stringify(bad.error)).toContain('allowed_ips');
  });

  test('one account never sees or changes another account\'s keys or audit log', async () => {
    const owner = await subscribedBrowser('owner');
    const intruder = await subscribedBrowser('intruder');
    const { data } = await createKey(owner, { name: 'private' });
    expect((await intruder.client.GET('/dashboard/api/keys')).data!.keys).toEqual([]);
    const attempt = await intruder.client.POST('/dashboard/api/keys/{key_id}/revoke', {
      params: { path: { key_id: data!.api_key.id }, header: { 'X-CSRF-Token': intruder.csrf! } },
    });
    expect(attempt.response.status).toBe(404);
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    const audit = (await intruder.client.GET('/dashboard/api/audit-log')).data!;
    expect(audit.events.some((e) => e.subject === data!.api_key.display_prefix)).toBe(false);
  });

  test('key ids, names and order ids that cannot be stored are refused as bad requests or not found, never a database error', async () => {
    const browser = await subscribedBrowser('hostile');
    const header = { 'X-CSRF-Token': browser.csrf! };
    const notUuid = await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: 'not-a-uuid' }, header } });
    expect(notUuid.response.status).toBe(400);
    const nulName = await browser.client.POST('/dashboard/api/keys', { params: { header }, body: { name: 'a\u0000b' } });
    expect(nulName.response.status).toBe(400);
    expect((await browser.client.GET('/dashboard/api/checkout/{order_id}', { params: { path: { order_id: 'ord_x\u0000' } } })).response.status).toBe(400);
    // the pages take only well-formed ids; anything else is an unknown page
    expect((await browser.page('/dashboard/keys/------------------------------------/revoke')).status).toBe(404);
    expect((await browser.submit('/dashboard/keys/------------------------------------/revoke')).status).toBe(404);
    expect((await browser.submit('/dashboard/keys', { name: 'a\u0000b' })).status).toBe(400);
    const nulOrder = await browser.page('/dashboard/billing?order=x%00');
    expect(nulOrder.status).toBe(400);
    expect(nulOrder.html).toContain('Field &#39;order&#39;');
  });

  test('the key form takes the names the JSON operation takes: at most 100 characters', async () => {
    const browser = await subscribedBrowser('form-name');
    for (const length of [101, 256]) {
      const { status, html } = await browser.submit('/dashboard/keys', { name: 'n'.repeat(length) });
      expect([length, status]).toEqual([length, 400]);
      expect(html).toContain('Field &#39;name&#39; must be at most 100 characters long.');
    }
    expect((await browser.submit('/dashboard/keys', { name: 'n'.repeat(100) })).status).toBe(201);
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys.map((k) => k.name)).toEqual(['n'.repeat(100)]);
  });

  test("the key form takes only its own values: another environment, a read_only other than true or a field given twice is 400, never another key", async () => {
    const browser = await subscribedBrowser('form-values');
    const refused: [Record<string, string> | [string, string][], string][] = [
      [{ name: 'ok', environment: 'staging' }, 'Field &#39;environment&#39; must be one of: live, test.'],
      [{ name: 'ok', read_only: 'yes' }, 'Field &#39;read_only&#39; must be of type boolean.'],
      [[['name', 'a'], ['name', 'b']], 'Field &#39;name&#39; is given twice: send each field once.'],
    ];
    for (const [fields, message] of refused) {
      const { status, html } = await browser.submit('/dashboard/keys', fields);
      expect([status, html]).toEqual([400, expect.stringContaining(message)]);
    }
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys).toEqual([]);
    expect((await browser.submit('/dashboard/keys', { name: 'tester', environment: 'test', read_only: 'true' })).status).toBe(201);
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys).toMatchObject([{ name: 'tester', environment: 'test', read_only: true }]);
  });

  test('an expiry on a day the month does not have is refused by the form and the JSON operation, not moved to the next month', async () => {
    const browser = await subscribedBrowser('form-date');
    const form = await browser.submit('/dashboard/keys', { name: 'dated', expires_on: '2027-02-31' });
    expect(form.status).toBe(400);
    expect(form.html).toContain('Field &#39;expires_on&#39; must be a date');
    expect((await createKey(browser, { name: 'dated', expires_at: '2027-02-31T23:59:59Z' })).response.status).toBe(400);
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys).toEqual([]);
    expect((await browser.submit('/dashboard/keys', { name: 'dated', expires_on: '2028-02-29' })).status).toBe(201);
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys.map((k) => k.expires_at)).toEqual(['2028-02-29T23:59:59.000Z']);
  });

  test('the roll form takes the grace periods the JSON operation takes, and refuses others without revoking the key', async () => {
    const browser = await subscribedBrowser('form-roll');
    const { data } = await createKey(browser, { name: 'rolling' });
    for (const grace of ['abc', '', '-5', '1.5', '10081']) {
      const { status, html } = await browser.submit(`/dashboard/keys/${data!.api_key.id}/roll`, { grace_minutes: grace });
      expect([grace, status]).toEqual([grace, 400]);
      expect(html).toContain('Field &#39;grace_minutes&#39;');
    }
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    expect((await browser.client.GET('/dashboard/api/keys')).data!.keys.map((k) => k.state)).toEqual(['active']);
    expect((await browser.submit(`/dashboard/keys/${data!.api_key.id}/roll`, { grace_minutes: '60' })).status).toBe(201);
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
  });

  test('dashboard operations do not count toward the API limits of the account\'s keys', async () => {
    const browser = await subscribedBrowser('uncounted');
    const { data } = await createKey(browser, { name: 'counted' });
    for (let i = 0; i < 12; i++) await browser.client.GET('/dashboard/api/keys');
    const usage = await apiClient(server.url, data!.key).GET('/api/v1/dev/usage');
    expect(usage.data!.total_requests).toBe(1);
  });

  test('a rolled key: the new key works at once, the old one until its grace period ends; expiry answers api_key_revoked', async () => {
    const browser = await subscribedBrowser('roll');
    const { data: first } = await createKey(browser, { name: 'rolling' });
    const roll = (keyId: string, grace: number) =>
      browser.client.POST('/dashboard/api/keys/{key_id}/roll', { params: { path: { key_id: keyId }, header: { 'X-CSRF-Token': browser.csrf! } }, body: { grace_minutes: grace } });
    const rolled = await roll(first!.api_key.id, 60);
    expect(rolled.response.status).toBe(201);
    expect(rolled.data!.api_key).toMatchObject({ name: 'rolling', state: 'active', expires_at: null });
    expect((await apiClient(server.url, rolled.data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    // the old key still works, and says until when
    expect((await apiClient(server.url, first!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    const listed = (await browser.client.GET('/dashboard/api/keys')).data!.keys.find((k) => k.id === first!.api_key.id)!;
    const until = new Date(listed.expires_at!).getTime() - Date.now();
    expect(until).toBeGreaterThan(59 * 60_000);
    expect(until).toBeLessThanOrEqual(60 * 60_000);
    expect(listed.replaced_by).toBe(rolled.data!.api_key.id);
    expect(rolled.data!.api_key.replaced_by).toBeNull();
    // a rolled key is not rolled again (the new key would inherit its grace end): its replacement is named instead
    for (const grace of [60, 0]) {
      const twice = await roll(first!.api_key.id, grace);
      expect(twice.response.status).toBe(409);
      expect((twice.error as { detail: string }).detail).toBe(`API key ${first!.api_key.display_prefix}… was already rolled: it is replaced by ${rolled.data!.api_key.display_prefix}…, which is the key to roll.`);
    }
    expect((await apiClient(server.url, first!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    const keysPage = (await browser.page('/dashboard/keys')).html;
    expect(keysPage).toContain(`Rolled: replaced by <code>${rolled.data!.api_key.display_prefix}…</code>`);
    expect(keysPage).not.toContain(`/dashboard/keys/${first!.api_key.id}/roll`);
    expect(keysPage).toContain(`/dashboard/keys/${rolled.data!.api_key.id}/roll`);

    // rolled with no grace: the old key is revoked at once
    const again = await roll(rolled.data!.api_key.id, 0);
    expect(again.response.status).toBe(201);
    const old = await apiClient(server.url, rolled.data!.key).GET('/api/v1/dev/plans');
    expect(old.error).toMatchObject({ error: { code: 'api_key_revoked' } });
    expect((await roll(rolled.data!.api_key.id, 0)).response.status).toBe(404);
    expect(again.data!.api_key.expires_at).toBeNull();

    // a key created with an expiry in the past is refused; one in the near future expires
    const past = await createKey(browser, { name: 'past', expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(past.response.status).toBe(400);
    expect((past.error as { errors: unknown }).errors).toEqual([{ path: '/expires_at', message: 'must be in the future' }]);
    const soon = await createKey(browser, { name: 'soon', expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(soon.response.status).toBe(201);
    expect((await apiClient(server.url, soon.data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const expired = await apiClient(server.url, soon.data!.key).GET('/api/v1/dev/plans');
    expect(expired.error).toMatchObject({ error: { code: 'api_key_revoked', message: expect.stringMatching(/expired/) } });
    const states = (await browser.client.GET('/dashboard/api/keys')).data!.keys.map((k) => [k.name, k.state]);
    expect(states).toContainEqual(['soon', 'expired']);
    const audit = (await browser.client.GET('/dashboard/api/audit-log')).data!.events.map((e) => e.action);
    expect(audit.filter((a) => a === 'key.rolled')).toHaveLength(2);
  });

  test('an account has at most 10 active keys, also when they are created at once; a roll may add one while its grace lasts', async () => {
    const browser = await subscribedBrowser('key-cap');
    const header = { 'X-CSRF-Token': browser.csrf! };
    const roll = (keyId: string, grace: number) => browser.client.POST('/dashboard/api/keys/{key_id}/roll', { params: { path: { key_id: keyId }, header }, body: { grace_minutes: grace } });
    // an expired key and a revoked one do not count
    const soon = await createKey(browser, { name: 'short-lived', expires_at: new Date(Date.now() + 1000).toISOString() });
    const revoked = await createKey(browser, { name: 'revoked' });
    expect((await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: revoked.data!.api_key.id }, header } })).response.status).toBe(200);
    for (let i = 0; i < 7; i++) expect((await createKey(browser, { name: `app ${i}` })).response.status).toBe(201);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await apiClient(server.url, soon.data!.key).GET('/api/v1/dev/plans')).error).toMatchObject({ error: { code: 'api_key_revoked' } });

    // 7 active: of 6 created at once, 3 are made and 3 refused
    const atOnce = await Promise.all(Array.from({ length: 6 }, (_, i) => createKey(browser, { name: `burst ${i}` })));
    expect(atOnce.map((r) => r.response.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    const refused = atOnce.find((r) => r.response.status === 409)!;
    expect((refused.error as { detail: string }).detail).toBe('This account already has 10 active API keys, and may have at most 10 (one more while a rolled key\'s grace period lasts): revoke one first.');
    const form = await browser.submit('/dashboard/keys', { name: 'one more' });
    expect(form.status).toBe(409);
    expect(form.html).toContain('may have at most 10');
    const active = () => browser.client.GET('/dashboard/api/keys').then(({ data }) => data!.keys.filter((k) => k.state === 'active'));
    expect(await active()).toHaveLength(10);

    // a roll with a grace period keeps the old key a while: one key over, then no further roll with one
    const [first, second] = await active();
    const rolled = await roll(first!.id, 60);
    expect(rolled.response.status).toBe(201);
    expect(await active()).toHaveLength(11);
    expect((await roll(second!.id, 60)).response.status).toBe(409);
    expect((await roll(first!.id, 60)).response.status).toBe(409);
    // a roll with none replaces the key at once (two at once of one key: one new key, the other not found), and a revoked key makes room again
    expect((await Promise.all([roll(second!.id, 0), roll(second!.id, 0)])).map((r) => r.response.status).sort()).toEqual([201, 404]);
    expect(await active()).toHaveLength(11);
    expect((await createKey(browser, { name: 'still full' })).response.status).toBe(409);
    expect((await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: first!.id }, header } })).response.status).toBe(200);
    expect((await createKey(browser, { name: 'room again' })).response.status).toBe(409);
    expect((await browser.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: rolled.data!.api_key.id }, header } })).response.status).toBe(200);
    expect((await createKey(browser, { name: 'room again' })).response.status).toBe(201);
    expect(await active()).toHaveLength(10);
  });
});

describe('one account and another', () => {
  test('every dashboard operation that names a key or an order refuses another account\'s as not found, and changes nothing', async () => {
    const owner = await subscribedBrowser('iso-owner');
    const intruder = await subscribedBrowser('iso-intruder');
    const { data } = await createKey(owner, { name: 'owned' });
    const keyId = data!.api_key.id;
    const header = { 'X-CSRF-Token': intruder.csrf! };
    const attempts = [
      await intruder.client.POST('/dashboard/api/keys/{key_id}/revoke', { params: { path: { key_id: keyId }, header } }),
      await intruder.client.POST('/dashboard/api/keys/{key_id}/roll', { params: { path: { key_id: keyId }, header }, body: { grace_minutes: 0 } }),
    ];
    expect(attempts.map((a) => a.response.status)).toEqual([404, 404]);
    // the lists of the intruder hold nothing of the owner's
    const seen = JSON.stringify([
      (await intruder.client.GET('/dashboard/api/keys')).data,
      (await intruder.client.GET('/dashboard/api/audit-log')).data,
      (await intruder.client.GET('/dashboard/api/analytics')).data,
      (await intruder.client.GET('/dashboard/api/invoices')).data,
    ]);
    expect(seen).not.toContain(keyId);
    expect(seen).not.toContain(data!.api_key.display_prefix);
    expect((await apiClient(server.url, data!.key).GET('/api/v1/dev/plans')).response.status).toBe(200);
    expect((await owner.client.GET('/dashboard/api/keys')).data!.keys).toHaveLength(1);
  });
});
