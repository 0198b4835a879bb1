import type { Context } from 'koa';
import { UnsupportedContentTypeError } from './http-errors.js';
import { readFormBody } from './form-body.js';
import { readJsonBody } from './json-body.js';
import { readMultipartBody } from './multipart-body.js';

/** The part of a (dereferenced) JSON Schema the body readers look at. */
export interface SchemaSpec {
  type?: string | string[];
  format?: string;
  properties?: Record<string, SchemaSpec>;
  items?: SchemaSpec;
  maxItems?: number;
  examples?: unknown[];
}

/** A request media type as the contract describes it, with the service's size limits. */
export interface MediaTypeSpec {
  schema: SchemaSpec;
  encoding?: Record<string, { contentType?: string; 'x-max-bytes'?: number }>;
  /** largest body accepted, in bytes */
  'x-max-body-bytes': number;
}

export interface RequestBodySpec {
  operationId: string;
  content: Record<string, MediaTypeSpec>;
}

type Reader = (ctx: Context, operationId: string, media: MediaTypeSpec) => Promise<unknown>;

const READERS: Record<string, Reader> = {
  'application/json': readJsonBody,
  'multipart/form-data': readMultipartBody,
  'application/x-www-form-urlencoded': readFormBody,
};

/** Fails at start when the contract gives a body a media type without a reader or without its limit. */
export function checkBodySpec(body: RequestBodySpec): void {
  for (const [type, media] of Object.entries(body.content)) {
    if (!READERS[type]) throw new Error(`${body.operationId}: no body reader for ${type}`);
    if (!Number.isInteger(media['x-max-body-bytes'])) throw new Error(`${body.operationId}: ${type} lacks x-max-body-bytes in the contract`);
  }
}

/**
 * Reads and validates a request body with the reader of its media type, as the operation's
 * contract declares it. Called after the request was authenticated and admitted, so a bad body
 * still counts, and an anonymous client cannot make the server parse anything.
 */
export async function readBody(ctx: Context, body: RequestBodySpec): Promise<unknown> {
  const types = Object.keys(body.content);
  // ctx.is knows no type for a request without a body (neither Content-Length nor
  // Transfer-Encoding): its declared type is then matched by name, and the reader finds it empty
  const type = types.find((t) => ctx.is(t)) ?? types.find((t) => t === ctx.request.type.trim().toLowerCase());
  if (!type) throw new UnsupportedContentTypeError(ctx.get('Content-Type') || '(none)', types.join(' or '));
  return READERS[type]!(ctx, body.operationId, body.content[type]!);
}
