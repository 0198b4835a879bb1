import { describe, expect, test } from '@jest/globals';
import { prefers } from '../../src/http/preferred-media-type.js';

const STREAM = 'text/event-stream';
const JSON_TYPE = 'application/json';


describe('prefers: the stream only when the Accept header ranks it above JSON', () => {
  test.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    [STREAM, true],
    [JSON_TYPE, false],
    // a tie in either order is JSON's
    [`${STREAM}, ${JSON_TYPE}`, false],
    [`${JSON_TYPE}, ${STREAM}`, false],
    [`${STREAM};q=0.9, ${JSON_TYPE};q=0.9`, false],
    [`${JSON_TYPE};q=0.5, ${STREAM}`, true],
    [`${STREAM}, ${JSON_TYPE};q=0.5`, true],
    [`${STREAM};q=0.5, ${JSON_TYPE}`, false],
    [`${STREAM};q=0, ${JSON_TYPE}`, false],
    // a range that names the type is more specific than a wildcard
    [`${STREAM}, */*`, true],
    [`text/*, ${JSON_TYPE}`, false],
    // a range may name the charset the stream is sent in, but not another
    [`${STREAM}; charset=utf-8`, true],
    [`${STREAM};charset="UTF-8"`, true],
    [`${STREAM}; charset=utf-8, ${JSON_TYPE}; charset=utf-8;q=0.5`, true],
    [`${STREAM}; charset=iso-8859-1`, false],
    [`${JSON_TYPE}; charset=utf-8`, false],
    // a charset makes a range no more specific: a tie is still JSON's
    [`${JSON_TYPE}, ${STREAM}; charset=utf-8`, false],
    [`${STREAM}; charset=utf-8, ${JSON_TYPE}`, false],
    [`${STREAM}; charset=utf-8;q=0.8, ${JSON_TYPE};q=0.8`, false],
    [`${STREAM}; charset=utf-8, ${JSON_TYPE};q=0.9`, true],
  ])('Accept %p: %p', (accept, stream) => {
    expect(prefers(accept, STREAM, JSON_TYPE)).toBe(stream);
  });
});
