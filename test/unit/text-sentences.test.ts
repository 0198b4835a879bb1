import { describe, expect, test } from '@jest/globals';
import { sentenceSpans, sentences } from '../../src/domain/text/sentences.js';

describe('sentences', () => {
  test('splits English, Sinhala and Tamil text into trimmed sentences', () => {
    expect(sentences('Plants make food.  They need light! Do they?  ')).toEqual([
      'Plants make food.',
      'They need light!',
      'Do they?',
    ]);
    expect(sentences('ජලය වාෂ්ප වේ. වලාකුළු සෑදේ.')).toEqual(['ජලය වාෂ්ප වේ.', 'වලාකුළු සෑදේ.']);
    expect(sentences('இலைகள் பச்சை நிறமானவை. அவை ஒளியை உறிஞ்சுகின்றன.')).toEqual([
      'இலைகள் பச்சை நிறமானவை.',
      'அவை ஒளியை உறிஞ்சுகின்றன.',
    ]);
  });

  test('leaves page marker lines out', () => {
    expect(sentences('--- PAGE 1 ---\nA cat sat.\n--- PAGE 2 ---\nA dog ran.')).toEqual(['A cat sat.', 'A dog ran.']);
  });

  test('a line break inside a sentence, as PDFs have, does not end it', () => {
    expect(sentences('Plants make\nfood in their\nleaves. Animals do not.')).toEqual([
      'Plants make food in their leaves.',
      'Animals do not.',
    ]);
  });

  test('a blank line, a list item or a heading on the next line ends a sentence', () => {
    expect(sentences('Fractions\n\nA fraction is a part')).toEqual(['Fractions', 'A fraction is a part']);
    expect(sentences('Types\n- proper fractions\n- improper fractions\n• mixed numbers\n1. first\n# Next')).toEqual([
      'Types',
      '- proper fractions',
      '- improper fractions',
      '• mixed numbers',
      '1. first',
      '# Next',
    ]);
  });

  test('an exam item on the next line ends a sentence, whatever case it goes on in', () => {
    expect(sentences('The interest is 10,500 rupees.\n(b) How much would he earn?\nb) Find x.\n(ii) Why?\n(ආ) කුමක්ද?')).toEqual([
      'The interest is 10,500 rupees.',
      '(b) How much would he earn?',
      'b) Find x.',
      '(ii) Why?',
      '(ආ) කුමක්ද?',
    ]);
  });

  test("a numbered line's number stays with its sentence; a mark allocation at a line's end and an answer's label on the next end one", () => {
    expect(sentences('1. The unit of resistance is the ohm.\n(2) Heat it. Then cool it.')).toEqual(['1. The unit of resistance is the ohm.', '(2) Heat it.', 'Then cool it.']);
    expect(sentences('1. Name the gas plants release during photosynthesis [1 mark]\nAnswer: Oxygen.')).toEqual(['1. Name the gas plants release during photosynthesis [1 mark]', 'Answer: Oxygen.']);
    expect(sentences('(අ) ඕම් නියමය ප්‍රකාශ කරන්න (ලකුණු 2)\nපිළිතුර: V = IR.')).toEqual(['(අ) ඕම් නියමය ප්‍රකාශ කරන්න (ලකුණු 2)', 'පිළිතුර: V = IR.']);
    expect(sentences('The current in a circuit with a long wire is measured in amperes by an\nammeter joined in series.')).toEqual(['The current in a circuit with a long wire is measured in amperes by an ammeter joined in series.']);
  });

  test("a spreadsheet's error value ('#NAME?', '#DIV/0!') a factorial or a name ('Yahoo!') before a lower-case word does not end a sentence; other '?' and '!' do", () => {
    expect(sentences('#NAME? appears when a name is misspelt. #DIV/0! appears when a formula divides by zero.')).toEqual(['#NAME? appears when a name is misspelt.', '#DIV/0! appears when a formula divides by zero.']);
    expect(sentences('What is a cell? A cell is a box. Stop! It is hot. Is it alive? no.')).toEqual(['What is a cell?', 'A cell is a box.', 'Stop!', 'It is hot.', 'Is it alive?', 'no.']);
    expect(sentences('5! means 5 × 4 × 3 × 2 × 1, which is 120.')).toEqual(['5! means 5 × 4 × 3 × 2 × 1, which is 120.']);
    expect(sentences('Yahoo! and Google are search engines. Bing is one too.')).toEqual(['Yahoo! and Google are search engines.', 'Bing is one too.']);
    expect(sentences('What is it?\n\nmass is conserved.')).toEqual(['What is it?', 'mass is conserved.']);
  });

  test('a sentence ends before a space only, not inside a formula', () => {
    expect(sentences("Answer: (A + B)' = A'.B' and (A.B)' = A' + B'. In words, it is so.")).toEqual(["Answer: (A + B)' = A'.B' and (A.B)' = A' + B'.", 'In words, it is so.']);
    expect(sentences("Answer: X = A.(B + B') = A.1 = A. The circuit needs no gate.")).toEqual(["Answer: X = A.(B + B') = A.1 = A.", 'The circuit needs no gate.']);
    // a space the text lacks still ends one
    expect(sentences('ශ්‍රී ලංකාව දිවයිනකි.ශ්‍රී ලංකාවට 1948 දී නිදහස ලැබුණි.')).toEqual(['ශ්‍රී ලංකාව දිවයිනකි.', 'ශ්‍රී ලංකාවට 1948 දී නිදහස ලැබුණි.']);
    expect(sentences('It was free in 1948.The first prime minister was chosen.')).toEqual(['It was free in 1948.', 'The first prime minister was chosen.']);
  });

  test("an era's dotted abbreviation ends no sentence before a number or a Sinhala or Tamil word; before a capital it may", () => {
    expect(sentences('கி.பி. பத்தாம் நூற்றாண்டின் இறுதியில் சோழர்கள் வந்தனர். கி.பி. 1017 இல் மகிந்த மன்னன் சிறைபிடிக்கப்பட்டான்.')).toEqual([
      'கி.பி. பத்தாம் நூற்றாண்டின் இறுதியில் சோழர்கள் வந்தனர்.',
      'கி.பி. 1017 இல் மகிந்த மன்னன் சிறைபிடிக்கப்பட்டான்.',
    ]);
    expect(sentences('විජයබාහු කුමරු ක්‍රි.ව. 1070 දී චෝළයන් පරාජය කළේය. ඔහු රජ විය.')).toEqual(['විජයබාහු කුමරු ක්‍රි.ව. 1070 දී චෝළයන් පරාජය කළේය.', 'ඔහු රජ විය.']);
    expect(sentences('It was built in 300 B.C. The king died later.')).toEqual(['It was built in 300 B.C.', 'The king died later.']);
    expect(sentences('It was built in A.D. 1153 by the king.')).toEqual(['It was built in A.D. 1153 by the king.']);
    // a name's initials too
    expect(sentences('ශ්‍රී ලංකාවට 1948 දී නිදහස ලැබුණි. ඩී.එස්. සේනානායක පළමු අගමැතිවරයා විය. ක්‍රි.ව. 1070 දී ඔහු පැමිණියේය.')).toEqual([
      'ශ්‍රී ලංකාවට 1948 දී නිදහස ලැබුණි.',
      'ඩී.එස්. සේනානායක පළමු අගමැතිවරයා විය.',
      'ක්‍රි.ව. 1070 දී ඔහු පැමිණියේය.',
    ]);
    expect(sentences('டி.எஸ். சேனநாயக்கா முதல் பிரதமர் ஆவார்.')).toEqual(['டி.எஸ். சேனநாயக்கா முதல் பிரதமர் ஆவார்.']);
    // other dotted words end their sentence
    expect(sentences('Visit www.nie.lk. ශාක ගැන කියවන්න.')).toEqual(['Visit www.nie.lk.', 'ශාක ගැන කියවන්න.']);
    expect(sentences('The class ends at 1.30 p.m. ළමයින් ගෙදර යති.')).toEqual(['The class ends at 1.30 p.m.', 'ළමයින් ගෙදර යති.']);
    // a stop without a space after a word still ends a sentence
    expect(sentences('අගනුවර කොළඹ වේ.එය විශාල නගරයකි.')).toEqual(['අගනුවර කොළඹ වේ.', 'එය විශාල නගරයකි.']);
  });

  test('a decimal point does not end a sentence', () => {
    expect(sentences('Pi is about 3.14 in value. It never ends.')).toEqual(['Pi is about 3.14 in value.', 'It never ends.']);
  });

  test('blank text has no sentences', () => {
    expect(sentences(' \n\n ')).toEqual([]);
  });
});

describe('sentenceSpans', () => {
  test('spans point into the original text and start and end at non-whitespace', () => {
    const text = '  First line\nwraps here.\n\n  Second one.  ';
    const spans = sentenceSpans(text);
    expect(spans.map(({ start, end }) => text.slice(start, end))).toEqual(['First line\nwraps here.', 'Second one.']);
  });
});
