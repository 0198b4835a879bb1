import coBody from 'co-body';
import type { Context } from 'koa';
import type { ValidateFunction } from 'ajv';
import * as validators from '../generated/request-validators.js';
import { InvalidRequestError } from '../domain/errors.js';
import { PayloadTooLargeError, UnsupportedContentTypeError } from './http-errors.js';
import { invalidRequest } from './validation-message.js';

/** Largest JSON body accepted; a question plus five attachment URLs fits many times over. */
export const JSON_LIMIT_BYTES = 1_048_576;

interface BodyFramingError {
  status?: number;
  type?: string;
  code?: string;
}

/**
 * Reads and validates the body of an operation that has one, after the request was
 * authenticated and admitted (so a bad body still counts, and an anonymous client cannot make
 * the server parse anything).
 */
export async function readJsonBody(ctx: Context, operationId: string): Promise<unknown> {
  if (!ctx.is('application/json')) {
    throw new UnsupportedContentTypeError(ctx.get('Content-Type') || '(none)', 'application/json');
  }
  let body: unknown;
  try {
    body = await coBody.json(ctx.req, { limit: JSON_LIMIT_BYTES, strict: true });
  } catch (error) {
    const framing = error as BodyFramingError;
    if (framing.status === 413) throw new PayloadTooLargeError(JSON_LIMIT_BYTES);
    if (framing.type === 'encoding.unsupported' || framing.status === 415) {
      throw new UnsupportedContentTypeError(ctx.get('Content-Encoding') || ctx.get('Content-Type'), 'application/json (identity, gzip or deflate encoded)');
    }
    if (framing.status === 400) throw new InvalidRequestError('The request body is not valid JSON.');
    // zlib (Z_*) and brotli (ERR__*) refusing a body that is not what its Content-Encoding says
    if (framing.code?.startsWith('Z_') || framing.code?.startsWith('ERR__')) {
      throw new InvalidRequestError(`The request body could not be decompressed as ${ctx.get('Content-Encoding')}.`);
    }
    throw error;
  }
  checkWellFormed(body);
  return validated(operationId, body);
}

/**
 * Refuses strings with unpaired UTF-16 surrogates (JSON allows the escapes, but no text holds
 * them and the search index rejects them), naming the field.
 */
export function checkWellFormed(value: unknown, path = ''): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new InvalidRequestError(`Field '${path || 'body'}' contains an unpaired surrogate, which is not valid Unicode text.`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => checkWellFormed(item, `${path}[${i}]`));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) checkWellFormed(item, path ? `${path}.${key}` : key);
  }
}

/** Checks a value against a generated validator ("<operationId>" for bodies, or a schema name). */
export function validated<T>(key: string, value: T): T {
  const validate = (validators as unknown as Record<string, ValidateFunction | undefined>)[key];
  if (!validate) throw new Error(`no generated validator named ${key}`);
  if (!validate(value)) throw invalidRequest(validate.errors ?? [], value);
  return value;
}
