import { describe, expect, test } from '@jest/globals';
import { decodeCursor, encodeCursor } from '../../src/domain/pagination/cursor.js';
import { InvalidRequestError } from '../../src/domain/errors.js';
import { isUuid } from '../../src/domain/uuid.js';

const cursorOf = (text: string) => Buffer.from(text).toString('base64url');

describe('decodeCursor', () => {
  test('gives back the position encodeCursor wrote', () => {
    const position = { createdAt: new Date('2026-11-26T13:45:53.408Z'), id: 'doc_Abc123' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    const delivery = { createdAt: new Date('2026-01-02T03:04:05.006Z'), id: '0b7e4a4e-3c1d-4f43-9d7e-1f2a3b4c5d6e' };
    expect(decodeCursor(encodeCursor(delivery), isUuid)).toEqual(delivery);
  });

  test.each([
    ['a NUL byte in the id', '2026-11-26T13:45:53.408Z|doc_a\u0000b'],
    ['a year before the database can store', '-200000-01-01T00:00:00.000Z|doc_x'],
    ['a year after it', '+275760-09-13T00:00:00.000Z|doc_x'],
    ['the year 0, which the database has not', '0000-01-01T00:00:00.000Z|doc_x'],
    ['a time in another form', '2026-11-26 13:45:53|doc_x'],
    ['a date that does not exist', '2026-02-30T00:00:00.000Z|doc_x'],
    ['a third part', '2026-11-26T13:45:53.408Z|doc_x|more'],
    ['no id', '2026-11-26T13:45:53.408Z|'],
    ['no separator', 'doc_x'],
  ])('refuses %s with 400, never reaching the database', (_, text) => {
    expect(() => decodeCursor(cursorOf(text))).toThrow(InvalidRequestError);
  });

  test('refuses an id of the wrong form for the list', () => {
    expect(() => decodeCursor(cursorOf('2026-11-26T13:45:53.408Z|doc_x'), isUuid)).toThrow(InvalidRequestError);
  });
});
