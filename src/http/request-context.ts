import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.js';
import type { InFlightRequests } from './in-flight.js';
import type { Logger } from './logger.js';
import type { AppState } from './state.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The id of a request: the client's X-Request-Id when well formed, else a new one. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming !== undefined && CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Gives each request an id (the client's, when well formed), a child logger carrying it, a unit
 * of work on the database made on first use, and an access-log line; after the response is
 * known, completes the request-log row of an admitted request.
 */
export function requestContext(orm: Orm, log: Logger, inFlight: InFlightRequests) {
  return async (ctx: Context & { state: AppState }, next: Next): Promise<void> => {
    const requestId = requestIdFrom(ctx.get('X-Request-Id'));
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.log = log.child({ requestId });
    let em: EntityManager | undefined;
    Object.defineProperty(ctx.state, 'em', { get: () => (em ??= orm.em.fork()), configurable: true });
    ctx.set('X-Request-Id', requestId);
    // the request's status and duration, taken once: the request log and the access log say the same
    let ended: { status: number; durationMs: number } | undefined;
    const end = () => (ended ??= { status: ctx.state.finalStatus ?? ctx.status, durationMs: Number(process.hrtime.bigint() - started) / 1e6 });
    let recorded: Promise<void> | undefined;
    const recordOutcome = () => {
      const { logId, usage } = ctx.state;
      if (!logId) return Promise.resolve();
      const { status, durationMs } = end();
      // the request already counts (its row was written at admission); only a query, which
      // reports what it used, waits for its outcome, so that the caller's next GET /usage sees
      // its tokens
      const awaited = usage !== undefined;
      const written = inFlight.finish(logId, { status, durationMs, ...usage }, awaited).catch((error: unknown) => {
        ctx.state.log.warn({ err: error }, 'could not record the request outcome');
      });
      return awaited ? written : Promise.resolve();
    };
    ctx.state.recordOutcome = () => (recorded ??= recordOutcome());
    try {
      await next();
    } finally {
      await ctx.state.recordOutcome();
      const { status, durationMs } = end();
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status,
          keyId: ctx.state.principal?.keyId,
          durationMs,
        },
        'request completed',
      );
    }
  };
}
