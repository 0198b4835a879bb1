import { describe, expect, test } from '@jest/globals';
import { analysedText, stemText, stems, terms } from '../../src/domain/text/analyse.js';

describe('terms', () => {
  test('keeps Sinhala and Tamil words whole, vowel signs, virama and conjuncts included', () => {
    expect(terms('සිංහල භාෂාව')).toEqual(['සිංහල', 'භාෂාව']);
    expect(terms('ஒளிச்சேர்க்கை')).toEqual(['ஒளிச்சேர்க்கை']);
    expect(terms('ශ්‍රේණිය: ප්‍රභාසංශ්ලේෂණය!')).toEqual(['ශ්රේණිය', 'ප්රභාසංශ්ලේෂණය']);
    expect(terms('காபனீரொட்சைட்டு + நீர் → குளுக்கோசு')).toEqual(['காபனீரொட்சைட்டு', 'நீர்', 'குளுக்கோசு']);
  });

  test('a Sinhala word typed with or without its joiner gives the same term', () => {
    expect(terms('ප්\u200Dරදේශ')).toEqual(terms('ප්රදේශ'));
    expect(terms('ප්\u200Dරදේශ')).toEqual(['ප්රදේශ']);
  });

  test('lowercases, drops English stopwords and punctuation, keeps numbers', () => {
    expect(terms('The Water Cycle: what happens to 3.5 litres of it?')).toEqual(['water', 'cycle', 'happens', '3.5', 'litres']);
    expect(terms('— , . ! ( )')).toEqual([]);
    expect(terms('Grade 10, 2022')).toEqual(['grade', '10', '2022']);
  });

  test('normalises first: invisible characters and decomposed letters do not split or change words', () => {
    expect(terms('photo\u200Bsynthesis')).toEqual(['photosynthesis']);
    expect(terms('cafe\u0301')).toEqual(terms('café'));
  });

  test('analysedText joins the terms with single spaces', () => {
    expect(analysedText('The  sun\nand ජලය   வானிலை.')).toBe('sun ජලය வானிலை');
  });
});

describe('stems', () => {
  test('Sinhala and Tamil words longer than three grapheme clusters are cut to three', () => {
    expect(stems('සංශ්ලේෂණය')).toEqual(['සංශ්ලේ']);
    expect(stems('ஒளிச்சேர்க்கை')).toEqual(['ஒளிச்']);
  });

  test('inflected forms of a Tamil or Sinhala word share a stem', () => {
    const [plain, genitive] = stems('ஒளித்தொகுப்பு ஒளித்தொகுப்பின்');
    expect(plain).toBe(genitive);
    const [fraction, ofFraction] = stems('භාගයක් භාගයක');
    expect(fraction).toBe(ofFraction);
  });

  test('words of three clusters or fewer stay whole', () => {
    expect(stems('භාග நீர் ජලය')).toEqual(['භාග', 'நீர்', 'ජලය']);
  });

  test.each([
    ['plants', 'plant'],
    ['boiling', 'boil'],
    ['boiled', 'boil'],
    ['studies', 'study'],
    ['boxes', 'box'],
    ['glasses', 'glass'],
    ['glass', 'glass'],
    ['gas', 'gas'],
    ['axis', 'axis'],
    ['virus', 'virus'],
    ['ring', 'ring'],
    ['1990s', '1990s'],
  ])('English %s stems to %s', (word, stem) => {
    expect(stems(word)).toEqual([stem]);
  });

  test('there is one stem per term, in order, and stemText joins them', () => {
    const text = 'The leaves of green plants: ශාකවල කොළ පැහැති පත්‍ර, பச்சைத் தாவரங்கள்.';
    expect(stems(text)).toHaveLength(terms(text).length);
    expect(stemText(text)).toBe('leave green plant ශාකව කොළ පැහැති පත්ර பச்சை தாவர');
  });
});
