import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  alignedParts,
  breaksAfterMarks,
  breaksBeforeLastLetter,
  brokenWordPairs,
  embedsLklug,
  joinWords,
  runsWordsTogether,
  spacedWordPairs,
  splitWords,
  type DrawnGlyph,
  type WordBox,
} from '../../src/domain/documents/mark-gaps.js';

// The first line of chromium-serif-tamil.pdf as poppler's words and pdf.js's operator list place
// them: "இலங்கையின் நீர் வளம்", which pdftotext reads "இலங் கையின் நீர் வளம்".
const box = (text: string, xMin: number, xMax: number, yMin = 68.5): WordBox => ({ text, xMin, xMax, yMin, yMax: yMin + 17.16 });
const glyph = (x: number, width: number, space = false, y = 80.25, text = space ? ' ' : ''): DrawnGlyph => ({ x, y, width, space, text });
const pairsOf = (words: WordBox[], drawn: DrawnGlyph[] = []) => brokenWordPairs(words, drawn);
const LINE_WORDS = [box('இலங்', 63, 91.46), box('கையின்', 97.09, 141.61), box('நீர்', 151.54, 164.59), box('வளம்', 170.71, 202.73)];
// இ ல ங, its pulli; ை க ய ி ன, its pulli; a space, ந ீ ர, its pulli; a space, வ
const LINE_GLYPHS = [
  glyph(63, 11.25),
  glyph(74.25, 11.59),
  glyph(85.83, 11.26),
  glyph(91.46, 0),
  glyph(97.09, 14.35),
  glyph(111.32, 9.39),
  glyph(120.71, 10.73),
  glyph(131.44, 2.55),
  glyph(133.99, 14.7),
  glyph(141.61, 0),
  glyph(148.68, 2.86, true),
  glyph(151.54, 9.08),
  glyph(160.62, 7.23),
  glyph(164.59, 0),
  glyph(167.85, 2.86, true),
  glyph(170.71, 12.69),
];

describe('brokenWordPairs', () => {
  test('joins a word broken where the letter before its pulli reaches the next word; not words with a space between them', () => {
    expect(pairsOf(LINE_WORDS, LINE_GLYPHS)).toEqual(
      new Map([
        ['இலங் கையின்', [true]],
        ['கையின் நீர்', [false]],
        ['நீர் வளம்', [false]],
      ]),
    );
  });

  test('joins nothing where pdf.js places the glyphs elsewhere than poppler places the words, or no glyph reaches the next word', () => {
    // the same glyphs further along than kerning moves them (a font whose widths are not the ones the file used)
    const shifted = LINE_GLYPHS.map((g) => ({ ...g, x: g.x + 2.5 }));
    expect(pairsOf(LINE_WORDS, shifted).get('இலங் கையின்')).toEqual([false]);
    expect(pairsOf(LINE_WORDS, LINE_GLYPHS.filter((g) => g.x !== 85.83)).get('இலங் கையின்')).toEqual([false]);
  });

  test('settles each place a pair has on the page, in order; a first word without a mark is one word with the next only where the boxes meet', () => {
    // a second line: the same two words with a space glyph between them
    const second = [box('இலங்', 63, 91.46, 100), box('கையின்', 100.9, 145.42, 100)];
    const secondGlyphs = [glyph(85.83, 11.26, false, 111.75), glyph(91.46, 0, false, 111.75), glyph(97.09, 3.81, true, 111.75), glyph(100.9, 14.35, false, 111.75)];
    expect(pairsOf([...LINE_WORDS, ...second], [...LINE_GLYPHS, ...secondGlyphs]).get('இலங் கையின்')).toEqual([true, false]);
    // a word further along than the line's height is counted as a place too, apart
    expect(pairsOf([box('நீர்', 63, 76), box('வட்டம்', 100, 140)]).get('நீர் வட்டம்')).toEqual([false]);
    // a glyph reaching across a gap after a letter is not the mark's moved back: two words
    const noMark = [box('இல', 63, 85.83), box('ங்கையின்', 85.83 + 3, 141.61)];
    expect(pairsOf(noMark, [glyph(74.25, 14.58)])).toEqual(new Map([['இல ங்கையின்', [false]]]));
  });

  test('does not join the last word of a line to the first of the next: a place of the pair, apart', () => {
    const words = [box('இலங்', 63, 91.46), box('கையின்', 97.09, 141.61, 96)];
    expect(pairsOf(words, [glyph(85.83, 11.26), glyph(97.09, 14.35, false, 107.75)])).toEqual(new Map([['இலங் கையின்', [false]]]));
  });

  // LibreOffice's and cairo's files: the pulli is a word of its own, drawn inside its letter's word
  // (புவியிலுள | ் | ள நீர்), and the next word starts where that word ends, or a space later
  test('a mark alone, drawn inside the word before it: one word with the next when that starts where the word ends', () => {
    const words = [box('புவியிலுள', 56.8, 123.526), box('்', 117.355, 117.355), box('ள', 123.548, 137.419), box('கையின', 140.25, 190)];
    const after = [box('்', 183.5, 183.5), box('நீர்', 192.85, 209)];
    // the mark is one word with the word it is drawn inside too: Tamil where they meet
    expect(pairsOf([...words, ...after])).toEqual(
      new Map([
        ['புவியிலுள ்', [true]],
        ['் ள', [true]],
        ['ள கையின', [false]],
        ['கையின ்', [true]],
        ['் நீர்', [false]],
      ]),
    );
    // cairo: a word ending in a pulli, and the next starting where it ends
    expect(pairsOf([box('தொடர்ந்', 374.99, 424.67), box('து', 424.99, 437.44)])).toEqual(new Map([['தொடர்ந் து', [true]]]));
  });
});

