import coBody from 'co-body';
import type { Context } from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import type { MediaTypeSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { ClientClosedError, PayloadTooLargeError, UnsupportedContentTypeError } from './http-errors.js';
import { parseJsonText } from './json-text.js';

interface BodyFramingError {
  status?: number;
  type?: string;
  code?: string;
}

const UTF8 = new Set(['utf-8', 'utf8']);

/**
 * Reads a JSON body within the contract's size limit and checks it against the operation's
 * schema. The body must be UTF-8 (RFC 8259): another declared charset is 415, bytes that are not
 * UTF-8 are 400, never silently replaced.
 */
export async function readJsonBody(ctx: Context, operationId: string, media: MediaTypeSpec): Promise<unknown> {
  const charset = ctx.request.charset;
  if (charset && !UTF8.has(charset.toLowerCase())) {
    throw new UnsupportedContentTypeError(ctx.get('Content-Type'), 'application/json in UTF-8 (charset=utf-8 or no charset)');
  }
  const limit = media['x-max-body-bytes'];
  let bytes: unknown;
  try {
    // the raw bytes (after Content-Encoding), decoded below so that invalid UTF-8 is refused: co-body
    // hands `encoding` to raw-body, which returns a Buffer when it is falsy (its types only allow strings)
    bytes = await coBody.text(ctx.req, { limit, encoding: false as unknown as string });
    if (!Buffer.isBuffer(bytes)) throw new Error('co-body returned text instead of the raw body');
  } catch (error) {
    const framing = error as BodyFramingError;
    if (framing.type === 'request.aborted') throw new ClientClosedError();
    if (framing.status === 413) throw new PayloadTooLargeError(limit);
    if (framing.type === 'encoding.unsupported' || framing.status === 415) {
      throw new UnsupportedContentTypeError(ctx.get('Content-Encoding') || ctx.get('Content-Type'), 'application/json (identity, gzip or deflate encoded)');
    }
    // zlib (Z_*) and brotli (ERR__*) refusing a body that is not what its Content-Encoding says
    if (framing.code?.startsWith('Z_') || framing.code?.startsWith('ERR__')) {
      throw new InvalidRequestError(`The request body could not be decompressed as ${ctx.get('Content-Encoding')}.`);
    }
    // the body's declared length did not match what arrived, and the like
    if (framing.status === 400) throw new InvalidRequestError(`The request body could not be read: ${(error as Error).message}.`);
    throw error;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidRequestError('The request body is not valid UTF-8 text: send JSON encoded as UTF-8.');
  }
  const body = parseJsonText(text);
  checkWellFormed(body);
  return validated(operationId, body);
}
