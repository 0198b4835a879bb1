import { expect } from '@jest/globals';
import { apiClient, type Schemas } from './contract.js';

// A browser's view of the dashboard's JSON operations: it keeps the session and device cookies
// the server sets and sends the session's CSRF token, like the dashboard's pages do. Every response is
// checked against the contract (apiClient).

export class DashboardBrowser {
  cookie: string | undefined;
  /** the device cookie (src/domain/sign-in/devices.ts), which outlives sessions */
  device: string | undefined;
  csrf: string | undefined;
  readonly client;

  /** The Cookie header this browser sends. */
  cookies(): string {
    return [`svc_session=${this.cookie}`, ...(this.device ? [`svc_device=${this.device}`] : [])].join('; ');
  }

  constructor(readonly baseUrl: string) {
    this.client = apiClient(baseUrl);
    this.client.use({
      onRequest: ({ request }) => {
        if ((this.cookie || this.device) && !request.headers.has('Cookie')) request.headers.set('Cookie', this.cookies());
        if (this.csrf && request.method !== 'GET' && !request.headers.has('X-CSRF-Token')) request.headers.set('X-CSRF-Token', this.csrf);
        return request;
      },
      onResponse: ({ response }) => {
        const set = response.headers.get('set-cookie');
        const match = set?.match(/svc_session=([^;]*)/);
        if (match) this.cookie = match[1] || undefined;
        const device = set?.match(/svc_device=([^;]*)/);
        if (device) this.device = device[1] || undefined;
        return response;
      },
    });
  }

  remember(session: Schemas['DashboardSession'] | undefined): Schemas['DashboardSession'] {
    expect(session).toBeDefined();
    this.csrf = session!.csrf_token;
    return session!;
  }

  async signUp(email: string, password = 'a long enough password', organisation = 'Test School'): Promise<Schemas['DashboardSession']> {
    const { response, data } = await this.client.POST('/dashboard/api/sign-up', { body: { organisation, email, password } });
    expect(response.status).toBe(201);
    return this.remember(data);
  }

  async logIn(email: string, password: string): Promise<Response> {
    const { response, data } = await this.client.POST('/dashboard/api/log-in', { body: { email, password } });
    if (response.status === 200) this.remember(data);
    return response;
  }

  /** A dashboard page as a browser without JavaScript gets it (redirects not followed). */
  async page(path: string): Promise<{ status: number; html: string }> {
    const res = await fetch(`${this.baseUrl}${path}`, { headers: { Cookie: this.cookies() }, redirect: 'manual' });
    return { status: res.status, html: await res.text() };
  }

  /** A page's form posted as a browser without JavaScript posts it, with the session's CSRF token unless another is given. */
  /** Posts a form (`fields` as pairs to send one twice) with the session's CSRF token. */
  async submit(path: string, fields: Record<string, string> | [string, string][] = {}, csrf = this.csrf!): Promise<{ status: number; html: string; location: string | null }> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: { Cookie: this.cookies(), 'Content-Type': 'application/x-www-form-urlencoded', Origin: this.baseUrl },
      body: new URLSearchParams([['csrf_token', csrf], ...(Array.isArray(fields) ? fields : Object.entries(fields))]),
      redirect: 'manual',
    });
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  }

  /** The page once `done` holds for it (work in the background changes it), or as it is at the deadline. */
  async pageUntil(path: string, done: (html: string) => boolean, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { html } = await this.page(path);
      if (done(html) || Date.now() > deadline) return html;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The mail the local catcher got for `to`, oldest first (scripts/mail.sh, started with the test services). */
export async function mailTo(to: string): Promise<{ subject: string; text: string }[]> {
  const web = process.env.MAIL_WEB_URL;
  if (!web) throw new Error('MAIL_WEB_URL is not set: run the tests through scripts/test.sh');
  const res = await fetch(`${web}/messages?to=${encodeURIComponent(to)}`);
  return (await res.json()) as { subject: string; text: string }[];
}

/**
 * The token of the newest link in the mail to `to` whose path ends with `path`, once there are at
 * least `links` such links (reset links are mailed by a job, a moment after the request's answer).
 */
export async function linkToken(to: string, path: string, links = 1): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const mails = await mailTo(to);
    const found = mails.flatMap((m) => [...m.text.matchAll(/https?:\/\/\S+/g)].map((x) => new URL(x[0]))).filter((u) => u.pathname.endsWith(path));
    const token = found.length >= links ? found.at(-1)?.searchParams.get('token') : undefined;
    if (token) return token;
    if (Date.now() > deadline) throw new Error(`no ${links} ${path} link(s) in the mail to ${to} within 15 s: ${JSON.stringify(mails)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let counter = 0;
/** An email address no other test uses. */
export function uniqueEmail(label: string): string {
  return `${label}.${Date.now().toString(36)}.${++counter}@example.org`;
}
