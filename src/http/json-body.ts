import type { Context } from 'koa';
import type { MediaTypeSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { readBodyText } from './body-text.js';
import { parseJsonText } from './json-text.js';

/** Reads a JSON body within the contract's size limit and checks it against the operation's schema (RFC 8259: UTF-8). */
export async function readJsonBody(ctx: Context, operationId: string, media: MediaTypeSpec): Promise<unknown> {
  const text = await readBodyText(ctx, media['x-max-body-bytes'], 'JSON');
  const body = parseJsonText(text);
  checkWellFormed(body);
  return validated(operationId, body);
}
