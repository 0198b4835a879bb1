import { beforeAll, describe, expect, test } from '@jest/globals';
import { request } from 'node:http';
import { ManualClock } from './support/clock.js';
import { apiClient, sendRaw } from './support/contract.js';
import { DashboardBrowser, linkToken, mailTo, uniqueEmail } from './support/dashboard.js';
import { waitsForLock } from './support/locks.js';
import { resetPassword } from '../../src/domain/sign-in/accounts.js';
import type { Services } from '../../src/services.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// The dashboard's way in, through the real server over a socket, with mail read from the local
// catcher: sign-up, verification, log-in and its throttle, sessions and their expiry, CSRF and
// session fixation, password reset.

const clock = new ManualClock(new Date());
let server: TestServer;
let services: Services;

beforeAll(async () => {
  services = testServices({}, { SIGN_IN_ATTEMPTS_PER_EMAIL: '3', SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' });
  server = await startServer({ clock, services });
});

describe('sign-up and email verification', () => {
  test('signs the browser in with a hardened cookie, stores an argon2id hash, and mails a one-time verification link', async () => {
    const email = uniqueEmail('signup');
    const browser = new DashboardBrowser(server.url);
    const { response, data } = await browser.client.POST('/dashboard/api/sign-up', { body: { organisation: 'Ananda College', email: email.toUpperCase(), password: 'a long enough password' } });
    expect(response.status).toBe(201);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/; path=\/dashboard/i);
    expect(cookie).toMatch(/; httponly/i);
    expect(cookie).toMatch(/; samesite=lax/i);
    expect(data!.user).toMatchObject({ email, email_verified: false });
    expect(data!.account.name).toBe('Ananda College');
    expect(data!.subscription).toBeNull();

    const [row] = await server.orm.em.fork().execute<{ password_hash: string }[]>('select password_hash from dashboard_user where email = ?', [email]);
    expect(row!.password_hash).toMatch(/^\$argon2id\$/);

    const token = await linkToken(email, '/dashboard/verify-email');
    const verified = await browser.client.POST('/dashboard/api/verify-email', { body: { token } });
    expect(verified.response.status).toBe(204);
    browser.remember((await browser.client.GET('/dashboard/api/session')).data);
    expect((await browser.client.GET('/dashboard/api/session')).data!.user.email_verified).toBe(true);
    const again = await browser.client.POST('/dashboard/api/verify-email', { body: { token } });
    expect(again.response.status).toBe(404);
  });

  test('one account per email address, whatever its letter case', async () => {
    const email = uniqueEmail('twice');
    await new DashboardBrowser(server.url).signUp(email);
    const { response, error } = await new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', {
      body: { organisation: 'Other', email: email.toUpperCase(), password: 'another long password' },
    });
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ detail: expect.stringMatching(/exists/) });
  });

  test('sign-ups for one email address are limited like log-ins, the JSON operation and the form together', async () => {
    const email = uniqueEmail('signup-throttle');
    const signUp = (address: string) =>
      new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', { body: { organisation: 'Again', email: address, password: 'a long enough password' } });
    expect((await signUp(email)).response.status).toBe(201);
    expect((await signUp(email.toUpperCase())).response.status).toBe(409);
    expect((await new DashboardBrowser(server.url).submit('/dashboard/sign-up', { organisation: 'Again', email, password: 'a long enough password' }, '')).status).toBe(409);
    const refused = await signUp(email);
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await new DashboardBrowser(server.url).submit('/dashboard/sign-up', { organisation: 'Again', email, password: 'a long enough password' }, '');
    expect(page.status).toBe(429);
    expect(page.html).toMatch(/Too many attempts/);
    // another address from the same client is not held up
    expect((await signUp(uniqueEmail('signup-other'))).response.status).toBe(201);
    clock.advance(16 * 60_000);
    expect((await signUp(email)).response.status).toBe(409);
  });

  test('a password of spaces only is refused by the JSON sign-up and its form; spaces around a password are kept as typed', async () => {
    const { response, error } = await new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', {
      body: { organisation: 'Spaces', email: uniqueEmail('spaces'), password: ' '.repeat(10) },
    });
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ detail: "Field 'password' must contain at least one non-whitespace character." });
    const form = await new DashboardBrowser(server.url).submit('/dashboard/sign-up', { organisation: 'Spaces', email: uniqueEmail('spaces-form'), password: ' \t\u00a0'.repeat(4) }, '');
    expect(form.status).toBe(400);
    expect(form.html).toContain('Field &#39;password&#39; must contain at least one non-whitespace character.');

    const email = uniqueEmail('spaced');
    await new DashboardBrowser(server.url).signUp(email, '  a spaced password  ');
    expect((await new DashboardBrowser(server.url).logIn(email, 'a spaced password')).status).toBe(401);
    expect((await new DashboardBrowser(server.url).logIn(email, '  a spaced password  ')).status).toBe(200);
  });

  test('a password shorter than 10 characters is refused with the rule', async () => {
    const { response, error } = await new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', {
      body: { organisation: 'Short', email: uniqueEmail('short'), password: 'short' },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(error)).toMatch(/10/);
  });

  test('a password that is the email address is refused, with a JSON Pointer to the field', async () => {
    const email = uniqueEmail('same');
    const { response, error } = await new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', {
      body: { organisation: 'Same', email, password: email },
    });
    expect([response.status, (error as { errors: unknown }).errors]).toEqual([400, [{ path: '/password', message: 'must differ from the email address' }]]);
  });
});

