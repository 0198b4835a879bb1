// Failures that only exist at the HTTP boundary (body framing), mapped by error-mapper.ts.

export class PayloadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`Request body is larger than the limit of ${limitBytes} bytes.`);
  }
}

export class UnsupportedContentTypeError extends Error {
  constructor(received: string, accepted: string) {
    super(`Unsupported Content-Type '${received}'. This operation accepts ${accepted}.`);
  }
}

/** An unknown path or method: answered in the {detail} shape. */
export class RouteError extends Error {
  constructor(
    readonly status: 404 | 405,
    message: string,
    readonly allow: string[] = [],
  ) {
    super(message);
  }
}
