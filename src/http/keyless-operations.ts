import type { Context } from 'koa';
import type { Context as OpenApiContext, OpenAPIBackend } from 'openapi-backend';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import { AuthenticationError, ForbiddenError } from '../domain/errors.js';
import { findSession, type SignedIn } from '../domain/sign-in/sessions.js';
import { csrfTokenMatches } from '../domain/sign-in/tokens.js';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_MS } from '../domain/sign-in/devices.js';
import { keylessHandlers, type KeylessHandler } from '../handlers/index.js';
import type { KeylessOperation } from '../generated/contract-values.js';
import { readBody, type RequestBodySpec } from './body-readers.js';
import { checkedParameters } from './parameters.js';
import type { AppState } from './state.js';

// The operations called without an API key: the dashboard's, signed in by its session cookie and
// guarded against cross-site requests, and the payment gateway's notifications. None of them
// counts toward the API's limits.

type Ctx = Context & { state: AppState };

export const SESSION_COOKIE = 'svc_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface DashboardDeps {
  clock: Clock;
  services: Services;
}

export function isKeylessOperation(operationId: string | undefined): operationId is KeylessOperation {
  return operationId !== undefined && Object.hasOwn(keylessHandlers, operationId);
}

/** Registers the SessionCookie security scheme and every dashboard operation's handler. */
export function registerKeyless(api: OpenAPIBackend, deps: DashboardDeps): void {
  api.registerSecurityHandler('SessionCookie', async (_c: OpenApiContext, ctx: Ctx) => {
    const token = ctx.cookies.get(SESSION_COOKIE);
    const session = token ? await findSession(ctx.state.em, token, deps.services.signIn, deps.clock.now()) : null;
    if (!session) throw new AuthenticationError('authentication_failed', 'Log in to the dashboard first: there is no session, or it ended.');
    ctx.state.session = session;
    return true;
  });
  for (const [operationId, handler] of Object.entries(keylessHandlers)) {
    api.register(operationId, bind(handler as KeylessHandler<KeylessOperation>, deps));
  }
}

/**
 * Refuses cross-site requests that would change something: a browser's `Sec-Fetch-Site` or
 * `Origin` naming another site, and, when signed in, a missing or wrong CSRF token (bound to the
 * session's cookie). Clients without those headers (curl, scripts) still need the token.
 */
export function checkCrossSite(ctx: Ctx, settings: Services['signIn'], session: SignedIn | undefined, csrfToken: string | undefined): void {
  if (SAFE_METHODS.has(ctx.method)) return;
  const site = ctx.get('Sec-Fetch-Site');
  if (site && site !== 'same-origin' && site !== 'none') {
    throw new ForbiddenError(`Refused: a request from another site (Sec-Fetch-Site: ${site}) may not change anything in the dashboard.`);
  }
  const origin = ctx.get('Origin');
  // this server's own origin as the request addressed it (Koa 3's ctx.origin echoes the Origin header)
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin && origin !== own && origin !== new URL(settings.baseUrl).origin) {
    throw new ForbiddenError('Refused: a request from another origin may not change anything in the dashboard.');
  }
  if (session && !csrfTokenMatches(session.token, settings.secret, csrfToken)) {
    throw new ForbiddenError('The CSRF token is missing or wrong: send the csrf_token of your session (GET /dashboard/api/session) as X-CSRF-Token, or reload the page.');
  }
}

function bind(handler: KeylessHandler<KeylessOperation>, deps: DashboardDeps) {
  return async (c: OpenApiContext, ctx: Ctx): Promise<void> => {
    checkCrossSite(ctx, deps.services.signIn, ctx.state.session, ctx.get('X-CSRF-Token') || undefined);
    // after the cross-site check, so a missing CSRF token stays the contract's 403, not a 400
    const parameters = checkedParameters(c, ctx);
    const body = c.operation.requestBody as { content: RequestBodySpec['content'] } | undefined;
    const input = body ? await readBody(ctx, { operationId: c.operation.operationId!, content: body.content }) : undefined;
    const result = await handler({
      body: input as never,
      rawBody: ctx.state.rawBody,
      params: parameters.path as never,
      query: parameters.query,
      session: ctx.state.session ?? null,
      presentedToken: ctx.cookies.get(SESSION_COOKIE),
      presentedDevice: ctx.cookies.get(DEVICE_COOKIE),
      clientAddress: ctx.ip,
      log: ctx.state.log,
      em: ctx.state.em,
      now: deps.clock.now(),
      services: deps.services,
    });
    if (result.cookie) setSessionCookie(ctx, result.cookie, deps.services.signIn.baseUrl, deps.clock.now());
    ctx.status = result.status;
    for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
    if (result.body !== undefined) ctx.body = result.body;
    if (result.contentType) ctx.type = result.contentType;
  };
}

/** Sets (or clears) the session cookie, and with a new session the browser's device cookie (kept when the session is cleared). */
export function setSessionCookie(ctx: Ctx, cookie: { token: string; expiresAt: Date; device?: string } | 'clear', baseUrl: string, now: Date): void {
  const secure = baseUrl.startsWith('https:');
  // behind a TLS-terminating proxy the socket is plain: the public address decides
  if (secure) ctx.cookies.secure = true;
  const options = { httpOnly: true, sameSite: 'lax' as const, path: '/dashboard', secure, overwrite: true };
  if (cookie === 'clear') ctx.cookies.set(SESSION_COOKIE, '', { ...options, maxAge: 0 });
  else ctx.cookies.set(SESSION_COOKIE, cookie.token, { ...options, maxAge: Math.max(0, cookie.expiresAt.getTime() - now.getTime()) });
  if (cookie !== 'clear' && cookie.device) ctx.cookies.set(DEVICE_COOKIE, cookie.device, { ...options, maxAge: DEVICE_COOKIE_MAX_AGE_MS });
}
