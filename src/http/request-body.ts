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
    throw error;
  }
  return validated(operationId, body);
}

/** Checks a value against a generated validator ("<operationId>" for bodies, or a schema name). */
export function validated<T>(key: string, value: T): T {
  const validate = (validators as unknown as Record<string, ValidateFunction | undefined>)[key];
  if (!validate) throw new Error(`no generated validator named ${key}`);
  if (!validate(value)) throw invalidRequest(validate.errors ?? [], value);
  return value;
}
