import coBody from 'co-body';
import type { Context } from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import type { MediaTypeSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { PayloadTooLargeError, UnsupportedContentTypeError } from './http-errors.js';

interface BodyFramingError {
  status?: number;
  type?: string;
  code?: string;
}

/** Reads a JSON body within the contract's size limit and checks it against the operation's schema. */
export async function readJsonBody(ctx: Context, operationId: string, media: MediaTypeSpec): Promise<unknown> {
  const limit = media['x-max-body-bytes'];
  let body: unknown;
  try {
    body = await coBody.json(ctx.req, { limit, strict: true });
  } catch (error) {
    const framing = error as BodyFramingError;
    if (framing.status === 413) throw new PayloadTooLargeError(limit);
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
