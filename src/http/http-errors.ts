// Failures that only exist at the HTTP boundary (body framing, routing); codes of the one vocabulary
// in src/domain/errors.ts, mapped by error-table.ts.
import { ServiceError } from '../domain/errors.js';

export class PayloadTooLargeError extends ServiceError {
  constructor(readonly limitBytes: number) {
    super('payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes.`);
  }
}

export class UnsupportedContentTypeError extends ServiceError {
  constructor(received: string, accepted: string) {
    super('unsupported_media_type', `Unsupported Content-Type '${received}'. This operation accepts ${accepted}.`);
  }
}

export class UnsupportedContentEncodingError extends ServiceError {
  constructor(received: string, accepted: string) {
    super('unsupported_media_type', `Unsupported Content-Encoding '${received}'. This operation accepts ${accepted}.`);
  }
}

/** The request body paused longer than the service waits for it. */
export class RequestTimeoutError extends ServiceError {
  constructor(idleMs: number) {
    super('request_timeout', `The request body stopped arriving: no bytes came for ${idleMs / 1000} seconds. Send the whole body (the bytes its Content-Length declares, or every chunk to the last) without long pauses.`);
  }
}

/** The client went away while sending the body, or before its answer was complete: nothing failed on our side. */
export class ClientClosedError extends ServiceError {
  constructor(message = 'The client closed the connection before the request body was complete.') {
    super('client_closed_request', message);
  }
}

export class MethodNotAllowedError extends ServiceError {
  constructor(message: string, allow: string[]) {
    super('method_not_allowed', message, { allow });
  }
}