// The first line of typst-serif-tamil.pdf as poppler's words and pdf.js's operator list place it:
// Typst writes each cluster at its own place, the pulli moved back onto its letter, and the next
// cluster where the letter ends; its space is a glyph at the start of the next run.
describe('brokenWordPairs, in a file that writes each cluster at a place of its own', () => {
  const at = (x: number, width: number, space = false) => glyph(x, width, space, 72.6);
  const words = [box('இலங்', 56.69, 85.17, 59.9), box('கையின்', 90.8, 135.35, 59.9), box('நீர்', 145.3, 163.6, 59.9)];
  // ங, its pulli; ன, its pulli, the space and நீ
  const drawn = [at(79.54, 11.26), at(85.17, 0), at(127.73, 14.71), at(135.35, 0), at(142.44, 2.86, true), at(145.3, 9.09)];

  test('joins a word broken where the letter before its mark reaches the next word; not one a space glyph follows', () => {
    expect(pairsOf(words, drawn)).toEqual(
      new Map([
        ['இலங் கையின்', [true]],
        ['கையின் நீர்', [false]],
      ]),
    );
  });

  test('joins nothing where no glyph ends where the next word starts (a table\'s next cell), or a space glyph is drawn in the gap', () => {
    expect(pairsOf(words, drawn.filter((g) => g.x !== 79.54)).get('இலங் கையின்')).toEqual([false]);
    expect(pairsOf(words, [...drawn, at(86.5, 2.86, true)]).get('இலங் கையின்')).toEqual([false]);
    // the glyphs of another line
    expect(pairsOf(words, drawn.map((g) => ({ ...g, y: g.y + 20 }))).get('இலங் கையின்')).toEqual([false]);
    // the first word's own last glyph, ending where it ends, does not reach across a gap
    const close = [box('இலங்', 56.69, 85.17, 59.9), box('கையின்', 86.5, 130, 59.9)];
    expect(pairsOf(close, [at(79.54, 5.63), at(85.17, 0)]).get('இலங் கையின்')).toEqual([false]);
  });
});

