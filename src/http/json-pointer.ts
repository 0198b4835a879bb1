/** A JSON Pointer (RFC 6901) token for a field name: `~` and `/` are escaped as `~0` and `~1`. */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** How much of a field's path or name an answer shows: a caller's key may be a megabyte long. */
const SHOWN = 200;

/** A path or name as answers show it, cut (with '…') past SHOWN characters, never inside a surrogate pair. */
export function shown(path: string): string {
  return path.length <= SHOWN ? path : `${path.slice(0, SHOWN).replace(/[\uD800-\uDBFF]$/, '')}…`;
}
