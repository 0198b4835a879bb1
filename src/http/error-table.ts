import type { ErrorCode, ErrorData } from '../domain/errors.js';

/** `error`: {error: {code, message}} (authentication, permission, limits); `detail`: {detail, errors?}. */
type Shape = 'error' | 'detail';

interface Row {
  status: number;
  shape: Shape;
  headers?: (data: ErrorData) => Record<string, string>;
}

/** Every error code's documented status, body shape and headers (see the contract's responses). */
export const ERROR_TABLE: Record<ErrorCode, Row> = {
  missing_api_key: { status: 401, shape: 'error' },
  authentication_failed: { status: 401, shape: 'error' },
  api_key_revoked: { status: 401, shape: 'error' },
  forbidden: { status: 403, shape: 'error' },
  storage_limit_exceeded: { status: 403, shape: 'error' },
  rate_limit_exceeded: { status: 429, shape: 'error', headers: retryAfter },
  quota_exceeded: { status: 429, shape: 'error', headers: retryAfter },
  invalid_request: { status: 400, shape: 'detail' },
  invalid_attachment: { status: 400, shape: 'detail' },
  unreadable_document: { status: 400, shape: 'detail' },
  no_active_plan: { status: 402, shape: 'detail' },
  not_found: { status: 404, shape: 'detail' },
  conflict: { status: 409, shape: 'detail' },
  method_not_allowed: { status: 405, shape: 'detail', headers: (data) => ({ Allow: (data.allow ?? []).join(', ') }) },
  // the rest of an oversized body is not read: closing the connection stops the client sending it
  payload_too_large: { status: 413, shape: 'detail', headers: closeConnection },
  // the body stopped arriving: closing the connection ends a request that cannot complete
  request_timeout: { status: 408, shape: 'detail', headers: closeConnection },
  unsupported_media_type: { status: 415, shape: 'detail' },
  // nobody reads this answer: the status is for the log and the request log (nginx's convention)
  client_closed_request: { status: 499, shape: 'detail' },
  upstream_failed: { status: 502, shape: 'detail' },
  dependency_unavailable: { status: 503, shape: 'detail' },
};

function closeConnection(): Record<string, string> {
  return { Connection: 'close' };
}

function retryAfter(data: ErrorData): Record<string, string> {
  return { 'Retry-After': String(data.retryAfterSeconds ?? 1) };
}