// pango-lklug-sinhala.pdf: cairo places LKLUG's glyphs further along than the widths the file
// declares (ව by 0.044 em), and poppler breaks words there: "බැවින්" as "බැවි න්", its second
// word 0.46 pt (0.034 of the line's height) after the first, where a space is 6.8 pt
describe('brokenWordPairs, in a file whose glyphs are placed beyond their declared widths', () => {
  const at = (text: string, xMin: number, xMax: number): WordBox => ({ text, xMin, xMax, yMin: 94.6, yMax: 108.06 });

  test('joins Sinhala or Tamil words whose boxes meet, whatever the first ends in; not words a space apart', () => {
    const words = [at('ලැබෙන', 371, 402.79), at('වර්ෂාව', 409, 437.54), at('ක්', 438, 447.36), at('බැවි', 450, 464.54), at('න්', 465, 474.86)];
    expect(pairsOf(words)).toEqual(
      new Map([
        ['ලැබෙන වර්ෂාව', [false]],
        ['වර්ෂාව ක්', [true]],
        ['ක් බැවි', [false]],
        ['බැවි න්', [true]],
      ]),
    );
    expect(pairsOf([at('இல', 63, 85.83), at('ங்கையின்', 86.33, 141.61)])).toEqual(new Map([['இல ங்கையின்', [true]]]));
    // punctuation after a word: "විද්‍යාව :" for "විද්‍යාව:"
    expect(pairsOf([at('විද්‍යාව', 144, 169.54), at(':', 170, 172.81)])).toEqual(new Map([['විද්‍යාව :', [true]]]));
  });

  test('leaves other scripts to poppler: a Latin word, or a Sinhala word beside one, is no pair', () => {
    expect(pairsOf([at('Sri', 56, 70), at('Lanka', 70.46, 95)])).toEqual(new Map());
    expect(pairsOf([at('වර්ෂාව', 409, 437.54), at('rain', 438, 460)])).toEqual(new Map());
    // a numeral is one word with what follows only in a file that sets suffixes apart (below)
    expect(pairsOf([at('1750', 380, 405), at('ට', 405.46, 412)])).toEqual(new Map());
  });

  test('does not join a word to one drawn after it further back on the line (a right-aligned label drawn first)', () => {
    expect(pairsOf([at('ලකුණු', 258.7, 289.6), at('පළමු', 63, 86.9)])).toEqual(new Map([['ලකුණු පළමු', [false]]]));
  });
});

// "සියයට 70කට වඩා" and "7 ශ්‍රේණිය" as libreoffice-numerals-sinhala.pdf draws them: the numeral
// in the Latin font, its suffix 2.24 pt after it (0.16 of the line's height) with no space drawn,
// which pdftotext reads "70 කට"; a space glyph drawn between a numeral and the next word
describe('brokenWordPairs, in a file that sets a numeral apart from its suffix', () => {
  const at = (text: string, xMin: number, xMax: number): WordBox => ({ text, xMin, xMax, yMin: 100, yMax: 114.3 });
  const on = (x: number, width: number, space = false) => glyph(x, width, space, 111);
  const words = [at('සියයට', 100, 133.4), at('70', 138.9, 151.48), at('කට', 153.72, 172), at('වඩා', 177.5, 200)];
  const apart = (boxes: WordBox[], glyphs: DrawnGlyph[]) => brokenWordPairs(boxes, glyphs, { numeralsApart: true });
  const drawn = [on(133.4, 5.5, true), on(138.9, 6.29), on(145.19, 6.29), on(153.72, 9), on(162.72, 9.28), on(172, 5.5, true), on(177.5, 22.5)];

  test('joins a Sinhala or Tamil suffix to its numeral where the line draws its spaces and none between them', () => {
    expect(apart(words, drawn).get('70 කට')).toEqual([true]);
    expect(apart([at('20', 100, 112.58), at('வது', 114.82, 140), at('நூற்றாண்டு', 145.5, 200)], [on(100, 12.58), on(114.82, 25.18), on(140, 5.5, true)]).get('20 வது')).toEqual([true]);
  });

  test('keeps a numeral and the next word apart where a space glyph is drawn between them, the gap is a space\'s, or the line draws no spaces', () => {
    const spaced = [at('7', 100, 106.29), at('ශ්‍රේණිය', 111.79, 150)];
    expect(apart(spaced, [on(100, 6.29), on(106.29, 5.5, true), on(111.79, 38.21)]).get('7 ශ්‍රේණිය')).toEqual([false]);
    // 5.5 pt apart, with no space drawn: a table's next cell, not a suffix
    expect(apart([at('70', 138.9, 151.48), at('කට', 156.98, 175)], drawn).get('70 කට')).toEqual([false]);
    // a file that moves the pen over its spaces instead of drawing them: the gap alone cannot tell
    expect(apart(words, drawn.filter((g) => !g.space)).get('70 කට')).toEqual([false]);
    // the glyphs of another line
    expect(apart(words, drawn.map((g) => ({ ...g, y: g.y + 20 }))).get('70 කට')).toEqual([false]);
    // a table's number cell and the next cell, as near as a suffix (Calc's margins): longer than a suffix
    expect(apart([at('7', 100, 106.29), at('ගණිතය', 108.3, 140), at('ප්‍රශ්න', 145.5, 180)], [on(100, 6.29), on(108.3, 31.7), on(140, 5.5, true), on(145.5, 34.5)]).get('7 ගණිතය')).toEqual([false]);
  });

  test('joins nothing in a file whose producer does not set numerals apart', () => {
    expect(pairsOf(words, drawn).get('70 කට')).toBeUndefined();
  });
});

