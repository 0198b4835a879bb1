// Typed failures of the domain. They carry no HTTP knowledge: src/http/error-mapper.ts turns each
// into its documented status and body.

export type AuthFailure = 'missing_api_key' | 'authentication_failed' | 'api_key_revoked';

export class AuthenticationError extends Error {
  constructor(
    readonly code: AuthFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The key is valid but may not do this (read-only, IP allow-list, plan). */
export class ForbiddenError extends Error {}

export type LimitKind = 'minute' | 'day' | 'month';

export class LimitExceededError extends Error {
  constructor(
    readonly kind: LimitKind,
    readonly retryAfterSeconds: number,
    message: string,
  ) {
    super(message);
  }
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** The request is malformed; the message names the field and the rule. */
export class InvalidRequestError extends Error {
  constructor(
    message: string,
    readonly problems: FieldProblem[] = [],
  ) {
    super(message);
  }
}

export class NotFoundError extends Error {}

/** An account without an active subscription tried something that needs one. */
export class NoActivePlanError extends Error {
  constructor() {
    super(
      'No active plan found. Subscribe to the Free plan or a paid plan before creating API keys.',
    );
  }
}

/** A component we depend on (database, search index) cannot be reached. */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    options?: { cause?: unknown },
  ) {
    super(`The ${dependency} is temporarily unavailable. Please retry shortly.`, options);
  }
}

/** The model provider failed or timed out. */
export class UpstreamError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The model provider failed to answer in time. The request was counted; please retry.', options);
  }
}
