import busboy from 'busboy';
import type { Context } from 'koa';
import type { components } from '../generated/api-types.js';
import type { UploadedQuery } from '../handlers/types.js';
import { InvalidRequestError } from '../domain/errors.js';
import { PayloadTooLargeError, UnsupportedContentTypeError } from './http-errors.js';
import { checkWellFormed, validated } from './request-body.js';

type Filters = components['schemas']['Filters'];

/** Five files of 10 MiB plus the text parts and multipart framing. */
export const MULTIPART_LIMIT_BYTES = 54_525_952;
export const MAX_FILE_BYTES = 10_485_760;
export const MAX_FILES = 5;
const TEXT_PARTS = ['query', 'store_id', 'filters', 'model'] as const;

class TooLarge extends Error {}

/**
 * Parses a multipart query in memory (uploads are never written to disk), bounding the body
 * before it is read in full: a declared length over the limit is refused unread, and a body that
 * grows past it is cut off. Every file's size is counted to the end, so an oversized file is
 * reported with its real size without being kept.
 */
export async function readMultipartQuery(ctx: Context): Promise<UploadedQuery> {
  if (!ctx.is('multipart/form-data')) {
    throw new UnsupportedContentTypeError(ctx.get('Content-Type') || '(none)', 'multipart/form-data');
  }
  if (Number(ctx.get('Content-Length') || 0) > MULTIPART_LIMIT_BYTES) throw new PayloadTooLargeError(MULTIPART_LIMIT_BYTES);

  const fields: Record<string, string> = {};
  const problems: string[] = [];
  const files: { name: string; type: string; chunks: Buffer[]; size: number }[] = [];

  await new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: 10_000, fields: 20, parts: 50 }, defParamCharset: 'utf8' });
    } catch (error) {
      reject(new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}.`));
      return;
    }
    const malformed = (error: Error) => reject(new InvalidRequestError(`The multipart body is malformed: ${error.message}.`));
    // a client that goes away mid-upload must not leave the request hanging
    ctx.req.on('aborted', () => reject(new InvalidRequestError('The upload was interrupted before the multipart body ended.')));
    let received = 0;
    ctx.req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > MULTIPART_LIMIT_BYTES) {
        ctx.req.unpipe(parser);
        ctx.req.resume();
        reject(new TooLarge());
      }
    });
    parser.on('field', (name, value) => {
      if (!(TEXT_PARTS as readonly string[]).includes(name)) problems.push(`Unknown part '${name}': the parts are query, store_id, filters, model and files.`);
      else if (name in fields) problems.push(`Part '${name}' was sent more than once.`);
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // a body that ends inside a file part fails on the part's stream: unhandled, it would crash the process
      stream.on('error', malformed);
      if (name !== 'files') {
        problems.push(`Unexpected file in part '${name}': upload files in parts named 'files'.`);
        stream.resume();
        return;
      }
      const file = { name: info.filename || `file-${files.length + 1}`, type: info.mimeType, chunks: [] as Buffer[], size: 0 };
      files.push(file);
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
        // past the per-file maximum (or the file count) only the size is kept
        if (file.size <= MAX_FILE_BYTES && files.length <= MAX_FILES) file.chunks.push(chunk);
      });
    });
    parser.on('fieldsLimit', () => problems.push('Too many parts in the multipart body.'));
    parser.on('partsLimit', () => problems.push('Too many parts in the multipart body.'));
    parser.on('error', malformed);
    parser.on('close', () => resolve());
    ctx.req.pipe(parser);
  }).catch((error: unknown) => {
    throw error instanceof TooLarge ? new PayloadTooLargeError(MULTIPART_LIMIT_BYTES) : error;
  });

  if (problems.length > 0) throw new InvalidRequestError(problems[0]!);
  if (files.length > MAX_FILES) throw new InvalidRequestError(`Too many attachments: ${files.length} were sent, at most ${MAX_FILES} are allowed.`);
  const oversized = files.find((f) => f.size > MAX_FILE_BYTES);
  if (oversized) throw new InvalidRequestError(`File '${oversized.name}' is ${oversized.size} bytes, larger than the maximum of ${MAX_FILE_BYTES} bytes.`);

  // the filters part holds JSON; the parts are then checked against the contract (files stand
  // in as placeholders: their rules are checked above)
  const { filters: filtersText, ...textParts } = fields;
  let filters: unknown;
  if (filtersText !== undefined) {
    try {
      filters = JSON.parse(filtersText);
    } catch {
      throw new InvalidRequestError('Part \'filters\' must be a JSON object, for example {"subject":"Science","grade":"10"}.');
    }
  }
  const parts = { ...textParts, ...(filters === undefined ? {} : { filters }) };
  checkWellFormed(parts);
  validated('queryMultipart', { ...parts, files: files.map(() => '') });
  return {
    query: fields.query!,
    store_id: fields.store_id,
    filters: filters as Filters | undefined,
    model: fields.model as UploadedQuery['model'],
    files: files.map((f) => ({ name: f.name, bytes: new Uint8Array(Buffer.concat(f.chunks)), hints: { name: f.name, contentType: f.type } })),
  };
}
