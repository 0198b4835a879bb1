import type { ErrorObject } from 'ajv';
import leven from 'leven';
import { InvalidRequestError, type FieldProblem } from '../domain/errors.js';
import { pointerToken, shown } from './json-pointer.js';

/**
 * Turns Ajv's errors into one sentence naming the field and the rule, plus the full list.
 * `parameters`: the values are an operation's parameters, where a list is a name given more than once.
 */
export function invalidRequest(errors: ErrorObject[], body: unknown, { parameters = false } = {}): InvalidRequestError {
  const problems = errors.filter((e) => e.keyword !== 'if').map((e) => ({ path: pointer(e), message: describe(e, body, parameters) }));
  const first: FieldProblem = problems[0] ?? { path: '', message: 'The request body is invalid.' };
  return new InvalidRequestError(first.message, problems);
}

// the contract's patterns in words: a regular expression is no rule a person can act on
const PATTERN_RULES: Record<string, string> = {
  [String.raw`\S`]: 'must contain at least one non-whitespace character',
  [String.raw`^[^\x00-\x1F\x7F-\x9F]+$`]: 'must not contain control characters',
  [String.raw`^[^\x00-\x1F\x7F-\x9F\s]([^\x00-\x1F\x7F-\x9F]*[^\x00-\x1F\x7F-\x9F\s])?$`]: 'must not contain control characters, nor start or end with a space',
  [String.raw`^[A-Za-z0-9_-]{1,64}$`]: 'must be 1 to 64 letters, digits, underscores or hyphens',
  [String.raw`^[A-Za-z0-9_-]+$`]: 'must contain only letters, digits, underscores or hyphens',
  [String.raw`^[\x21-\x7E]{1,255}$`]: 'must be 1 to 255 printable ASCII characters, without spaces',
  [String.raw`^[^@\s]{1,64}@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z0-9-]{2,63}$`]: 'must be an email address, like name@example.com',
};

function pointer(e: ErrorObject): string {
  // Ajv's instancePath is a pointer already; the property names it adds for these two are not
  const extra = e.keyword === 'additionalProperties' ? `/${pointerToken((e.params as { additionalProperty: string }).additionalProperty)}`
    : e.keyword === 'required' ? `/${pointerToken((e.params as { missingProperty: string }).missingProperty)}` : '';
  return shown(e.instancePath + extra);
}

function fieldName(path: string): string {
  return path.replace(/^\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
}

function describe(e: ErrorObject, body: unknown, parameters: boolean): string {
  const field = fieldName(shown(e.instancePath));
  const name = `Field '${field}'`;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const typo = typoOf(e, body);
      return `Field '${fieldName(pointer(e))}' is required${typo === undefined ? '' : ` (the ${parameters ? 'request' : 'body'} has '${shown(typo)}': is it a typo of it?)`}.`;
    }
    case 'additionalProperties':
      return `Unknown field '${fieldName(pointer(e))}': it is not part of this request${field ? ` object '${field}'` : ''}.`;
    case 'type': {
      // a query parameter given twice arrives as a list; in a body, a list is only the wrong type
      const twice = parameters && Array.isArray(lookup(body, e.instancePath)) && p.type !== 'array' ? ` (it was given more than once: give it once)` : '';
      return field ? `${name} must be of type ${String(p.type)}${twice}.` : `The request body must be a JSON ${String(p.type)}.`;
    }
    case 'enum':
      return `${name} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}.`;
    case 'minLength':
      return Number(p.limit) === 1 ? `${name} must not be empty.` : `${name} must be at least ${String(p.limit)} characters long.`;
    case 'maxLength':
      return `${name} must be at most ${String(p.limit)} characters long.`;
    case 'maxItems': {
      const sent = lookup(body, e.instancePath);
      const count = Array.isArray(sent) ? sent.length : '?';
      return field === 'attachments' || field === 'files'
        ? `Too many attachments: ${count} were sent, at most ${String(p.limit)} are allowed.`
        : `${name} must have at most ${String(p.limit)} items (${count} were sent).`;
    }
    case 'pattern':
      return `${name} ${PATTERN_RULES[String(p.pattern)] ?? 'has an invalid format'}.`;
    case 'format': {
      const sent = lookup(body, e.instancePath);
      // an internationalised address (a Sinhala or Tamil host name, a path in any script) is valid in a browser's address bar, not as a URI
      if (p.format === 'uri' && typeof sent === 'string' && /[\u0080-\u{10FFFF}]/u.test(sent)) {
        return `${name} must be a valid uri, which is written in ASCII: give a host name in its ASCII form (xn--...) and percent-encode other characters (new URL(url).href does both).`;
      }
      return `${name} must be a valid ${String(p.format)}.`;
    }
    case 'minProperties':
      return `${field ? `${name}` : 'The request body'} must name at least ${String(p.limit)} field${Number(p.limit) === 1 ? '' : 's'} to change.`;
    case 'uniqueItems':
      return `${name} lists the same value twice (items ${String(p.j)} and ${String(p.i)}): list each once.`;
    default:
      return `${name || 'The request body'} ${e.message ?? 'is invalid'}.`;
  }
}

/**
 * A name beside a missing field that is one or two edits from it ('qurey' for 'query'): the
 * validator stops at the first problem, so the unknown name would not be told otherwise.
 */
function typoOf(e: ErrorObject, body: unknown): string | undefined {
  const missing = (e.params as { missingProperty: string }).missingProperty;
  const object = lookup(body, e.instancePath);
  if (!object || typeof object !== 'object' || Array.isArray(object)) return undefined;
  return Object.keys(object).find((name) => name !== missing && Math.abs(name.length - missing.length) <= 2 && leven(name, missing) <= 2);
}

function lookup(body: unknown, path: string): unknown {
  return fieldName(path).split('.').filter(Boolean).reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), body);
}
