import type { Context, Next } from 'koa';
import { ConcurrentChangeError, DependencyUnavailableError, ServiceError } from '../domain/errors.js';
import { isDatabaseUnavailable, isTransactionConflict } from '../db/availability.js';
import { ERROR_TABLE } from './error-table.js';
import type { Logger } from './logger.js';
import type { AppState } from './state.js';

type Mapped = { status: number; body: unknown; headers?: Record<string, string> };

/** Turns a failure into its documented status, body and headers, by the error table. */
export function mapError(error: unknown, requestId: string): Mapped {
  // the database driver's own errors are the one kind not raised by our code
  const known =
    error instanceof ServiceError
      ? error
      : isDatabaseUnavailable(error)
        ? new DependencyUnavailableError('database', { cause: error })
        : isTransactionConflict(error)
          ? new ConcurrentChangeError({ cause: error })
          : null;
  if (!known) {
    return { status: 500, body: { detail: `Internal server error. Quote request id ${requestId} when contacting support.` } };
  }
  const row = ERROR_TABLE[known.code];
  const body =
    row.shape === 'error'
      ? { error: { code: known.code, message: known.message } }
      : known.data.problems?.length
        ? { detail: known.message, errors: known.data.problems }
        : { detail: known.message };
  return { status: row.status, body, headers: row.headers?.(known.data) };
}

/** Logs a failure by what it is: only the unexpected deserves a stack trace; outages and refusals are expected. */
export function logFailure(log: Logger, error: unknown, status: number): void {
  if (status === 500) log.error({ err: error }, 'request failed');
  else if (status === 499) log.info('client closed the connection while sending the body');
  // the dependency's own words stay in the log, for the operator, not in the response
  else if (status >= 502) {
    const { message, cause } = error as Error;
    log.warn({ reason: message, cause: cause instanceof Error ? cause.message : undefined }, 'dependency failed');
  }
  else log.debug({ reason: (error as Error).message }, 'request refused');
}

export async function errorMapper(ctx: Context & { state: AppState }, next: Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    const mapped = mapError(error, ctx.state.requestId);
    logFailure(ctx.state.log, error, mapped.status);
    ctx.status = mapped.status;
    ctx.body = mapped.body;
    for (const [name, value] of Object.entries(mapped.headers ?? {})) ctx.set(name, value);
  }
}
