import type { Context, Next } from 'koa';
import {
  AuthenticationError,
  DependencyUnavailableError,
  ForbiddenError,
  InvalidRequestError,
  LimitExceededError,
  NoActivePlanError,
  NotFoundError,
  UpstreamError,
} from '../domain/errors.js';
import { isDatabaseUnavailable } from '../db/availability.js';
import { AttachmentFetchError, AttachmentTooLargeError } from '../domain/attachments/safe-fetch.js';
import { UnsafeUrlError } from '../domain/attachments/address-policy.js';
import { ContentMismatchError, UnsupportedMediaTypeError } from '../domain/attachments/media-type.js';
import { UnreadableDocumentError } from '../domain/documents/extract.js';
import { PayloadTooLargeError, RouteError, UnsupportedContentTypeError } from './http-errors.js';
import type { AppState } from './state.js';

type Mapped = { status: number; body: unknown; headers?: Record<string, string> };

/** Attachments the service cannot or may not use: the client's to fix, each message says how. */
const BAD_ATTACHMENT = [UnsafeUrlError, AttachmentFetchError, AttachmentTooLargeError, UnsupportedMediaTypeError, ContentMismatchError, UnreadableDocumentError];

/** The one place where failures become the documented status codes and bodies. */
export function mapError(error: unknown, requestId: string): Mapped {
  if (error instanceof AuthenticationError) return { status: 401, body: { error: { code: error.code, message: error.message } } };
  if (error instanceof ForbiddenError) return { status: 403, body: { error: { code: 'forbidden', message: error.message } } };
  if (error instanceof LimitExceededError) {
    return {
      status: 429,
      body: { error: { code: error.kind === 'month' ? 'quota_exceeded' : 'rate_limit_exceeded', message: error.message } },
      headers: { 'Retry-After': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof InvalidRequestError) {
    return { status: 400, body: error.problems.length ? { detail: error.message, errors: error.problems } : { detail: error.message } };
  }
  if (BAD_ATTACHMENT.some((kind) => error instanceof kind)) return { status: 400, body: { detail: (error as Error).message } };
  if (error instanceof NotFoundError) return { status: 404, body: { detail: error.message } };
  if (error instanceof NoActivePlanError) return { status: 402, body: { detail: error.message } };
  // the rest of an oversized body is not read: closing the connection stops the client sending it
  if (error instanceof PayloadTooLargeError) return { status: 413, body: { detail: error.message }, headers: { Connection: 'close' } };
  if (error instanceof UnsupportedContentTypeError) return { status: 415, body: { detail: error.message } };
  if (error instanceof RouteError) {
    return { status: error.status, body: { detail: error.message }, headers: error.allow.length ? { Allow: error.allow.join(', ') } : undefined };
  }
  if (error instanceof DependencyUnavailableError) return { status: 503, body: { detail: error.message } };
  if (error instanceof UpstreamError) return { status: 502, body: { detail: error.message } };
  if (isDatabaseUnavailable(error)) {
    return { status: 503, body: { detail: new DependencyUnavailableError('database').message } };
  }
  return { status: 500, body: { detail: `Internal server error. Quote request id ${requestId} when contacting support.` } };
}

export async function errorMapper(ctx: Context & { state: AppState }, next: Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    const mapped = mapError(error, ctx.state.requestId);
    // only the unexpected deserves a stack trace in the log; outages and refusals are expected
    if (mapped.status === 500) ctx.state.log.error({ err: error }, 'request failed');
    else if (mapped.status >= 502) ctx.state.log.warn({ reason: (error as Error).message }, 'dependency unavailable');
    else ctx.state.log.debug({ reason: (error as Error).message }, 'request refused');
    ctx.status = mapped.status;
    ctx.body = mapped.body;
    for (const [name, value] of Object.entries(mapped.headers ?? {})) ctx.set(name, value);
  }
}
