import type { Context } from 'koa';
import { OpenAPIBackend, type Context as OpenApiContext, type Document } from 'openapi-backend';
import spec from '../generated/openapi.json' with { type: 'json' };
import type { Clock } from '../clock.js';
import type { RequestLog } from '../db/request-log.js';
import type { Services } from '../services.js';
import { keyRefusal, type AuthSettings } from '../domain/keys/authenticate.js';
import { FailedAuthThrottle } from '../domain/keys/failed-auth-throttle.js';
import { hashKey, keyEnvironment } from '../domain/keys/key-format.js';
import { admit } from '../domain/limits/limiter.js';
import type { WindowHeaders } from '../domain/limits/window.js';
import { PlanCatalogue } from '../domain/plans/catalogue.js';
import { AuthenticationError, NotFoundError } from '../domain/errors.js';
import { handlers, type ApiOperationId, type Handler, type PhaseTiming } from '../handlers/index.js';
import { checkBodySpec, readBody, type RequestBodySpec } from './body-readers.js';
import { checkedParameters } from './parameters.js';
import { sendEventStream } from './event-stream.js';
import { ClientClosedError, MethodNotAllowedError } from './http-errors.js';
import { isKeylessOperation, registerKeyless } from './keyless-operations.js';
import type { InFlightRequests } from './in-flight.js';
import { prefers } from './preferred-media-type.js';
import type { AppState } from './state.js';

type Ctx = Context & { state: AppState };

export interface ApiDeps {
  auth: AuthSettings;
  clock: Clock;
  requests: RequestLog;
  services: Services;
  inFlight: InFlightRequests;
  /** How long an event stream may go without sending anything before a comment line keeps it open. */
  streamHeartbeatMs: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** The operations whose answer is the key's usage: their admission reads it in the same database call. */
const USAGE_AT_ADMISSION: ReadonlySet<string> = new Set<ApiOperationId>(['getUsage']);

function setWindowHeaders(ctx: Ctx, window: WindowHeaders): void {
  ctx.set('X-RateLimit-Limit', String(window.limit));
  ctx.set('X-RateLimit-Remaining', String(window.remaining));
  ctx.set('X-RateLimit-Reset', String(window.reset));
}

/**
 * openapi-backend with its operation list made once: its router flattens the document's paths
 * into operations on every call, once or twice a request (about 140 µs of a light call's
 * processor time, measured), though the document never changes once loaded.
 */
class ContractBackend extends OpenAPIBackend {
  override async init(): Promise<this> {
    await super.init();
    const operations = this.router.getOperations();
    this.router.getOperations = () => operations;
    return this;
  }
}

/**
 * Routing, security and request handling come from the contract: openapi-backend matches the
 * operation, runs the ApiKeyAuth security handler, and calls the handler bound to the
 * operationId. Order per request: authenticate -> key restrictions -> limiter -> body -> handler.
 */
export function createApi(deps: ApiDeps): OpenAPIBackend {
  const api = new ContractBackend({
    definition: spec as unknown as Document,
    // the document is OpenAPI 3.1, which openapi-backend's 3.0 meta-schema check rejects
    quick: true,
    // bodies are read only after admission and checked by the generated validators
    validate: false,
    strict: true,
  });

  const failedAuth = new FailedAuthThrottle(deps.auth.failuresPerMinute);
  // authentication, the key's restrictions and the limiter are one database call; the refusals
  // of restrictions and limits are answered by postSecurityHandler, with the window's headers
  api.registerSecurityHandler('ApiKeyAuth', async (c: OpenApiContext, ctx: Ctx) => {
    const presented = ctx.get('X-API-Key');
    if (!presented) throw keyRefusal('missing');
    // malformed keys and keys of the other environment cost nothing: no lookup, no count
    if (keyEnvironment(presented) !== deps.auth.environment) throw keyRefusal('invalid');
    const now = deps.clock.now();
    const keyHash = hashKey(presented, deps.auth.hashSecret);
    try {
      failedAuth.check(ctx.ip, keyHash, now.getTime());
    } catch (error) {
      setWindowHeaders(ctx, failedAuth.headers(ctx.ip, now.getTime()));
      throw error;
    }
    let admission;
    const admissionStarted = performance.now();
    try {
      admission = await admit(
        deps.requests,
        {
          keyHash,
          clientIp: ctx.ip,
          request: { requestId: ctx.state.requestId, method: ctx.method, endpoint: endpointName(c.operation.method, c.operation.path) },
          withUsage: USAGE_AT_ADMISSION.has(c.operation.operationId!),
        },
        now,
      );
    } catch (error) {
      if (error instanceof AuthenticationError) failedAuth.fail(ctx.ip, now.getTime());
      throw error;
    }
    failedAuth.succeeded(keyHash);
    ctx.state.admissionMs = performance.now() - admissionStarted;
    ctx.state.principal = admission.principal;
    ctx.state.admission = admission;
    if (admission.admitted) {
      // from here on the request's outcome is owed to its log row, whatever happens next
      ctx.state.logId = admission.logId;
      deps.inFlight.add(admission.logId);
    }
    return true;
  });

  api.register({
    unauthorizedHandler: (c: OpenApiContext) => {
      // the security handler's exception is kept by openapi-backend as the scheme's result; not
      // checked with instanceof Error: a socket's error comes from another realm under jest's VM
      const scheme = isKeylessOperation(c.operation.operationId) ? 'SessionCookie' : 'ApiKeyAuth';
      const failure = (c.security?.[scheme] as { error?: unknown } | undefined)?.error;
      throw (failure as Error | undefined) ?? keyRefusal('missing');
    },
    postSecurityHandler: (c: OpenApiContext, ctx: Ctx) => {
      const admission = ctx.state.admission;
      // dashboard operations are signed in by session and outside the API's limits: no admission
      if (!c.security?.authorized || !admission) return;
      setWindowHeaders(ctx, admission.window);
      if (!admission.admitted) throw admission.error;
    },
    notFound: (_c: OpenApiContext, ctx: Ctx) => {
      throw new NotFoundError(`No operation at ${ctx.path}. The operations are under /api/v1/dev: query, query-multipart, usage, plans, knowledge-bases and webhooks/endpoints.`);
    },
    methodNotAllowed: (_c: OpenApiContext, ctx: Ctx) => {
      const allow = METHODS.filter((method) => api.router.matchOperation({ method, path: ctx.path, headers: {} })).flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]));
      throw new MethodNotAllowedError(`Method ${ctx.method} is not allowed on ${ctx.path}. Allowed: ${allow.join(', ')}.`, allow);
    },
  });

  const catalogue = new PlanCatalogue(() => deps.requests.listedPlans());
  for (const [operationId, handler] of Object.entries(handlers)) {
    api.register(operationId, bind(handler as Handler<ApiOperationId>, deps, catalogue));
  }
  registerKeyless(api, deps);
  checkBodySpecs();
  return api;
}

