import { describe, expect, it } from '@jest/globals';
import { memoised } from '../../src/domain/answering/memo.js';
import { countTokens } from '../../src/domain/answering/cost.js';

describe('memoised', () => {
  it('computes each input once while it is remembered', () => {
    const calls: string[] = [];
    const length = memoised((text) => (calls.push(text), text.length), { size: 10, maxLength: 100 });
    expect([length('ab'), length('abc'), length('ab'), length('abc')]).toEqual([2, 3, 2, 3]);
    expect(calls).toEqual(['ab', 'abc']);
  });

  it('keeps at most `size` results: when full, all are dropped and computed again', () => {
    const calls: string[] = [];
    const upper = memoised((text) => (calls.push(text), text.toUpperCase()), { size: 2, maxLength: 100 });
    upper('a');
    upper('b');
    upper('c'); // full: a and b are dropped
    upper('a');
    upper('c'); // still remembered
    upper('b'); // full: c and a are dropped
    upper('c');
    expect(calls).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('never remembers inputs longer than maxLength', () => {
    const calls: string[] = [];
    const same = memoised((text) => (calls.push(text), text), { size: 10, maxLength: 3 });
    same('abcd');
    same('abcd');
    expect(calls).toEqual(['abcd', 'abcd']);
  });
});

describe('countTokens with remembered counts', () => {
  it('counts a text the same the first time and the next', () => {
    const texts = ['The cell is the basic unit of life.', 'සෛලය ජීවයේ මූලික ඒකකයයි.', 'x'.repeat(5_000)];
    const first = countTokens(texts);
    expect(countTokens(texts)).toEqual(first);
    expect(first.every((n) => n > 0)).toBe(true);
  });
});
