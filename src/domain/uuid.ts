const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a row keyed by a uuid at all (anything else is simply not found, never a database error). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
