import Koa, { type Middleware } from 'koa';
import type { Orm } from '../db/orm.js';
import { RequestLog } from '../db/request-log.js';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import type { AuthSettings } from '../domain/keys/authenticate.js';
import { createApi } from './api.js';
import { dashboardPages } from './dashboard-pages.js';
import { InvalidRequestError } from '../domain/errors.js';
import { errorMapper } from './error-mapper.js';
import { InFlightRequests } from './in-flight.js';
import type { Logger } from './logger.js';
import { requestContext } from './request-context.js';
import { routedMethod } from './routed-method.js';

export interface AppDeps {
  orm: Orm;
  log: Logger;
  clock: Clock;
  auth: AuthSettings;
  trustProxy: boolean;
  services: Services;
  /** Where the entry point sees the admitted requests still open, to record them if shutdown cuts them. */
  inFlight?: InFlightRequests;
  /** The repository root, where the dashboard's templates and assets are (dashboard/). */
  rootDir: string;
  /** Comment lines keep a quiet event stream open after this long without an event. */
  streamHeartbeatMs: number;
}

export function createApp(deps: AppDeps): Koa {
  // behind a proxy only the last X-Forwarded-For entry (added by that proxy) is trusted: the rest is the client's to forge
  const app = new Koa({ proxy: deps.trustProxy, maxIpsCount: 1 });
  const requests = deps.inFlight?.requests ?? new RequestLog(deps.orm);
  const inFlight = deps.inFlight ?? new InFlightRequests(requests);
  const api = createApi({ auth: deps.auth, clock: deps.clock, requests, services: deps.services, inFlight, streamHeartbeatMs: deps.streamHeartbeatMs });
  app.use(requestContext(deps.orm, deps.log, inFlight));
  app.use(errorMapper);
  app.use(wellFormedPath);
  app.use(dashboardPages({ clock: deps.clock, services: deps.services, rootDir: deps.rootDir }));
  app.use(async (ctx) => {
    await api.handleRequest(
      { method: routedMethod(ctx.method), path: ctx.path, query: ctx.querystring, headers: ctx.headers as Record<string, string | string[]> },
      ctx,
    );
  });
  // errors outside a request (socket resets) are logged, never printed with a stack to clients
  app.on('error', (error: Error) => deps.log.warn({ err: error }, 'connection error'));
  return app;
}

/** The router decodes path parameters: a malformed percent-encoding ('%FF', a '%' without two hex digits) is the client's mistake, not a URIError. */
const wellFormedPath: Middleware = async (ctx, next) => {
  try {
    decodeURIComponent(ctx.path);
  } catch {
    throw new InvalidRequestError('The path has a malformed percent-encoding (such as %FF, or a % without two hex digits after it): percent-encode each path parameter as UTF-8.');
  }
  await next();
};
