import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a row keyed by a uuid at all (anything else is simply not found, never a database error). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/** The same UUID for the same `name` every time (a SHA-256 of it, shaped as a version 4 UUID, as pg-boss's job ids want). */
export function uuidOfName(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
