import { randomUUID } from 'node:crypto';
import Koa, { type Context } from 'koa';
import type { Orm } from '../db/orm.js';
import type { Clock } from '../clock.js';
import { authenticate, type AuthSettings } from '../domain/keys/authenticate.js';
import { AuthenticationError, ForbiddenError, ServiceError } from '../domain/errors.js';
import { FailedAuthThrottle } from '../domain/keys/failed-auth-throttle.js';
import { hashKey, keyEnvironment } from '../domain/keys/key-format.js';
import { ipAllowed } from '../domain/keys/restrictions.js';
import { admitDocs, type DocsClient } from '../domain/limits/docs-limits.js';
import { mapError } from '../http/error-mapper.js';
import type { Logger } from '../http/logger.js';
import type { DocsContent, Resource } from './resources.js';

// The documentation site: its own Koa app on its own listener (src/main.ts), beside the API. No key
// is needed; every request counts toward the site's hourly limit of its client (see docs-limits).

export interface DocsAppDeps {
  content: DocsContent;
  orm: Orm;
  log: Logger;
  clock: Clock;
  auth: AuthSettings;
  trustProxy: boolean;
}

const CACHE = 'public, max-age=300';
/** The Markdown copies of a page: `<page>.md` and `<page>.mdx`. */
const MARKDOWN_SUFFIX = /\.mdx?$/;

export function createDocsApp(deps: DocsAppDeps): Koa {
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: 1 });
  const { content } = deps;

  app.use(async (ctx, next) => {
    const requestId = randomUUID();
    const started = process.hrtime.bigint();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } catch (error) {
      const mapped = mapError(error, requestId);
      if (mapped.status === 500) deps.log.error({ err: error, requestId }, 'docs request failed');
      ctx.status = mapped.status;
      ctx.body = mapped.body;
      ctx.set('Cache-Control', 'no-store');
      for (const [name, value] of Object.entries(mapped.headers ?? {})) ctx.set(name, value);
    } finally {
      deps.log.info({ requestId, site: 'docs', method: ctx.method, path: ctx.path, status: ctx.status, durationMs: Number(process.hrtime.bigint() - started) / 1e6 }, 'request completed');
    }
  });

  // keys that fail are limited per address as on the API, so that the site's allowance does not tell a guessed key's validity without a brake
  const failedAuth = new FailedAuthThrottle(deps.auth.failuresPerMinute);
  app.use(async (ctx, next) => {
    const em = deps.orm.em.fork();
    const now = deps.clock.now();
    const admission = await admitDocs(em, await clientOf(ctx, em, deps, failedAuth, now), now);
    ctx.set('X-RateLimit-Limit', String(admission.window.limit));
    ctx.set('X-RateLimit-Remaining', String(admission.window.remaining));
    ctx.set('X-RateLimit-Reset', String(admission.window.reset));
    if (!admission.admitted) throw admission.error;
    await next();
  });

  app.use((ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new ServiceError('method_not_allowed', `Method ${ctx.method} is not allowed on the documentation site: it serves GET and HEAD.`, { allow: ['GET', 'HEAD'] });
    }
    const file = content.files.get(ctx.path);
    if (file) return send(ctx, file);
    const asMarkdown = content.pages.get(ctx.path.replace(MARKDOWN_SUFFIX, ''));
    if (asMarkdown && MARKDOWN_SUFFIX.test(ctx.path)) return send(ctx, asMarkdown.markdown, { vary: true });
    const page = content.pages.get(ctx.path);
    if (page) {
      // q-values honoured (negotiator): the first type is chosen on a tie and for */* or no Accept
      const chosen = ctx.accepts('text/html', 'text/markdown', 'text/plain');
      const variant = chosen === 'text/markdown' ? page.markdown : chosen === 'text/plain' ? page.plain : page.html;
      return send(ctx, variant, { vary: true });
    }
    send(ctx, content.notFound, { status: 404, cache: 'public, max-age=60' });
  });

  app.on('error', (error: Error) => deps.log.warn({ err: error }, 'docs connection error'));
  return app;
}

/**
 * A valid key, used from an address its allow-list admits, gets the key's allowance; no key, or
 * one that does not authenticate, the address's. Past the address's failed attempts per minute
 * (AUTH_FAILURES_PER_MINUTE), a key not seen to work is not looked up at all.
 */
async function clientOf(ctx: Context, em: ReturnType<Orm['em']['fork']>, deps: DocsAppDeps, failedAuth: FailedAuthThrottle, now: Date): Promise<DocsClient> {
  const address: DocsClient = { kind: 'address', address: ctx.ip };
  const presented = ctx.get('X-API-Key');
  // as on the API, malformed keys and keys of the other environment are not looked up, nor counted as failed
  if (!presented || keyEnvironment(presented) !== deps.auth.environment) return address;
  const keyHash = hashKey(presented, deps.auth.hashSecret);
  if (failedAuth.held(ctx.ip, keyHash, now.getTime())) return address;
  try {
    const principal = await authenticate(em, deps.auth, presented, now);
    failedAuth.succeeded(keyHash);
    if (principal.allowedIps.length > 0 && !ipAllowed(ctx.ip, principal.allowedIps)) return address;
    return { kind: 'key', keyId: principal.keyId };
  } catch (error) {
    if (!(error instanceof AuthenticationError || error instanceof ForbiddenError)) throw error;
    if (error instanceof AuthenticationError) failedAuth.fail(ctx.ip, now.getTime());
    return address;
  }
}

/**
 * Whether If-None-Match names this ETag (weak comparison, RFC 9110 13.1.2). Evaluated here rather
 * than by Koa's ctx.fresh, which follows the rules of caches and so ignores it whenever the request
 * says `Cache-Control: no-cache`, as fetch() does for every conditional request.
 */
function matches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function send(ctx: Context, resource: Resource, options: { status?: number; vary?: boolean; cache?: string } = {}): void {
  ctx.status = options.status ?? 200;
  ctx.type = resource.type;
  ctx.set('ETag', resource.etag);
  ctx.set('Cache-Control', options.cache ?? CACHE);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (resource.csp) ctx.set('Content-Security-Policy', resource.csp);
  if (options.vary) ctx.vary('Accept');
  if (ctx.status === 200 && matches(ctx.get('If-None-Match'), resource.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.body = resource.body;
}
