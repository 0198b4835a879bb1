import { InvalidRequestError } from '../domain/errors.js';

/** Deeper than any request of the contract needs; deep nesting only costs time and stack. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Parses JSON text strictly: nesting deeper than MAX_JSON_DEPTH and an object naming the same
 * key twice are refused (JSON.parse would keep the last value silently), naming where. One
 * linear pass over the text comes first, so the native parser never sees deep nesting, and
 * neither check can be made to take more than linear time.
 */
export function parseJsonText(text: string, what = 'The request body', notJson = `${what} is not valid JSON.`): unknown {
  const duplicate = scan(text, what);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidRequestError(notJson);
  }
  if (duplicate) throw new InvalidRequestError(`${what} names the key '${duplicate.key}' twice in ${duplicate.at}: each key may appear once.`);
  return value;
}

interface Duplicate {
  key: string;
  at: string;
}

/** One pass: refuses deep nesting at once, and finds the first key repeated within an object. */
function scan(text: string, what: string): Duplicate | null {
  // per open container: the keys seen so far (objects) or null (arrays)
  const open: (Set<string> | null)[] = [];
  // where each open container sits, for the message: its key or index
  const names: string[] = [];
  let duplicate: Duplicate | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      for (i = start; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
      const keys = open.at(-1);
      if (keys && !duplicate && followedByColon(text, i + 1)) {
        const key = decodeKey(text.slice(start, i));
        if (keys.has(key)) duplicate = { key: key.slice(0, 100), at: where(names.slice(1, open.length)) };
        keys.add(key);
        names[open.length] = key.slice(0, 100);
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length >= MAX_JSON_DEPTH) throw new InvalidRequestError(`${what} is nested more than ${MAX_JSON_DEPTH} levels deep.`);
      if (open.length > 0 && open.at(-1) === null) names[open.length] = '[]';
      open.push(c === OPEN_OBJECT ? new Set() : null);
      names.length = open.length;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    }
  }
  return duplicate;
}

/** The object's place, as keys and array steps: 'filters', 'attachments[]'. */
function where(path: string[]): string {
  return path.length === 0 ? 'the top-level object' : `'${path.join('.').replaceAll('.[]', '[]')}'`;
}

function followedByColon(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === COLON;
}

/** A key as JSON.parse reads it ("a" and "\u0061" are the same key); raw when malformed (the parse then fails). */
function decodeKey(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}
