/** A JSON Pointer (RFC 6901) token for a field name: `~` and `/` are escaped as `~0` and `~1`. */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