describe('the verification mail asked for again', () => {
  test('is throttled per email address like reset requests, the JSON operation and the page\'s form together', async () => {
    const email = uniqueEmail('resend');
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(email);
    const resend = () => browser.client.POST('/dashboard/api/verification-email', { params: { header: { 'X-CSRF-Token': browser.csrf! } } });
    expect((await resend()).response.status).toBe(202);
    expect((await resend()).response.status).toBe(202);
    expect((await browser.submit('/dashboard/verification-email')).status).toBe(303);
    const refused = await resend();
    expect(refused.response.status).toBe(429);
    expect(refused.error).toMatchObject({ error: { code: 'rate_limit_exceeded' } });
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await browser.submit('/dashboard/verification-email');
    expect(page.status).toBe(429);
    expect(page.html).toMatch(/Too many attempts/);
    // the sign-up's mail and the three asked for
    expect(await mailTo(email)).toHaveLength(4);
    clock.advance(16 * 60_000);
    expect((await resend()).response.status).toBe(202);
  });
});

describe('log-in, sessions and log-out', () => {
  test('log-in starts a new session and ends the one the browser brought (no session fixation)', async () => {
    const email = uniqueEmail('fixation');
    const attacker = new DashboardBrowser(server.url);
    await attacker.signUp(email, 'the right password!');
    const planted = attacker.cookie!;
    // the victim's browser carries the planted cookie and logs in
    const victim = new DashboardBrowser(server.url);
    victim.cookie = planted;
    expect((await victim.logIn(email, 'the right password!')).status).toBe(200);
    expect(victim.cookie).not.toBe(planted);
    const stale = await sendRaw(server.url, 'getDashboardSession', { headers: { Cookie: `svc_session=${planted}` } });
    expect(stale.status).toBe(401);
    expect((await victim.client.GET('/dashboard/api/session')).response.status).toBe(200);
  });

  test('a wrong password and an unknown address get the same 401', async () => {
    const email = uniqueEmail('wrong');
    await new DashboardBrowser(server.url).signUp(email);
    const wrong = await new DashboardBrowser(server.url).client.POST('/dashboard/api/log-in', { body: { email, password: 'not the password' } });
    const unknown = await new DashboardBrowser(server.url).client.POST('/dashboard/api/log-in', { body: { email: uniqueEmail('nobody'), password: 'whatever it is' } });
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    expect(wrong.error).toEqual(unknown.error);
  });

  test('failed log-ins for one address are limited exactly, also when they arrive at once', async () => {
    const email = uniqueEmail('throttle');
    await new DashboardBrowser(server.url).signUp(email);
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => new DashboardBrowser(server.url).client.POST('/dashboard/api/log-in', { body: { email, password: 'guess guess guess' } })),
    );
    expect(statuses.map((s) => s.response.status).sort()).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    const refused = statuses.find((s) => s.response.status === 429)!;
    expect(Number(refused.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // even the right password waits now
    expect((await new DashboardBrowser(server.url).logIn(email, 'a long enough password')).status).toBe(429);
    clock.advance(16 * 60_000);
    expect((await new DashboardBrowser(server.url).logIn(email, 'a long enough password')).status).toBe(200);
  });

  test('failed log-ins made elsewhere never lock the person out of a browser they signed in with, and a reset clears them for a new one', async () => {
    const email = uniqueEmail('lockout');
    const own = new DashboardBrowser(server.url);
    await own.signUp(email);
    expect(own.device).toMatch(/^[0-9a-f-]{36}\.[0-9a-z]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    // someone else uses up the address's allowance (3 here): now even the right password waits there
    for (const expected of [401, 401, 401, 429]) expect((await new DashboardBrowser(server.url).logIn(email, 'guess guess guess')).status).toBe(expected);
    expect((await new DashboardBrowser(server.url).logIn(email, 'a long enough password')).status).toBe(429);
    // but not in the person's own browser, which keeps its cookie after logging out
    expect((await own.client.POST('/dashboard/api/log-out', { params: { header: { 'X-CSRF-Token': own.csrf! } } })).response.status).toBe(204);
    expect((await own.logIn(email, 'a long enough password')).status).toBe(200);
    // whose failures have an allowance of their own
    const ownFailures = [];
    for (let i = 0; i < 4; i++) ownFailures.push((await own.logIn(email, 'a wrong guess here')).status);
    expect(ownFailures).toEqual([401, 401, 401, 429]);

    // another person's device cookie, or one altered, is no device of this person's
    const other = new DashboardBrowser(server.url);
    await other.signUp(uniqueEmail('lockout-other'));
    const borrowed = new DashboardBrowser(server.url);
    borrowed.device = other.device;
    expect((await borrowed.logIn(email, 'a long enough password')).status).toBe(429);
    const forged = new DashboardBrowser(server.url);
    const [userId, issued, nonce] = own.device!.split('.');
    forged.device = `${userId}.${issued}.${nonce}.${'A'.repeat(43)}`;
    expect((await forged.logIn(email, 'a long enough password')).status).toBe(429);

    // a new browser gets in after a reset, which proves the mailbox
    await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    const token = await linkToken(email, '/dashboard/reset-password');
    expect((await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset/confirm', { body: { token, password: 'the new password' } })).response.status).toBe(204);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the new password')).status).toBe(200);
    // and the reset ended the browsers' tokens given under the old password: once someone has used
    // up the address's allowance again, the old token has no allowance of its own
    for (let i = 0; i < 3; i++) await new DashboardBrowser(server.url).logIn(email, 'guess guess guess');
    expect((await own.logIn(email, 'the new password')).status).toBe(429);
  });

  test('the log-in page sets and honours the device cookie too', async () => {
    const email = uniqueEmail('lockout-page');
    await new DashboardBrowser(server.url).signUp(email);
    const form = (cookie: string) =>
      fetch(`${server.url}/dashboard/log-in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url, Cookie: cookie },
        body: new URLSearchParams({ email, password: 'a long enough password' }),
        redirect: 'manual',
      });
    const first = await form('');
    expect(first.status).toBe(303);
    const device = /svc_device=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
    expect(device).toBeDefined();
    for (let i = 0; i < 4; i++) await new DashboardBrowser(server.url).logIn(email, 'guess guess guess');
    expect((await form('')).status).toBe(429);
    expect((await form(`svc_device=${device}`)).status).toBe(303);
  });

  test('log-out ends the session and clears the cookie', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('logout'));
    const token = browser.cookie!;
    const { response } = await browser.client.POST('/dashboard/api/log-out', { params: { header: { 'X-CSRF-Token': browser.csrf! } } });
    expect(response.status).toBe(204);
    expect(response.headers.get('set-cookie')).toMatch(/svc_session=;/);
    expect((await sendRaw(server.url, 'getDashboardSession', { headers: { Cookie: `svc_session=${token}` } })).status).toBe(401);
  });

  test('a session ends after an hour unused', async () => {
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(uniqueEmail('idle'));
    clock.advance(59 * 60_000);
    expect((await browser.client.GET('/dashboard/api/session')).response.status).toBe(200);
    clock.advance(61 * 60_000);
    const { response, error } = await browser.client.GET('/dashboard/api/session');
    expect(response.status).toBe(401);
    expect(error).toMatchObject({ error: { code: 'authentication_failed' } });
  });
});

describe('caching', () => {
  test('no dashboard answer may be cached: the session with its CSRF token, refusals and pages', async () => {
    const browser = new DashboardBrowser(server.url);
    const signUp = await browser.client.POST('/dashboard/api/sign-up', { body: { organisation: 'No Store', email: uniqueEmail('no-store'), password: 'a long enough password' } });
    expect(signUp.response.headers.get('cache-control')).toBe('no-store');
    browser.remember(signUp.data);
    const session = await browser.client.GET('/dashboard/api/session');
    expect(session.data!.csrf_token).toBe(browser.csrf);
    expect(session.response.headers.get('cache-control')).toBe('no-store');
    const signedOut = await new DashboardBrowser(server.url).client.GET('/dashboard/api/session');
    expect(signedOut.response.status).toBe(401);
    expect(signedOut.response.headers.get('cache-control')).toBe('no-store');
    const refused = await new DashboardBrowser(server.url).client.POST('/dashboard/api/sign-up', { body: { organisation: 'No Store', email: 'not an address', password: 'a long enough password' } });
    expect(refused.response.status).toBe(400);
    expect(refused.response.headers.get('cache-control')).toBe('no-store');
    const page = await fetch(`${server.url}/dashboard/log-in`);
    expect(page.headers.get('cache-control')).toBe('no-store');
  });
});

describe('cross-site requests', () => {
  test('a change needs the session CSRF token and a same-site origin', async () => {
    const browser = new DashboardBrowser(server.url);
    const session = await browser.signUp(uniqueEmail('csrf'));
    const cookie = `svc_session=${browser.cookie}`;
    const body = JSON.stringify({ plan: 'free' });
    const json = { 'Content-Type': 'application/json', Cookie: cookie };
    expect((await sendRaw(server.url, 'subscribe', { headers: json, body })).status).toBe(403);
    expect((await sendRaw(server.url, 'subscribe', { headers: { ...json, 'X-CSRF-Token': 'x'.repeat(43) }, body })).status).toBe(403);
    const token = { ...json, 'X-CSRF-Token': session.csrf_token };
    expect((await sendRaw(server.url, 'subscribe', { headers: { ...token, Origin: 'https://evil.example' }, body })).status).toBe(403);
    expect((await sendRaw(server.url, 'subscribe', { headers: { ...token, 'Sec-Fetch-Site': 'cross-site' }, body })).status).toBe(403);
    // another session's token does not fit this cookie
    const other = await new DashboardBrowser(server.url).signUp(uniqueEmail('csrf-other'));
    expect((await sendRaw(server.url, 'subscribe', { headers: { ...json, 'X-CSRF-Token': other.csrf_token }, body })).status).toBe(403);
    expect((await sendRaw(server.url, 'subscribe', { headers: { ...token, Origin: server.url, 'Sec-Fetch-Site': 'same-origin' }, body })).status).toBe(200);
  });

  test('log-in from another site is refused', async () => {
    const res = await sendRaw(server.url, 'logIn', {
      headers: { 'Content-Type': 'application/json', Origin: 'https://evil.example' },
      body: JSON.stringify({ email: uniqueEmail('x'), password: 'whatever it is' }),
    });
    expect(res.status).toBe(403);
  });

  test('an API key is no dashboard session', async () => {
    const { response } = await apiClient(server.url, 'svc_' + 'a'.repeat(40)).GET('/dashboard/api/keys');
    expect(response.status).toBe(401);
  });
});

describe('refused page forms', () => {
  test('a form over 16384 bytes is 413 as a page, with the connection closed like the API\'s', async () => {
    const { status, connection, type } = await new Promise<{ status?: number; connection?: string; type?: string }>((resolve, reject) => {
      const req = request(`${server.url}/dashboard/log-in`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.url } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode, connection: res.headers.connection, type: res.headers['content-type'] });
      });
      req.on('error', reject);
      req.end(`email=a%40b.lk&password=${'x'.repeat(20_000)}`);
    });
    expect(status).toBe(413);
    expect(type).toMatch(/^text\/html/);
    expect(connection).toBe('close');
  });
});

describe('the sign-up form', () => {
  const signUpForm = (fields: Record<string, string>) =>
    new DashboardBrowser(server.url).submit('/dashboard/sign-up', { organisation: 'Form School', email: uniqueEmail('form'), password: 'a long enough password', ...fields }, '');

  test('fields the JSON sign-up refuses are refused as a 400 page naming the field, and no mail is sent', async () => {
    const refused: [Record<string, string>, string][] = [
      [{ organisation: 'o'.repeat(256) }, 'organisation'],
      [{ organisation: 'o'.repeat(201) }, 'organisation'],
      [{ email: `${'e'.repeat(250)}@example.org` }, 'email'],
      [{ email: 'no-at-sign.example.org' }, 'email'],
      [{ email: 'ඉමේල්@example.org' }, 'email'],
      [{ password: 'p'.repeat(257) }, 'password'],
    ];
    for (const [fields, field] of refused) {
      const { status, html } = await signUpForm(fields);
      expect([field, status]).toEqual([field, 400]);
      expect(html).toMatch(/^<!doctype html>/i);
      expect(html).toContain(`Field &#39;${field}&#39;`);
    }
    const first = uniqueEmail('eve');
    const second = uniqueEmail('third-party');
    expect((await signUpForm({ email: `${first},${second}` })).status).toBe(400);
    expect(await mailTo(first)).toEqual([]);
    expect(await mailTo(second)).toEqual([]);
  });
});

