import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Orm } from '../db/orm.js';
import { recordOutcome } from '../domain/usage/usage.js';
import type { InFlightRequests } from './in-flight.js';
import type { Logger } from './logger.js';
import type { AppState } from './state.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Gives each request an id (the client's, when well formed), a child logger carrying it, a
 * unit of work on the database, and an access-log line; after the response is known, completes
 * the request-log row of an admitted request.
 */
export function requestContext(orm: Orm, log: Logger, inFlight: InFlightRequests) {
  return async (ctx: Context & { state: AppState }, next: Next): Promise<void> => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.log = log.child({ requestId });
    ctx.state.em = orm.em.fork();
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const status = ctx.state.finalStatus ?? ctx.status;
      if (ctx.state.logId) {
        try {
          await recordOutcome(ctx.state.em, ctx.state.logId, { status, ...ctx.state.usage });
        } catch (error) {
          ctx.state.log.warn({ err: error }, 'could not record the request outcome');
        } finally {
          inFlight.delete(ctx.state.logId);
        }
      }
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          status,
          keyId: ctx.state.principal?.keyId,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request completed',
      );
    }
  };
}
