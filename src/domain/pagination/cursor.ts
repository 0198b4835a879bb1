import { InvalidRequestError } from '../errors.js';

// Keyset pagination for lists ordered by (created_at, id): a cursor names the last row of a page,
// as base64url of its creation time and id, and the next page starts after it.

export interface Position {
  createdAt: Date;
  id: string;
}

/** The cursor of the page after `last`. */
export function encodeCursor(last: Position): string {
  return Buffer.from(`${last.createdAt.toISOString()}|${last.id}`).toString('base64url');
}

// the form encodeCursor writes: a four-digit year, so the time is one the database can compare
// (year 0000 is not one: PostgreSQL's calendar goes from 1 BC to AD 1)
const ISO_TIME = /^(?!0000)\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ROW_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The position a cursor names; 400 for anything this service did not give (`isId` checks the id's form). */
export function decodeCursor(cursor: string, isId: (id: string) => boolean = (id) => ROW_ID.test(id)): Position {
  const [at = '', id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at);
  if (!id || rest.length > 0 || !isId(id) || !ISO_TIME.test(at) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) {
    throw new InvalidRequestError("Parameter 'cursor' is not a cursor this operation gave: pass the next_cursor of the previous page.", [{ path: '/cursor', message: 'unknown cursor' }]);
  }
  return { createdAt, id };
}