describe('the log-in, forgot-password and reset-password forms', () => {
  const form = (path: string, fields: Record<string, string>) => new DashboardBrowser(server.url).submit(path, fields, '');
  const expectRefused = async (path: string, fields: Record<string, string>, field: string) => {
    const { status, html } = await form(path, fields);
    expect([path, fields, status]).toEqual([path, fields, 400]);
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain(`Field &#39;${field}&#39;`);
  };
  const badEmails = ['no-at-sign.example.org', `${'e'.repeat(250)}@example.org`, 'ඉමේල්@example.org', 'a\u0000b@example.org'];

  test('the log-in form refuses what the JSON log-in refuses, as a 400 page naming the field', async () => {
    for (const email of badEmails) await expectRefused('/dashboard/log-in', { email, password: 'a long enough password' }, 'email');
    await expectRefused('/dashboard/log-in', { email: uniqueEmail('log-in-form'), password: 'p'.repeat(257) }, 'password');
    await expectRefused('/dashboard/log-in', { email: uniqueEmail('log-in-form') }, 'password');
  });

  test('the forgot-password form refuses what the JSON request refuses, and mails nothing', async () => {
    for (const email of badEmails) await expectRefused('/dashboard/forgot-password', { email }, 'email');
    const first = uniqueEmail('reset-eve');
    const second = uniqueEmail('reset-third-party');
    await new DashboardBrowser(server.url).signUp(first);
    await new DashboardBrowser(server.url).signUp(second);
    await expectRefused('/dashboard/forgot-password', { email: `${first},${second}` }, 'email');
    // only the sign-ups' verification mails
    expect(await mailTo(first)).toHaveLength(1);
    expect(await mailTo(second)).toHaveLength(1);
  });

  test('the reset-password form refuses what the JSON reset refuses, and the link keeps working', async () => {
    const email = uniqueEmail('reset-form');
    await new DashboardBrowser(server.url).signUp(email, 'the first password');
    await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    const token = await linkToken(email, '/dashboard/reset-password');
    await expectRefused('/dashboard/reset-password', { token: 't'.repeat(201), password: 'the second password' }, 'token');
    await expectRefused('/dashboard/reset-password', { token: 'a\u0000b', password: 'the second password' }, 'token');
    await expectRefused('/dashboard/reset-password', { token, password: 'p'.repeat(257) }, 'password');
    await expectRefused('/dashboard/reset-password', { token, password: ' '.repeat(10) }, 'password');
    expect((await form('/dashboard/reset-password', { token, password: 'the second password' })).status).toBe(200);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the second password')).status).toBe(200);
  });
});

