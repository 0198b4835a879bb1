import type { ValidateFunction } from 'ajv';
import * as validators from '../generated/request-validators.js';
import { InvalidRequestError } from '../domain/errors.js';
import { invalidRequest } from './validation-message.js';

/**
 * Refuses strings with unpaired UTF-16 surrogates (JSON allows the escapes, but no text holds
 * them and the search index rejects them) or NUL characters (U+0000: PostgreSQL's text cannot
 * hold one, and no field has a use for it), naming the field.
 */
export function checkWellFormed(value: unknown, path = ''): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new InvalidRequestError(`Field '${path || 'body'}' contains an unpaired surrogate, which is not valid Unicode text.`);
    if (value.includes('\u0000')) throw new InvalidRequestError(`Field '${path || 'body'}' contains a NUL character (U+0000), which no text field accepts.`);
  } else if (value && typeof value === 'object') {
    // written as the schema's messages write fields: attachments.0.url
    for (const [key, item] of Object.entries(value)) checkWellFormed(item, path ? `${path}.${key}` : key);
  }
}

/** Checks a request body against the generated validator of its operation. */
export function validated<T>(operationId: string, value: T): T {
  const validate = (validators as unknown as Record<string, ValidateFunction | undefined>)[operationId];
  if (!validate) throw new Error(`no generated validator for ${operationId}`);
  if (!validate(value)) throw invalidRequest(validate.errors ?? [], value);
  return value;
}
