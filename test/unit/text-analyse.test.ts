import { describe, expect, test } from '@jest/globals';
import { analysedQuestion, analysedText, stemText, stems, terms } from '../../src/domain/text/analyse.js';

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

  test('a stopword that names something in capitals stays a term, unless its whole line is in capitals', () => {
    expect(terms('What does an OR gate give?')).toEqual(['does', 'or', 'gate', 'give']);
    expect(terms('The NOT gate and the AND gate; IT in schools')).toEqual(['not', 'gate', 'and', 'gate', 'it', 'schools']);
    expect(terms('OR ද්වාරයේ ප්‍රතිදානය')).toEqual(['or', 'ද්වාරයේ', 'ප්රතිදානය']);
    // a heading in capitals, a sentence's first word, lowercase: stopwords as ever
    expect(terms('LOGIC GATES: AND, OR, NOT')).toEqual(['logic', 'gates']);
    expect(terms('It is not red or blue, and no one will say so')).toEqual(['red', 'blue', 'no', 'one', 'will', 'say', 'so']);
    expect(terms('A cell\nAND GATE')).toEqual(['cell', 'gate']);
    // "NOT" in capitals names a gate only before one; elsewhere it is emphasis
    expect(terms('Which metal does NOT rust? The NOT gates; NOT ද්වාරය')).toEqual(['metal', 'does', 'rust', 'not', 'gates', 'not', 'ද්වාරය']);
  });

  test('normalises first: invisible characters and decomposed letters do not split or change words', () => {
    expect(terms('photo\u200Bsynthesis')).toEqual(['photosynthesis']);
    expect(terms('cafe\u0301')).toEqual(terms('café'));
  });

  test('compatibility forms match their plain letters: fullwidth, ligatures', () => {
    expect(terms('ＷＨＡＴ ＩＳ ＥＬＥＣＴＲＯＮＥＧＡＴＩＶＩＴＹ？')).toEqual(['electronegativity']);
    expect(terms('ﬁnd the ﬂower')).toEqual(['find', 'flower']);
    // Sinhala and Tamil words come out as before (the joiner aside, as always)
    expect(terms('ප්‍රභාසංශ්ලේෂණය ஒளிச்சேர்க்கை')).toEqual(['ප්රභාසංශ්ලේෂණය', 'ஒளிச்சேர்க்கை']);
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

  test('there is one stem per term, in order', () => {
    const text = 'The leaves of green plants: ශාකවල කොළ පැහැති පත්‍ර, பச்சைத் தாவரங்கள்.';
    expect(stems(text)).toHaveLength(terms(text).length);
    expect(stems(text)).toEqual(['leave', 'green', 'plant', 'ශාකව', 'කොළ', 'පැහැති', 'පත්ර', 'பச்சை', 'தாவர']);
  });
});

describe('stemText, the index stem field', () => {
  test('joins the stems; a Tamil word adds its Snowball stem when that differs from its cut', () => {
    const text = 'The leaves of green plants: ශාකවල කොළ පැහැති පත්‍ර, பச்சைத் தாவரங்கள் குளங்களையும்.';
    expect(stemText(text)).toBe('leave green plant ශාකව කොළ පැහැති පත්ර பச்சை தாவர தாவரம் குளங் குளம்');
  });

  test('a Snowball stem of a single letter or none is left out', () => {
    // Snowball cuts these to "வி" and "" (nothing)
    expect(stemText('விற்பனை உங்கள்')).toBe('விற்ப உங்க');
  });

  test('Tamil case and plural endings give one Snowball stem, which the three-cluster cut can miss', () => {
    // the cut gives "குளங்" for the plural and "குளம்" for the singular
    const tokens = (text: string) => stemText(text).split(' ');
    expect(tokens('குளங்களையும்')).toContain('குளம்');
    expect(tokens('குளம்')).toContain('குளம்');
    expect(tokens('அநுராதபுரத்தைத்')).toContain('அநுராதபுரம்');
    expect(tokens('சதவீதத்தை')).toEqual(expect.arrayContaining(tokens('சதவீதமாக')));
  });

  test('Sinhala and English stem fields are the stems alone', () => {
    expect(stemText('ශාකවල කොළ plants')).toBe(stems('ශාකවල කොළ plants').join(' '));
  });
});

describe('analysedQuestion', () => {
  test('drops Tamil words that only ask, also with a doubled-consonant joiner, and keeps the rest', () => {
    const question = analysedQuestion('எல்லைப்படுத்தும் காரணி என்றால் என்ன? அது எதனைக் காட்டுகிறது?');
    expect(question.terms).toBe('எல்லைப்படுத்தும் காரணி அது காட்டுகிறது');
    expect(question.stems).toBe(stemText('எல்லைப்படுத்தும் காரணி அது காட்டுகிறது'));
  });

  test('a question still carries every three-cluster stem, which chunks indexed before the Snowball stems hold', () => {
    const question = analysedQuestion('தாவரங்கள் குளங்களையும் அநுராதபுரத்தைத் தெரிவுசெய்தனர்');
    expect(question.stems.split(' ')).toEqual(expect.arrayContaining(stems(question.terms)));
  });

  test('a question of question words alone keeps them, so it still searches', () => {
    expect(analysedQuestion('யார்? எது?').terms).toBe('யார் எது');
  });

  test('Sinhala and English questions search with all their terms, as documents are indexed', () => {
    for (const text of ['What do plants need for photosynthesis?', 'ප්‍රභාසංශ්ලේෂණය යනු කුමක්ද?']) {
      expect(analysedQuestion(text)).toEqual({ terms: analysedText(text), stems: stemText(text) });
    }
  });
});