describe('password reset', () => {
  test('a mailed one-time link sets a new password and ends every session', async () => {
    const email = uniqueEmail('reset');
    const browser = new DashboardBrowser(server.url);
    await browser.signUp(email, 'the first password');
    const requested = await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    expect(requested.response.status).toBe(202);
    const token = await linkToken(email, '/dashboard/reset-password');
    const reset = await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset/confirm', { body: { token, password: 'the second password' } });
    expect(reset.response.status).toBe(204);
    expect((await browser.client.GET('/dashboard/api/session')).response.status).toBe(401);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the first password')).status).toBe(401);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the second password')).status).toBe(200);
    const reused = await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset/confirm', { body: { token, password: 'a third password!' } });
    expect(reused.response.status).toBe(404);
  });

  test('a log-in that checked the old password while the reset happened gets no session that outlives the reset', async () => {
    const email = uniqueEmail('reset-race');
    await new DashboardBrowser(server.url).signUp(email, 'the first password');
    await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    const token = await linkToken(email, '/dashboard/reset-password');
    const attacker = new DashboardBrowser(server.url);
    let loggingIn: Promise<Response> | undefined;
    // the person's row is held locked while the attacker's log-in (which has read the old hash by
    // then) waits to write its session, and the reset is made under that lock: the log-in goes on
    // only once the reset has committed
    await server.orm.em.fork().transactional(async (tx) => {
      await tx.execute('select id from dashboard_user where email = ? for update', [email]);
      loggingIn = attacker.logIn(email, 'the first password');
      await waitsForLock(server.orm, '%dashboard_%', 'the log-in');
      await resetPassword({ em: tx, settings: services.signIn, mailer: services.mailer, clientAddress: '127.0.0.1', now: clock.now() }, { token, password: 'the second password' });
    });
    expect((await loggingIn!).status).toBe(401);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the second password')).status).toBe(200);
  });

  test('a refused new password leaves the link working, in the JSON operation and the form', async () => {
    const email = uniqueEmail('reset-refused');
    await new DashboardBrowser(server.url).signUp(email, 'the first password');
    const confirm = (token: string, password: string) => new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset/confirm', { body: { token, password } });
    await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    const token = await linkToken(email, '/dashboard/reset-password');
    expect((await confirm(token, email)).response.status).toBe(400);
    const spaces = await confirm(token, ' '.repeat(12));
    expect(spaces.response.status).toBe(400);
    expect(spaces.error).toMatchObject({ detail: "Field 'password' must contain at least one non-whitespace character." });
    expect((await confirm(token, 'the second password')).response.status).toBe(204);

    await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email } });
    const formToken = await linkToken(email, '/dashboard/reset-password', 2);
    const form = (password: string) => new DashboardBrowser(server.url).submit('/dashboard/reset-password', { token: formToken, password }, '');
    const refused = await form(email.toUpperCase());
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/must not be your email address/);
    expect((await form('the third password')).status).toBe(200);
    expect((await new DashboardBrowser(server.url).logIn(email, 'the third password')).status).toBe(200);
  });

  test('an address without an account gets the same answer and no mail', async () => {
    const email = uniqueEmail('no-account');
    const known = uniqueEmail('has-account');
    await new DashboardBrowser(server.url).signUp(known);
    const answers = [];
    for (const address of [email, known]) answers.push(await new DashboardBrowser(server.url).client.POST('/dashboard/api/password-reset', { body: { email: address } }));
    expect(answers.map((a) => a.response.status)).toEqual([202, 202]);
    expect(answers[0]!.data).toEqual(answers[1]!.data);
    // the jobs run in order of their requests: once the known address has its link, the other had its turn
    await linkToken(known, '/dashboard/reset-password');
    expect(await mailTo(email)).toEqual([]);
  });

  test('the answer does not wait for the mail: an address with an account answers as soon as one without', async () => {
    const known = uniqueEmail('timing-known');
    await new DashboardBrowser(server.url).signUp(known);
    // the mail server holds every message for a second (the catcher's SMTP is local and quick;
    // a real relay takes far longer): a request that sent the mail itself would take that second
    const slowMailer = { send: async (...args: Parameters<Services['mailer']['send']>) => (await new Promise((r) => setTimeout(r, 1_000)), services.mailer.send(...args)) };
    const slow = await startServer({ clock, services: testServices({ mailer: slowMailer }, { SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' }) });
    const timed = async (address: string) => {
      const started = performance.now();
      const { response } = await new DashboardBrowser(slow.url).client.POST('/dashboard/api/password-reset', { body: { email: address } });
      expect(response.status).toBe(202);
      return performance.now() - started;
    };
    expect(await timed(known)).toBeLessThan(1_000);
    await linkToken(known, '/dashboard/reset-password');
    await slow.close();
  });
});

