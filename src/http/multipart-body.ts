import busboy from 'busboy';
import type { Context } from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import type { UploadedFile } from '../domain/uploaded-file.js';
import type { MediaTypeSpec, SchemaSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { ClientClosedError, PayloadTooLargeError } from './http-errors.js';
import { parserRefusal } from './server.js';
import { whileBodyArrives } from './body-pauses.js';
import { checkContentEncoding, notUtf8 } from './body-text.js';
import { parseJsonText } from './json-text.js';

/** How the contract says each part is read: file parts (format: binary), JSON parts (encoding), text. */
interface PartRules {
  files: Map<string, { multiple: boolean; maxCount: number; maxBytes: number }>;
  json: Set<string>;
  text: Set<string>;
}

// the contract's media objects live as long as the service: their rules are derived once each
const RULES = new WeakMap<MediaTypeSpec, { rules: PartRules; partNames: string }>();

function partRules(media: MediaTypeSpec): { rules: PartRules; partNames: string } {
  const known = RULES.get(media);
  if (known) return known;
  const rules: PartRules = { files: new Map(), json: new Set(), text: new Set() };
  for (const [name, schema] of Object.entries(media.schema.properties ?? {})) {
    const encoding = media.encoding?.[name];
    const multiple = schema.type === 'array';
    if ((multiple ? schema.items : schema)?.format === 'binary') {
      rules.files.set(name, { multiple, maxCount: multiple ? (schema.maxItems ?? Infinity) : 1, maxBytes: encoding?.['x-max-bytes'] ?? media['x-max-body-bytes'] });
    } else if (encoding?.contentType === 'application/json') rules.json.add(name);
    else rules.text.add(name);
  }
  const derived = { rules, partNames: [...rules.text, ...rules.json, ...rules.files.keys()].join(', ') };
  RULES.set(media, derived);
  return derived;
}

class TooLarge extends Error {}

const CONTROL = /\p{Cc}/u;

/** The message for a part whose Content-Disposition has no name (busboy does not read the extended `name*`). */
function nameless(partNames: string): string {
  return `A part has no name: each part needs Content-Disposition: form-data; name="..." (the extended name* form is not read); the parts are ${partNames}.`;
}

interface Received {
  name: string;
  field: string;
  type: string;
  chunks: Buffer[];
  size: number;
}

/** The longest text part (a question of 2,000 characters is at most 8,000 bytes of UTF-8). */
const TEXT_PART_BYTES = 10_000;

/**
 * Parses a multipart body in memory (uploads are never written to disk), with the parts the
 * operation's contract declares, bounding the body before it is read in full: a declared length
 * over the limit is refused unread, and a body that grows past it is cut off. Every file's size
 * is counted to the end, so an oversized file is reported with its real size without being kept.
 * `check` validates the parts (files as placeholders): the operation's contract schema unless a
 * caller (the dashboard's upload form, whose parts are plain fields) maps them first.
 */
export async function readMultipartBody(
  ctx: Context,
  operationId: string,
  media: MediaTypeSpec,
  check: (parts: Record<string, unknown>) => void = (parts) => validated(operationId, parts),
): Promise<Record<string, unknown>> {
  // busboy reads the bytes as sent: a compressed body would only look malformed (and its files
  // are mostly compressed already)
  checkContentEncoding(ctx, ['identity'], 'identity only: send the body uncompressed');
  const limit = media['x-max-body-bytes'];
  if (Number(ctx.get('Content-Length') || 0) > limit) throw new PayloadTooLargeError(limit);
  const { rules, partNames } = partRules(media);

  const fields: Record<string, string> = {};
  const problems: string[] = [];
  const files: Received[] = [];

  const reading = new Promise<void>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: TEXT_PART_BYTES, fields: 20, parts: 50 }, defParamCharset: 'utf8' });
    } catch (error) {
      reject(new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}.`));
      return;
    }
    const malformed = (error: Error) => reject(new InvalidRequestError(`The multipart body is malformed: ${error.message}.`));
    // a client that goes away mid-upload must not leave the request hanging, nor one that went
    // away before the body was read (its 'aborted' has passed, and no byte will come)
    const gone = () => reject(parserRefusal(ctx.req.socket) ?? new ClientClosedError());
    if (ctx.req.destroyed) {
      gone();
      return;
    }
    ctx.req.on('aborted', gone);
    let received = 0;
    ctx.req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) {
        ctx.req.unpipe(parser);
        ctx.req.resume();
        reject(new TooLarge());
      }
    });
    parser.on('field', (name, value, info) => {
      if (!name) problems.push(nameless(partNames));
      else if (!rules.text.has(name) && !rules.json.has(name)) {
        problems.push(rules.files.has(name) ? `Part '${name}' must be a file part (with a file name).` : `Unknown part '${name}': the parts are ${partNames}.`);
      } else if (name in fields) problems.push(`Part '${name}' was sent more than once.`);
      // cut at the limit, it would be refused for what the cut made of it (JSON that is no object)
      else if (info.valueTruncated) problems.push(`Part '${name}' is longer than the ${TEXT_PART_BYTES} bytes a text part may have: shorten it.`);
      // busboy hands over nothing for a charset it cannot decode
      else if (typeof value !== 'string') problems.push(`Part '${name}' names a charset the service does not read: send it as UTF-8 (the default when a part names none).`);
      else fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      // a body that ends inside a file part fails on the part's stream: unhandled, it would crash the process
      stream.on('error', malformed);
      const rule = rules.files.get(name);
      if (!name) {
        problems.push(nameless(partNames));
        stream.resume();
        return;
      }
      if (!rule) {
        problems.push(`Unexpected file in part '${name}': upload files in parts named ${[...rules.files.keys()].join(', ')}.`);
        stream.resume();
        return;
      }
      const sameField = files.filter((f) => f.field === name).length;
      if (!rule.multiple && sameField > 0) problems.push(`Part '${name}' was sent more than once.`);
      // a file name is the document's name by default: never stored damaged
      if (info.filename?.includes('\uFFFD')) problems.push(notUtf8(`The file name of part '${name}'`, 'file names').message);
      else if (info.filename !== undefined && (CONTROL.test(info.filename) || !info.filename.isWellFormed())) {
        problems.push(`The file name of part '${name}' contains control characters or unpaired surrogates, which no file name holds: rename the file.`);
      }
      const file: Received = { name: info.filename || `file-${files.length + 1}`, field: name, type: info.mimeType, chunks: [], size: 0 };
      files.push(file);
      // past the per-file maximum (or the part count) only the size is kept
      const keep = sameField < rule.maxCount;
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
        if (keep && file.size <= rule.maxBytes) file.chunks.push(chunk);
      });
    });
    parser.on('fieldsLimit', () => problems.push('Too many parts in the multipart body.'));
    parser.on('partsLimit', () => problems.push('Too many parts in the multipart body.'));
    parser.on('error', malformed);
    parser.on('close', () => resolve());
    ctx.req.pipe(parser);
  });
  await whileBodyArrives(ctx.req, reading).catch((error: unknown) => {
    throw error instanceof TooLarge ? new PayloadTooLargeError(limit) : error;
  });

  if (problems.length > 0) throw new InvalidRequestError(problems[0]!);
  const parts: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    // busboy decodes a text part itself (as UTF-8 unless the part names another charset) and
    // replaces bytes that are not UTF-8 with U+FFFD, handing over neither the bytes nor the
    // charset: U+FFFD is their only trace, and text that holds one was damaged before it was sent
    if (value.includes('\uFFFD')) throw notUtf8(`Part '${name}'`, 'it');
    parts[name] = rules.json.has(name) ? jsonPart(name, value, media.schema.properties?.[name]) : value;
  }
  checkWellFormed(parts);
  // file parts stand in as placeholders for the schema check (their count included); sizes are checked below
  const placeholders: Record<string, unknown> = {};
  for (const [name, rule] of rules.files) {
    const count = files.filter((f) => f.field === name).length;
    if (rule.multiple) placeholders[name] = Array.from({ length: count }, () => '');
    else if (count > 0) placeholders[name] = '';
  }
  check({ ...parts, ...placeholders });
  for (const file of files) {
    const { maxBytes } = rules.files.get(file.field)!;
    if (file.size > maxBytes) throw new InvalidRequestError(`File '${file.name}' is ${file.size} bytes, larger than the maximum of ${maxBytes} bytes.`);
  }

  for (const [name, rule] of rules.files) {
    const uploaded: UploadedFile[] = files
      .filter((f) => f.field === name)
      .map((f) => ({ name: f.name, bytes: new Uint8Array(Buffer.concat(f.chunks)), contentType: f.type }));
    if (rule.multiple) parts[name] = uploaded;
    else if (uploaded[0]) parts[name] = uploaded[0];
  }
  return parts;
}

function jsonPart(name: string, text: string, schema: SchemaSpec | undefined): unknown {
  const example = schema?.examples?.[0];
  const kind = typeof schema?.type === 'string' ? ` ${schema.type}` : '';
  return parseJsonText(text, `Part '${name}'`, `Part '${name}' must be a JSON${kind}${example === undefined ? '' : `, for example ${JSON.stringify(example)}`}.`);
}
