import coBody from 'co-body';
import type { Context } from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import { whileBodyArrives } from './body-pauses.js';
import { ClientClosedError, PayloadTooLargeError, RequestTimeoutError, UnsupportedContentEncodingError, UnsupportedContentTypeError } from './http-errors.js';
import { parserRefusal } from './server.js';

interface BodyFramingError {
  status?: number;
  type?: string;
  code?: string;
}

const UTF8 = new Set(['utf-8', 'utf8']);
/** The Content-Encodings the contract names for text bodies (co-body would also decode br). */
const TEXT_ENCODINGS = ['identity', 'gzip', 'deflate'];

/**
 * Refuses a body whose Content-Encoding is not one of `accepted` (no header is identity) with
 * 415, naming the header; `described` says in words what is accepted.
 */
export function checkContentEncoding(ctx: Context, accepted: readonly string[], described: string): void {
  const given = ctx.get('Content-Encoding');
  // content codings are case-insensitive (RFC 9110 8.4.1); the decoder knows them in lower case only
  const encoding = given.trim().toLowerCase();
  if (encoding !== '' && !accepted.includes(encoding)) throw new UnsupportedContentEncodingError(given, described);
  if (encoding !== given) ctx.req.headers['content-encoding'] = encoding;
}

/**
 * Reads a text body (JSON, a form) within `limit` bytes as UTF-8: another declared charset is
 * 415, bytes that are not UTF-8 are 400, never silently replaced. `kind` names the media type in
 * the messages.
 */
export async function readBodyText(ctx: Context, limit: number, kind: string): Promise<string> {
  const charset = ctx.request.charset;
  if (charset && !UTF8.has(charset.toLowerCase())) {
    throw new UnsupportedContentTypeError(ctx.get('Content-Type'), `${kind} in UTF-8 (charset=utf-8 or no charset)`);
  }
  checkContentEncoding(ctx, TEXT_ENCODINGS, 'identity, gzip or deflate');
  let bytes: unknown;
  try {
    // the raw bytes (after Content-Encoding), decoded below so that invalid UTF-8 is refused: co-body
    // hands `encoding` to raw-body, which returns a Buffer when it is falsy (its types only allow strings)
    bytes = await whileBodyArrives(ctx.req, coBody.text(ctx.req, { limit, encoding: false as unknown as string }));
    if (!Buffer.isBuffer(bytes)) throw new Error('co-body returned text instead of the raw body');
  } catch (error) {
    if (error instanceof RequestTimeoutError) throw error;
    const framing = error as BodyFramingError;
    // the HTTP parser found the body's framing broken (a chunk size that is no number, more bytes
    // than Content-Length) and has answered 400 itself: recorded as that 400, not as a client gone
    const refused = parserRefusal(ctx.req.socket);
    if (refused) throw refused;
    // closed mid-body, or after the whole body but before it was read (the request is destroyed
    // with its bytes, so it reads as not readable)
    if (framing.type === 'request.aborted' || (framing.type === 'stream.not.readable' && ctx.req.destroyed)) throw new ClientClosedError();
    if (framing.status === 413) throw new PayloadTooLargeError(limit);
    // zlib refusing a body that is not what its Content-Encoding says
    if (framing.code?.startsWith('Z_')) {
      throw new InvalidRequestError(`The request body could not be decompressed as ${ctx.get('Content-Encoding')}.`);
    }
    // the body's declared length did not match what arrived, and the like
    if (framing.status === 400) throw new InvalidRequestError(`The request body could not be read: ${(error as Error).message}.`);
    throw error;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw notUtf8('The request body', kind);
  }
}

/** The 400 for text that is not UTF-8: `what` names the text (the body, a part), `kind` what to send. */
export function notUtf8(what: string, kind: string): InvalidRequestError {
  return new InvalidRequestError(`${what} is not valid UTF-8 text: send ${kind} encoded as UTF-8.`);
}
