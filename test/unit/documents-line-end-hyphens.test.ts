import { describe, expect, test } from '@jest/globals';
import { joinSoftHyphens, settleLineEndHyphens } from '../../src/domain/documents/line-end-hyphens.js';

describe('settleLineEndHyphens', () => {
  test('keeps the hyphen of a compound, a number and a range that a line ended at, in both readings', () => {
    const placed = ['Winds from the northeast bring rain to 8bit counters in 19901995.'];
    const drawn = ['Winds from the north-\neast bring rain to 8-\nbit counters in 1990-\n1995.'];
    expect(settleLineEndHyphens(placed, drawn)).toEqual({
      placed: ['Winds from the north-east bring rain to 8-bit counters in 1990-1995.'],
      drawn: ['Winds from the north-east bring rain to 8-bit counters in 1990-1995.'],
    });
  });

  test('joins without the hyphen a word that the document also has whole, on any page', () => {
    const placed = ['Plants make food by photosynthesis.', 'In photosynthesis, light is used.'];
    const drawn = ['Plants make food by photo-\nsynthesis.', 'In photosynthesis, light is used.'];
    expect(settleLineEndHyphens(placed, drawn)).toEqual({ placed, drawn: placed });
  });

  test('counts each break: a word joined at two line ends and found nowhere else keeps its hyphen at both', () => {
    const placed = ['the northeast\nand the northeast'];
    const drawn = ['the north-\neast\nand the north-\neast'];
    expect(settleLineEndHyphens(placed, drawn).placed).toEqual(['the north-east\nand the north-east']);
  });

  test('leaves a dash after a space, a hyphen inside a line and text without line-end hyphens as they are', () => {
    const placed = ['a pause -\nthen more; a well-known word'];
    expect(settleLineEndHyphens(placed, placed)).toEqual({ placed, drawn: placed });
  });

  test("puts back the last dash of a run at a line's end (a blank to fill in) and the line break, which the reading order takes for a hyphen", () => {
    const drawn = ['1. The unit of force is ----------\n2. The largest planet is ----------\n--- PAGE 9 ---\nBelow the line'];
    const placed = ['1. The unit of force is ---------2. The largest planet is ----------\n--- PAGE 9 --Below the line'];
    expect(settleLineEndHyphens(placed, drawn).placed).toEqual(drawn);
    // not sure: the run less a dash meets the word more often than the run was drawn before it
    expect(settleLineEndHyphens(['is ---------2. and ---------2.'], ['is ----------\n2. and ---------2.']).placed).toEqual(['is ---------2. and ---------2.']);
  });

  test('puts back a dash alone at a line\'s end, which the reading order drops with the line break, where the page is sure', () => {
    const placed = ['ஒன்பது பிரிவுகள் உள்ளன பாட்னா, திருஹட்\nfrom 1823 9 October; x 10 20 y 10 20; a b c'];
    const drawn = ['ஒன்பது பிரிவுகள் உள்ளன -\nபாட்னா, திருஹட்\nfrom 1823 \u2013\n9 October; x 10 -\n20 y 10 -\n20; a -\nb -\nc'];
    expect(settleLineEndHyphens(placed, drawn).placed).toEqual(['ஒன்பது பிரிவுகள் உள்ளன -\nபாட்னா, திருஹட்\nfrom 1823 \u2013\n9 October; x 10 -\n20 y 10 -\n20; a -\nb -\nc']);
    // a dash the reading order kept, and words that only contain the pair, stay as they are
    expect(settleLineEndHyphens(['a pause -\nthen more'], ['a pause -\nthen more']).placed).toEqual(['a pause -\nthen more']);
    expect(settleLineEndHyphens(['xa bx a b'], ['a -\nb']).placed).toEqual(['xa bx a -\nb']);
    // not sure: the words meet more often than the dash was drawn between them, or met with it elsewhere
    expect(settleLineEndHyphens(['in 1823 9 ships; from 1823 9 October'], ['in 1823 9 ships; from 1823 -\n9 October']).placed).toEqual(['in 1823 9 ships; from 1823 9 October']);
    expect(settleLineEndHyphens(['a -\nb and a b'], ['a -\nb and a b']).placed).toEqual(['a -\nb and a b']);
  });

  test('a long run of letters or of other characters costs no backtracking', () => {
    const run = 'x'.repeat(200_000);
    const started = performance.now();
    expect(settleLineEndHyphens([`${run} ${run}-`], [`${run} ${run}-`]).placed).toEqual([`${run} ${run}-`]);
    // linear: about a millisecond; the unanchored patterns took minutes on this
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  test('changes only whole words of the reading order', () => {
    const placed = ['north-northeast, the northeasterly wind'];
    const drawn = ['north-northeast, the north-\neasterly wind'];
    expect(settleLineEndHyphens(placed, drawn).placed).toEqual(['north-northeast, the north-easterly wind']);
  });
});

describe('joinSoftHyphens', () => {
  test('joins a word broken at a soft hyphen shown at the line end, as Chromium writes it or as U+00AD', () => {
    expect(joinSoftHyphens('the temper\u00AD\u2010\natures of the low\u2010\nlands and is\u00AD \nland')).toBe('the temperatures of the lowlands and island');
  });

  test('leaves a hyphen-minus, a soft hyphen inside a line and one before a space as they are', () => {
    const text = 'north-\neast, tem\u00ADper\u00ADa\u00ADture, a \u2010\nrule';
    expect(joinSoftHyphens(text)).toBe(text);
  });
});
