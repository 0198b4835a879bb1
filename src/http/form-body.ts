import type { Context } from 'koa';
import { InvalidRequestError } from '../domain/errors.js';
import type { MediaTypeSpec } from './body-readers.js';
import { checkWellFormed, validated } from './body-checks.js';
import { readBodyText } from './body-text.js';
import { pointerToken, shown } from './json-pointer.js';

/** A URL-encoded form's fields; a field given twice is refused (a parser would keep one silently). */
export function formFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(fields, name)) throw new InvalidRequestError(`Field '${shown(name)}' is given twice: send each field once.`, [{ path: shown(`/${pointerToken(name)}`), message: 'given twice' }]);
    fields[name] = value;
  }
  return fields;
}

/**
 * Reads an application/x-www-form-urlencoded body within the contract's size limit: each field
 * once, as text, checked against the operation's schema. The raw text is kept on
 * `ctx.state.rawBody` for operations that store what they received.
 */
export async function readFormBody(ctx: Context, operationId: string, media: MediaTypeSpec): Promise<unknown> {
  const text = await readBodyText(ctx, media['x-max-body-bytes'], 'a URL-encoded form');
  const fields = formFields(text);
  checkWellFormed(fields);
  ctx.state.rawBody = text;
  return validated(operationId, fields);
}
