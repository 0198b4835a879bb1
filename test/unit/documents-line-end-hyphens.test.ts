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

  test('puts back a dash alone at a line\'s end, which the reading order drops with the line break', () => {
    const placed = ['ஒன்பது பிரிவுகள் உள்ளன பாட்னா, திருஹட்\nfrom 1823 9 October; 1823 9 again'];
    const drawn = ['ஒன்பது பிரிவுகள் உள்ளன -\nபாட்னா, திருஹட்\nfrom 1823 \u2013\n9 October; 1823 9 again'];
    expect(settleLineEndHyphens(placed, drawn).placed).toEqual(['ஒன்பது பிரிவுகள் உள்ளன -\nபாட்னா, திருஹட்\nfrom 1823 \u2013\n9 October; 1823 9 again']);
    // a dash the reading order kept, and words that only contain the pair, stay as they are
    expect(settleLineEndHyphens(['a pause -\nthen more'], ['a pause -\nthen more']).placed).toEqual(['a pause -\nthen more']);
    expect(settleLineEndHyphens(['xa bx a b'], ['a -\nb']).placed).toEqual(['xa bx a -\nb']);
    // kept by the reading order: the pair met elsewhere without a dash is another place
    expect(settleLineEndHyphens(['a -\nb, and a b'], ['a -\nb, and a b']).placed).toEqual(['a -\nb, and a b']);
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