// "නිසා ඒවා ඇති" as chromium-fallback-lklug-sinhala.pdf draws it: LKLUG's words, DejaVu Sans's
// spaces. ා's box reaches 0.36 pt past where the space after it ends, and pdftotext reads නිසාඒවාඇති.
describe('words run together over a space drawn in another font', () => {
  const at = (text: string, xMin: number, xMax: number): WordBox => ({ text, xMin, xMax, yMin: 168.7, yMax: 184.08 });
  const words = [at('නිසා', 188.18, 212.24), at('ඒවා', 211.88, 232.78), at('ඇති', 232.43, 250.6)];
  const spaces = [glyph(208.07, 3.81, true, 180.3), glyph(228.62, 3.81, true, 180.3)];

  test('spacedWordPairs: a pair whose boxes meet is spaced where a space glyph ends at the second word, and not otherwise', () => {
    expect(spacedWordPairs(words, spaces)).toEqual(new Map([['නිසා ඒවා', [true]], ['ඒවා ඇති', [true]]]));
    expect(spacedWordPairs(words, [])).toEqual(new Map([['නිසා ඒවා', [false]], ['ඒවා ඇති', [false]]]));
    // words a space apart are read apart by poppler already; a word drawn further back is elsewhere on the line
    expect(spacedWordPairs([at('වේ', 150, 160), at('ඒ', 163.9, 170)], [glyph(160, 3.81, true, 180.3)])).toEqual(new Map());
    expect(spacedWordPairs([at('ලකුණු', 258.7, 289.6), at('පළමු', 63, 86.9)], spaces)).toEqual(new Map());
  });

  test('spacedWordPairs: a box with spaces drawn inside it is parted at them by its glyphs\' text, lined up with the box\'s', () => {
    // LibreOffice draws the line's spaces first, and poppler makes one box of the words
    const box = at('නිසාඒවාඇති', 188.18, 250.6);
    const letters = (
      [
        ['නි', 188.18],
        ['සා', 198.18],
        ['ඒ', 211.88],
        ['වා', 222],
        ['ඇ', 232.43],
        ['ති', 242],
      ] as const
    ).map(([text, x]) => glyph(x, 8, false, 180.3, text));
    expect(spacedWordPairs([box], [...spaces, ...letters])).toEqual(new Map([['නිසා ඒවා', [true]], ['ඒවා ඇති', [true]]]));
    // two spaces drawn side by side part the words once
    const doubled = [glyph(206.5, 1.6, true, 180.3), glyph(208.1, 1.6, true, 180.3), spaces[1]!];
    expect(spacedWordPairs([box], [...doubled, ...letters])).toEqual(new Map([['නිසා ඒවා', [true]], ['ඒවා ඇති', [true]]]));
    // glyphs the file maps otherwise than poppler reads them (LibreOffice's LKLUG: ෙ as වේ, drawn
    // before its letter): parted by lining the texts up
    const misread = (['ල', 'බ', 'ා', 'වේ', 'ද', 'න'] as const).map((text, k) => glyph(300 + 5 * k + (k > 2 ? 4 : 0), 5, false, 180.3, text));
    const space = glyph(315.5, 3.5, true, 180.3);
    expect(spacedWordPairs([at('ලබාදෙන', 300, 335)], [space, ...misread])).toEqual(new Map([['ලබා දෙන', [true]]]));
    // but not where another parting is nearly as near: ඒ and a control code are ඒවා, or ඒ and වා after the space
    const unsure = letters.map((g, k) => (k === 3 ? { ...g, text: '\u0007' } : g));
    expect(spacedWordPairs([box], [...spaces, ...unsure])).toEqual(new Map());
    const unknown = letters.map((g, k) => (k === 2 ? { ...g, text: 'ක' } : g));
    expect(spacedWordPairs([box], [...spaces, ...unknown])).toEqual(new Map());
  });

  // LibreOffice's LKLUG subset maps ෙ's glyph as වේ and others as control codes, and draws ෙ
  // before its letter, where poppler reads its clusters' ActualText
  test('alignedParts parts a box at the cluster boundaries nearest its glyphs\' text, when no other parting is as near', () => {
    expect(alignedParts('ලබාදෙන', ['ලබා', 'වේදන'])).toEqual(['ලබා', 'දෙන']);
    expect(alignedParts('ලබාගන්නාමෙම', ['ලබා', '\u0012න්නා', 'වේ\b\b'])).toEqual(['ලබා', 'ගන්නා', 'මෙම']);
    expect(alignedParts('වඩාවේගයෙන්', ['වඩා', 'වේ\u0007\u0012වේයන්'])).toEqual(['වඩා', 'වේගයෙන්']);
  });

  test('alignedParts refuses a parting that is not certain: as near as another, too far from the glyphs\' text, or inside a cluster', () => {
    // ර lost between the sides: කර න and ක රන are as near
    expect(alignedParts('කරන', ['ක', 'න'])).toEqual([]);
    // ලබා දෙන by one edit less than ලබාදෙ න: not enough
    expect(alignedParts('ලබාදෙන', ['ලබා', 'ද'])).toEqual([]);
    // nothing like the box's text, though the only parting
    expect(alignedParts('ලබාදෙන', ['ගම', 'පොත'])).toEqual([]);
    expect(alignedParts('අප', ['ක', 'ම'])).toEqual([]);
    // a box far longer than a few words run together (a hostile file's) is not searched
    const long = 'ලබා'.repeat(30);
    expect(alignedParts(long, ['ලබා'.repeat(15), 'ලබා'.repeat(15)])).toEqual([]);
    expect(alignedParts('අපගමපොතලබා', ['අප', 'ගම', 'පොත', 'ලබා'])).toEqual(['අප', 'ගම', 'පොත', 'ලබා']);
    expect(alignedParts('අපගමපොතලබාදෙන', ['අප', 'ගම', 'පොත', 'ලබා', 'දෙන'])).toEqual([]);
    // nor are glyphs far more than the box's letters (drawn over one another), whatever the box
    expect(alignedParts('ලබාදෙන', ['ලබා', 'ද'.repeat(100_000)])).toEqual([]);
    // a joiner joins the letter after it: ශ්‍ | රේ is no parting
    expect(alignedParts('ශ්‍රේක', ['ශ්‍', 'රේක'])).toEqual([]);
    // the space falls inside බා: ල බාදෙන and ලබා දෙන are as near, and බා is not parted
    expect(alignedParts('ලබාදෙන', ['ලබ', 'ාදෙන'])).toEqual([]);
    expect(alignedParts('ලබාදෙන', ['ලබා', ''])).toEqual([]);
  });

  test('brokenWordPairs: words whose boxes meet are not one word where a space is drawn between them', () => {
    expect(brokenWordPairs(words, spaces)).toEqual(new Map([['නිසා ඒවා', [false]], ['ඒවා ඇති', [false]]]));
    expect(brokenWordPairs(words, [])).toEqual(new Map([['නිසා ඒවා', [true]], ['ඒවා ඇති', [true]]]));
  });

  test('splitWords parts each spaced pair where the text runs it together, punctuation after it kept', () => {
    const pairs = spacedWordPairs(words, spaces);
    expect(splitWords('දෙසට නිසාඒවාඇති වේ.\nනිසාඒවා', pairs)).toBe('දෙසට නිසා ඒවා ඇති වේ.\nනිසා ඒවා');
    expect(splitWords('ලබාදෙයි. ලබාදෙන', new Map([['ලබා දෙයි.', [true]]]))).toBe('ලබා දෙයි. ලබාදෙන');
    // a pair not spaced at every place is left as poppler reads it
    expect(splitWords('නිසාඒවා', new Map([['නිසා ඒවා', [true, false]]]))).toBe('නිසාඒවා');
  });

  test('runsWordsTogether: true for text whose words after ා run into the next, false for correct Sinhala and Tamil', () => {
    const pages = (language: string) => readFileSync(new URL(`../fixtures/pdf-producers/${language}.txt`, import.meta.url), 'utf8').split(/^--- PAGE \d+ ---$/m).slice(1);
    expect(runsWordsTogether(pages('sinhala'))).toBe(false);
    expect(runsWordsTogether(pages('tamil'))).toBe(false);
    expect(runsWordsTogether(pages('sinhala').map((page) => page.replace(/ා /gu, 'ා')))).toBe(true);
    // one compound (නුවරඑළිය) is no evidence
    expect(runsWordsTogether(['නුවරඑළිය වැනි කඳුකර ප්‍රදේශවල උෂ්ණත්වය අඩු වේ.'])).toBe(false);
  });

  test('embedsLklug: LKLUG by the names pdffonts gives, a subset\'s tag or none; no other font', () => {
    expect(embedsLklug(['AAAAAA+LKLUG', 'BAAAAA+DejaVuSans'])).toBe(true);
    expect(embedsLklug(['LKLUG'])).toBe(true);
    expect(embedsLklug(['BAAAAA+NotoSansSinhala-Regular', 'CAAAAA+DejaVuSans', 'LKLUGish', 'ABC+LKLUG'])).toBe(false);
  });
});

