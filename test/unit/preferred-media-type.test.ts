import { describe, expect, test } from '@jest/globals';
import { prefers } from '../../src/http/preferred-media-type.js';

const STREAM = 'text/event-stream';
const JSON_TYPE = 'application/json';
// as the API offers them: as it sends them
const SENT_STREAM = `${STREAM}; charset=utf-8`;
const SENT_JSON = `${JSON_TYPE}; charset=utf-8`;

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
  ])('Accept %p: %p', (accept, stream) => {
    expect(prefers(accept, SENT_STREAM, SENT_JSON)).toBe(stream);
  });
});