const PATH_METHODS = new Map(Object.entries(spec.paths as Record<string, object>).map(([path, item]) => [path, Object.keys(item).length]));

/**
 * The endpoint a request counts for in the usage figures: the path template, with the method
 * first when the path has several operations, so that each operation counts on its own (uploads
 * apart from document listings: `POST /api/v1/dev/knowledge-bases/{kb_id}/documents`).
 */
export function endpointName(method: string, path: string): string {
  return (PATH_METHODS.get(path) ?? 1) > 1 ? `${method.toUpperCase()} ${path}` : path;
}

type OperationSpec = { operationId?: string; requestBody?: { content?: RequestBodySpec['content'] } };

/** Fails at start, not at the first request, when the contract declares a body the service cannot read. */
function checkBodySpecs(): void {
  for (const item of Object.values(spec.paths as Record<string, Record<string, OperationSpec>>)) {
    for (const operation of Object.values(item)) {
      if (operation.requestBody?.content) checkBodySpec({ operationId: operation.operationId ?? '', content: operation.requestBody.content });
    }
  }
}

const EVENT_STREAM = 'text/event-stream';
const JSON_MEDIA_TYPE = 'application/json';

/** The Server-Timing header's value (W3C Server Timing): `name;dur=<ms>`, a tenth of a millisecond apart. */
function serverTiming(phases: PhaseTiming[]): string {
  return phases.map((p) => `${p.name};dur=${p.ms.toFixed(1)}`).join(', ');
}

function bind(handler: Handler<ApiOperationId>, deps: ApiDeps, catalogue: PlanCatalogue) {
  return async (c: OpenApiContext, ctx: Ctx): Promise<void> => {
    // the operation as openapi-backend resolved it: its body schemas are dereferenced
    const body = c.operation.requestBody as { content: RequestBodySpec['content'] } | undefined;
    const admission = ctx.state.admission as Extract<AppState['admission'], { admitted: true }>;
    // the media types of the answer come from the contract; q-values choose, JSON on a tie or without Accept
    const mediaTypes = Object.keys((c.operation.responses?.['200'] as { content?: Record<string, unknown> } | undefined)?.content ?? {});
    if (mediaTypes.length > 1) ctx.vary('Accept');
    const eventStream = mediaTypes.includes(EVENT_STREAM) && prefers(ctx.get('Accept') || undefined, EVENT_STREAM, JSON_MEDIA_TYPE);
    const closed = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) closed.abort(new ClientClosedError('The client closed the connection before the response was complete.'));
    });
    const parameters = checkedParameters(c, ctx);
    const result = await handler({
      body: (body ? await readBody(ctx, { operationId: c.operation.operationId!, content: body.content }) : undefined) as never,
      params: parameters.path as never,
      query: parameters.query,
      headers: parameters.headers,
      request: { method: ctx.method, path: ctx.path },
      principal: admission.principal,
      // a unit of work only for the handlers that ask for one (made on first use)
      get em() {
        return ctx.state.em;
      },
      usage: admission.usage,
      listedPlans: () => catalogue.listed(admission.catalogueVersion),
      now: deps.clock.now(),
      services: deps.services,
      eventStream,
      signal: closed.signal,
    });
    if ('events' in result) return sendEventStream(ctx, result.events, { heartbeatMs: deps.streamHeartbeatMs, signal: closed.signal });
    ctx.state.usage = result.usage;
    if (result.headers) ctx.set(result.headers);
    if ('timings' in result && result.timings) ctx.set('Server-Timing', serverTiming([{ name: 'admission', ms: ctx.state.admissionMs ?? 0 }, ...result.timings]));
    ctx.status = 'status' in result ? result.status : 200;
    if (result.body !== undefined) ctx.body = result.body;
  };
}