describe('breaksAfterMarks', () => {
  const tamil = readFileSync(new URL('../fixtures/pdf-producers/tamil.txt', import.meta.url), 'utf8');

  test('is false for correct Tamil text, where about a third of pullis end a word', () => {
    for (const page of tamil.split(/^--- PAGE \d+ ---$/m).slice(1)) expect(breaksAfterMarks(page)).toBe(false);
  });

  test('is true for text broken after nearly every pulli, and false for a page with too few to tell', () => {
    expect(breaksAfterMarks('இலங் கையின் நீர் வளம் : உசாத் துணைக் குறிப் புகள் வட் டம் சுற் றிக் கொண் டிருக் கிறது')).toBe(true);
    expect(breaksAfterMarks('நீர் வட் டம்')).toBe(false);
  });

  test('is true for a page with a virama apart from its letter, as LibreOffice\'s and cairo\'s files put it', () => {
    expect(breaksAfterMarks('இலங\n் கையின\n் நீர் வளம்')).toBe(true);
  });
});

describe('breaksBeforeLastLetter', () => {
  const pages = (language: string) => readFileSync(new URL(`../fixtures/pdf-producers/${language}.txt`, import.meta.url), 'utf8').split(/^--- PAGE \d+ ---$/m).slice(1);
  const sinhala = pages('sinhala');

  test('is false for correct Sinhala and Tamil text, and for a consonant with its virama after a numeral', () => {
    expect(breaksBeforeLastLetter(sinhala)).toBe(false);
    expect(breaksBeforeLastLetter(pages('tamil'))).toBe(false);
    expect(breaksBeforeLastLetter(['වර්ෂාපතනය මිලිමීටර 1750 ත් 2500 ත් අතර වේ. ඉඩමෙන් 7/12 ක් වගා කර ඇත.'])).toBe(false);
    // a conjunct that goes on (ශ්‍රී), and a consonant with its virama that ends a word
    expect(breaksBeforeLastLetter(['ශ්‍රී ලංකාවේ මෝසම් සුළං'])).toBe(false);
  });

  test('is true for a file of Sinhala or Tamil words with their last consonant broken off', () => {
    expect(breaksBeforeLastLetter(['නිරිත දිග සිට හමන බැවි න් මෙම සුළං'])).toBe(true);
    expect(breaksBeforeLastLetter([...sinhala, 'අධික වර්ෂාව ක්.', 'හමන බැවි න් මෙම'])).toBe(true);
    expect(breaksBeforeLastLetter(['நீர் வளங்கள ் கொண்டது'])).toBe(false);
    expect(breaksBeforeLastLetter(['நீர் வளங்க ள் கொண்டது'])).toBe(true);
  });

  test('is false for one such piece among many hundred words, as words put together in any order leave', () => {
    expect(breaksBeforeLastLetter([...sinhala, ...sinhala, 'පාලනය ත් හිඟ'])).toBe(false);
  });
});

