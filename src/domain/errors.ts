// The service's one error vocabulary. Every failure a caller can cause or meet is a ServiceError:
// a code from the closed set below, a message a person can act on, and optional data. The named
// classes only fix a code and build a message; src/http/error-table.ts maps each code to its
// documented status and body shape, so a new kind of failure is a new code and a new row there.

export const ERROR_CODES = [
  'missing_api_key',
  'authentication_failed',
  'api_key_revoked',
  'forbidden',
  'storage_limit_exceeded',
  'rate_limit_exceeded',
  'quota_exceeded',
  'invalid_request',
  'invalid_attachment',
  'unreadable_document',
  'no_active_plan',
  'not_found',
  'conflict',
  'method_not_allowed',
  'payload_too_large',
  'request_timeout',
  'unsupported_media_type',
  'client_closed_request',
  'upstream_failed',
  'dependency_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface FieldProblem {
  path: string;
  message: string;
}

/** Facts a response needs besides the message (a header value, the list of field problems). */
export interface ErrorData {
  retryAfterSeconds?: number;
  allow?: string[];
  problems?: FieldProblem[];
}

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: ErrorData = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type AuthFailure = Extract<ErrorCode, 'missing_api_key' | 'authentication_failed' | 'api_key_revoked'>;

export class AuthenticationError extends ServiceError {
  constructor(code: AuthFailure, message: string) {
    super(code, message);
  }
}

/** The key is valid but may not do this (read-only, IP allow-list, plan). */
export class ForbiddenError extends ServiceError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export type LimitKind = 'minute' | 'day' | 'month';

export class LimitExceededError extends ServiceError {
  constructor(
    readonly kind: LimitKind,
    retryAfterSeconds: number,
    message: string,
  ) {
    super(kind === 'month' ? 'quota_exceeded' : 'rate_limit_exceeded', message, { retryAfterSeconds });
  }
}

/** An upload would pass the plan's storage limits for knowledge bases (documents, pages or bytes per account). */
export class StorageLimitError extends ServiceError {
  constructor(message: string) {
    super('storage_limit_exceeded', message);
  }
}

/** The request is malformed; the message names the field and the rule. */
export class InvalidRequestError extends ServiceError {
  constructor(message: string, problems: FieldProblem[] = []) {
    super('invalid_request', message, problems.length > 0 ? { problems } : {});
  }
}

/** An attachment the service cannot or may not use; the message names it and says what to change. */
export class InvalidAttachmentError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_attachment', message, {}, options);
  }
}

export class NotFoundError extends ServiceError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/** The request clashes with what exists (an email address already signed up). */
export class ConflictError extends ServiceError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** An account without an active subscription tried something that needs one. */
export class NoActivePlanError extends ServiceError {
  constructor() {
    super('no_active_plan', 'No active plan found. Subscribe to the Free plan or a paid plan before creating API keys.');
  }
}

/** A component we depend on (database, search index) cannot be reached. */
export class DependencyUnavailableError extends ServiceError {
  constructor(
    readonly dependency: string,
    options?: { cause?: unknown },
  ) {
    super('dependency_unavailable', `The ${dependency} is temporarily unavailable. Please retry shortly.`, {}, options);
  }
}

/** The database ended the request's transaction, which met another one changing the same records: retrying succeeds. */
export class ConcurrentChangeError extends ServiceError {
  constructor(options?: { cause?: unknown }) {
    super('dependency_unavailable', 'The request met another change to the same records at the same moment, and its change was not made. Please retry.', {}, options);
  }
}

const UPSTREAM_MESSAGES = {
  'model provider': 'The model provider failed to answer in time. The request was counted; please retry.',
  'search index': 'The search index answered with an error. The request was counted; please retry.',
  'embeddings endpoint': 'The embeddings endpoint answered with an error. Please retry shortly.',
};

/** A component we depend on answered with an error or not in time (as opposed to being unreachable). */
export class UpstreamError extends ServiceError {
  constructor(component: keyof typeof UPSTREAM_MESSAGES, options?: { cause?: unknown }) {
    super('upstream_failed', UPSTREAM_MESSAGES[component], {}, options);
  }
}
