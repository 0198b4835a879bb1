import { describe, expect, test } from '@jest/globals';
import { MAX_JSON_DEPTH, parseJsonText } from '../../src/http/json-text.js';

describe('parseJsonText', () => {
  test('reads ordinary JSON as JSON.parse does', () => {
    const text = JSON.stringify({ query: 'ප්‍රභාසංශ්ලේෂණය "quoted" {not a brace}', filters: { subject: 'Science' }, attachments: [{ url: 'https://a.lk/x' }] });
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });

  test('nesting up to the limit is read; one level more is refused before parsing', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJsonText(nested(MAX_JSON_DEPTH + 1))).toThrow(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
    // unbalanced and enormous: refused as soon as the limit is passed, not parsed
    expect(() => parseJsonText(`{"query":"x","filters":${'['.repeat(100_000)}`)).toThrow(/nested more than/);
  });

  test('brackets inside strings and escaped quotes do not count as nesting', () => {
    const text = JSON.stringify({ query: '['.repeat(100) + '\\"{'.repeat(100) });
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });

  test('a key named twice in one object is refused, naming the key and the object', () => {
    expect(() => parseJsonText('{"query":"a","query":"b"}')).toThrow("The request body names the key 'query' twice in the top-level object: each key may appear once.");
    expect(() => parseJsonText('{"query":"a","filters":{"grade":"10","grade":"11"}}')).toThrow("names the key 'grade' twice in 'filters'");
    // the same key spelt with an escape is the same key
    expect(() => parseJsonText('{"query":"a","\\u0071uery":"b"}')).toThrow("names the key 'query' twice");
  });

  test('the same key in different objects, or as a string value, is fine', () => {
    expect(parseJsonText('{"a":{"k":1},"b":{"k":2},"c":["k","k"],"k":"k"}')).toEqual({ a: { k: 1 }, b: { k: 2 }, c: ['k', 'k'], k: 'k' });
    expect(parseJsonText('[{"k":1},{"k":2}]')).toEqual([{ k: 1 }, { k: 2 }]);
  });

  test('text that is not JSON gets the caller’s message', () => {
    expect(() => parseJsonText('{"query":')).toThrow('The request body is not valid JSON.');
    expect(() => parseJsonText('subject=Science', "Part 'filters'", "Part 'filters' must be a JSON object.")).toThrow("Part 'filters' must be a JSON object.");
  });
});

test('a repeated key inside an array element names the array', () => {
  expect(() => parseJsonText('{"query":"q","attachments":[{"url":"a","url":"b"}]}')).toThrow("names the key 'url' twice in 'attachments[]'");
});