describe('joinWords', () => {
  test('joins each pair where one space parts it, a word broken in several places whole', () => {
    const pairs = new Map(['சுற் றிக்', 'றிக் கொண்', 'கொண் டிருக்', 'டிருக் கிறது'].map((pair) => [pair, [true]]));
    expect(joinWords('நீர் சுற் றிக் கொண் டிருக் கிறது. நீர்', pairs)).toBe('நீர் சுற்றிக்கொண்டிருக்கிறது. நீர்');
  });

  test('leaves a pair at a line break, pairs not given, and a second word that goes on with letters, as they are', () => {
    const pairs = new Map([['இலங் கை', [true]]]);
    expect(joinWords('இலங்\nகை இலங் கையின் இலங் கை.', pairs)).toBe('இலங்\nகை இலங் கையின் இலங்கை.');
  });

  test('joins a pair whose second word the text has with the mark that the boxes part from it (LibreOffice\'s துளிகள | ்), the longest pair that fits first', () => {
    expect(joinWords('நீர்த\n் துளிகள் பெரிதாகிப', new Map([['் துளிகள', [true]]]))).toBe('நீர்த\n்துளிகள் பெரிதாகிப');
    const pairs = new Map([['் க', [true]], ['் கை', [false]]]);
    expect(joinWords('இலங\n் கை இலங\n் கையின', pairs)).toBe('இலங\n் கை இலங\n் கையின');
    expect(joinWords('இலங\n் க்', pairs)).toBe('இலங\n்க்');
    // a Sinhala conjunct goes on after its virama and joiner: another word
    expect(joinWords('ශ්‍රී ක්‍රම', new Map([['ශ්‍රී ක', [true]]]))).toBe('ශ්‍රී ක්‍රම');
  });

  // pdftotext -raw of Chromium's LKLUG breaks the line where a glyph is drawn back over the one
  // before; its text may run the next box's word into the second (උදෑ | සන where the boxes have උදෑ | ස | න)
  test('joins a pair at a line break where the boxes have it on one line, the second word run into the next or not', () => {
    expect(joinWords('ශ්‍රී ලංකා\nවේ මෝසම්', new Map([['ලංකා වේ', [true]]]))).toBe('ශ්‍රී ලංකාවේ මෝසම්');
    expect(joinWords('දිනවල උදෑ\nසන තණකොළ', new Map([['උදෑ ස', [true]]]))).toBe('දිනවල උදෑසන තණකොළ');
    // a blank line is a place of the pair too, never joined
    expect(joinWords('ලංකා\n\nවේ සහ ලංකා\nවේ', new Map([['ලංකා වේ', [true, true]]]))).toBe('ලංකා\n\nවේ සහ ලංකාවේ');
  });

  test('leaves a line break when the text has the pair more or less often than the boxes, even if every place is one word', () => {
    expect(joinWords('ලංකා\nවේ', new Map([['ලංකා වේ', [true, true]]]))).toBe('ලංකා\nවේ');
    expect(joinWords('ලංකා\nවේ ලංකා\nවේ', new Map([['ලංකා වේ', [true]]]))).toBe('ලංකා\nවේ ලංකා\nවේ');
  });

  test('settles a pair place by place when the text has it as often as the word boxes, and otherwise joins it only if every place is one word', () => {
    const pairs = new Map([['் பொருள', [true, false]]]);
    expect(joinWords('கழிவுப\n் பொருள\n் இரசாயனப\n் பொருள', pairs)).toBe('கழிவுப\n்பொருள\n் இரசாயனப\n் பொருள');
    expect(joinWords('கழிவுப\n் பொருள', pairs)).toBe('கழிவுப\n் பொருள');
    expect(joinWords('கழிவுப\n் பொருள', new Map([['் பொருள', [true, true]]]))).toBe('கழிவுப\n்பொருள');
  });
});
