import { SINHALA_OR_TAMIL } from '../text/scripts.js';

// Some fonts draw a mark (Tamil's pulli ்) as a glyph of its own, moved back onto its letter
// (Noto Serif Tamil), and pdftotext then breaks words after it: இலங் கையின் for இலங்கையின். No
// text rule tells that break from a space after a word that ends in a pulli (a third of Tamil
// words do), but where the file draws its words and glyphs does:
// - Chromium and Typst write each cluster's text once for all its glyphs (an ActualText span),
//   and poppler ends the cluster where its last glyph, the mark, ends: halfway into the letter.
//   The next cluster starts half a letter later, a gap as wide as a space. A space between words
//   is a glyph of its own; inside a word the letter's glyph spans the gap. pdf.js's text does not
//   show it (it gives Typst's cluster no width, and merges gaps with drawn spaces), the glyphs
//   it draws (its operator list) do.
// - LibreOffice and cairo give the mark its own text, and poppler makes it a word of its own,
//   inside its letter's word (இலங | ் | கையின). The next cluster starts where the letter ends
//   when it is the same word, a space later when it is the next.
// - cairo, in LKLUG (Sinhala), places some glyphs further along than the widths the file declares
//   for them, and poppler breaks words there (බැවි න් for බැවින්, වර්ෂාව ක් for වර්ෂාවක්): the next
//   word starts 0.03 of the line's height after the last, where a space takes at least 0.13.
// - Chromium, where LKLUG is the fallback for Sinhala in a document set in a Latin font, draws a
//   word ending in ා and then the Latin font's space; LKLUG declares ා 0.35 em wider than it is
//   drawn, so the first word's box reaches past where the next begins, and pdftotext runs the two
//   together (ලබාදෙන for ලබා දෙන). Its word boxes still part them at the space, and the glyphs
//   show the space drawn between them. LibreOffice draws a line's spaces apart from its words,
//   and its word boxes run them together too: the glyphs' text on either side of a space tells
//   the words, lined up with poppler's where pdf.js maps some glyphs otherwise (LibreOffice gives
//   a cluster's text as ActualText, which poppler reads and pdf.js's operator list does not).
// - LibreOffice sets a numeral in the Latin font and a Sinhala or Tamil suffix after it in the
//   script's font, a gap apart (a sixth of the line's height) with no space drawn, and poppler
//   parts the words there (70 කට, 20 வது for 70කට, 20வது). Correct text has a space there as
//   often (7 ශ්‍රේණිය, 1750 ත්), which LibreOffice draws as a glyph like every other space.

/** Whether each place a page has a pair of words ("first second") is one word, in poppler's order. */
export type WordPairs = Map<string, boolean[]>;

/** A word as pdftotext's `-bbox` gives it: points from the page's top left corner. */
export interface WordBox {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** A glyph a page draws: its baseline start, its advance and whether it is a space, same coordinates, and its text as the file maps it. */
export interface DrawnGlyph {
  x: number;
  y: number;
  width: number;
  space: boolean;
  text: string;
}

const VIRAMA = /[\u0BCD\u0DCA]/gu;
const ENDS_IN_SINHALA_OR_TAMIL = /[\u0B80-\u0BFF\u0D80-\u0DFF]$/u;
const ENDS_IN_NUMERAL = /\p{Nd}$/u;
const STARTS_IN_SINHALA_OR_TAMIL = /^[\u0B80-\u0BFF\u0D80-\u0DFF]/u;
/** A numeral, then a Sinhala or Tamil word: a suffix set apart from its numeral (above), or a word after it. */
const NUMERAL_BEFORE_WORD = /\p{Nd} [\u0B80-\u0BFF\u0D80-\u0DFF]/u;
/** A word that goes on from a Sinhala or Tamil word: more of it, or punctuation (විද්‍යාව :). */
const GOES_ON_SINHALA_OR_TAMIL = /^[\u0B80-\u0BFF\u0D80-\u0DFF\p{P}]/u;
const VIRAMA_BEFORE_WORD = /[\u0BCD\u0DCA](?= \p{L})/gu;
/** A virama that a reader put apart from its letter: never in correct text, nor in visual order. */
const VIRAMA_ALONE = /\s[\u0BCD\u0DCA]/u;
/** A word that ends in a mark, the glyph that may end its cluster early. */
const ENDS_IN_MARK = /\p{M}$/u;
const ONLY_MARKS = /^\p{M}+$/u;
const LINE_BREAKS = /^\n+$/;
/** What may follow a word in pdftotext's text where its word boxes end the word: marks, then no letter. */
const WORD_ENDS = /^\p{M}*(?![\p{L}\p{M}\p{N}\u200C\u200D])/u;
/** Below this many viramas, a page's share says little. */
const MIN_VIRAMAS = 5;
/**
 * Correct Tamil text has a space after about a third of its viramas (0.31-0.34 in the sample
 * curriculum), these files after nearly all that do not end a line; pages between only cost a
 * look at their glyphs.
 */
const MIN_SHARE_BEFORE_SPACE = 0.45;
/**
 * How far, as a share of the line's height, a glyph may end from where the next is drawn: kerning,
 * as in bold, moves the next cluster a little. A space is wider.
 */
const NEAR_PLACE = 0.1;
/** The widest gap inside a word, as a share of the line's height; a space is at least 0.2 em, about 0.13 of it. */
const SAME_WORD = 0.05;
/** The widest gap between a numeral and its suffix (above) where the line draws its spaces as glyphs. */
const NUMERAL_SUFFIX_GAP = 0.25;
/** A numeral's suffix is short: at most this many grapheme clusters (කට, ක්, කි., வது, ஆவது), punctuation after it aside. */
const SUFFIX_CLUSTERS = 3;
const TRAILING_PUNCTUATION = /\p{P}+$/u;

/**
 * A consonant with its virama alone after a Sinhala or Tamil word: the end of a word broken off
 * (බැවි න්, වර්ෂාව ක්). Correct text has one after a numeral (1750 ත් 2500 ත් අතර, 7/12 ක්), or
 * in a list of letters (a language lesson's க் ங் ச்), whose file is then looked at for nothing:
 * none after a word in the sample curriculum's or the shared evaluation sets' Sinhala and Tamil.
 */
const LAST_LETTER_ALONE = /[\u0B80-\u0BFF\u0D80-\u0DFF] [\u0B95-\u0BB9\u0D9A-\u0DC6][\u0BCD\u0DCA](?![\p{L}\p{M}\u200C\u200D])/gu;
const SINHALA_OR_TAMIL_WORD = /[\u0B80-\u0BFF\u0D80-\u0DFF]+/gu;
/**
 * Fewer than one in this many Sinhala and Tamil words: pieces left where a text's words are put
 * together in any order (the benchmark's generated pages: one in 1,800), not a font's fault (one
 * in 80 in LKLUG's file by cairo).
 */
const WORDS_PER_BREAK = 500;

/**
 * A Sinhala or Tamil independent vowel (අ, ඒ, இ) after a letter or sign of the same word: where a
 * word starting with a vowel was run into the one before it (නිසාඒවාඇති). Correct text has one in
 * about 900 words (compounds, Tamil initialisms: නුවරඑළිය, டிஆர்டிஓ).
 */
const VOWEL_INSIDE_WORD = /[\u0D80-\u0DFF\u0B80-\u0BFF](?=[\u0D85-\u0D96\u0B85-\u0B94])/gu;
/** At least one in this many Sinhala and Tamil words: words run together (one in 66 in Chromium's LKLUG fallback file). */
const WORDS_PER_VOWEL_INSIDE = 200;
const MIN_VOWELS_INSIDE = 2;

/**
 * Whether a file embeds LKLUG, which declares some glyphs wider or narrower than producers draw
 * them (above: cairo's breaks before a last letter, Chromium's and LibreOffice's words run
 * together after ා). Its text shows the fault only where a page has enough of the words it
 * meets (a page of words ending in ා before ones starting with a consonant shows no sign), so
 * every Sinhala and Tamil page of such a file is looked at. Names as pdffonts gives them, after
 * a subset's tag (`ABCDEF+LKLUG`).
 */
export const embedsLklug = (fonts: string[]): boolean => fonts.some((name) => /^(?:[A-Z]{6}\+)?LKLUG(?:$|[-,])/.test(name));

/**
 * Whether a file's producer sets a numeral apart from its suffix (LibreOffice, above; the name
 * OpenOffice's descendants give in the file's information). Only its pages with a numeral before a
 * Sinhala or Tamil word (numeralBeforeWord) are looked at: a look at a page's glyphs costs three
 * times what reading its text does.
 */
export const setsNumeralsApart = (producer: string | undefined): boolean => /^(?:LibreOffice|OpenOffice)/.test(producer ?? '');

/** Whether a page's text has a numeral and then a Sinhala or Tamil word, a space apart. */
export const numeralBeforeWord = (page: string): boolean => NUMERAL_BEFORE_WORD.test(page);

/** Whether a page's text has Sinhala or Tamil, whose fonts' glyphs are moved about (above). */
export const hasSinhalaOrTamil = (page: string): boolean => SINHALA_OR_TAMIL.test(page);

/**
 * Whether a file's text shows words broken before their last letter, as LKLUG's by cairo above.
 * The fault is the font's: where a file shows it, every page may have it.
 */
export function breaksBeforeLastLetter(pages: string[]): boolean {
  return showsOften(pages, LAST_LETTER_ALONE, 1, WORDS_PER_BREAK);
}

/** Whether a file's text shows words run together at a space that poppler did not see, as LKLUG's fallback above. */
export function runsWordsTogether(pages: string[]): boolean {
  return showsOften(pages, VOWEL_INSIDE_WORD, MIN_VOWELS_INSIDE, WORDS_PER_VOWEL_INSIDE);
}

/** Whether a file's text has `pattern` at least `least` times and at least once in every `perWords` of its Sinhala and Tamil words. */
function showsOften(pages: string[], pattern: RegExp, least: number, perWords: number): boolean {
  const text = pages.join('\n');
  const found = text.match(pattern)?.length ?? 0;
  return found >= least && found * perWords >= (text.match(SINHALA_OR_TAMIL_WORD)?.length ?? 0);
}

/**
 * Whether a page's text (pdftotext's) shows words broken at their marks, as above: nearly every
 * virama before a space, or one apart from its letter. Only such pages' glyphs are looked at.
 */
export function breaksAfterMarks(page: string): boolean {
  if (VIRAMA_ALONE.test(page)) return true;
  const viramas = page.match(VIRAMA)?.length ?? 0;
  return viramas >= MIN_VIRAMAS && (page.match(VIRAMA_BEFORE_WORD)?.length ?? 0) >= MIN_SHARE_BEFORE_SPACE * viramas;
}

/**
 * For each pair of neighbouring words ("first second") where the first ends in a mark, or ends in
 * Sinhala or Tamil and the second goes on in it or is punctuation, whether the file shows them to
 * be one word, at each place the page has them, in poppler's order: the second starts where the
 * first ends (cairo), or where the word ends that the first, a mark alone, is drawn inside
 * (LibreOffice, cairo), or, the first ending in a mark, the glyph of its last letter reaches the
 * second (spannedByGlyph; Chromium, Typst).
 */
export function brokenWordPairs(words: WordBox[], drawn: DrawnGlyph[], { numeralsApart = false }: { numeralsApart?: boolean } = {}): WordPairs {
  const pairs: WordPairs = new Map();
  const drawnOn = onLine(drawn);
  for (let i = 0; i + 1 < words.length; i++) {
    const [before, a, b] = [words[i - 1], words[i]!, words[i + 1]!];
    const height = a.yMax - a.yMin;
    const marked = ENDS_IN_MARK.test(a.text);
    const sinhalaOrTamil = ENDS_IN_SINHALA_OR_TAMIL.test(a.text) && GOES_ON_SINHALA_OR_TAMIL.test(b.text);
    const numeral = numeralsApart && ENDS_IN_NUMERAL.test(a.text) && STARTS_IN_SINHALA_OR_TAMIL.test(b.text);
    if (!(marked || sinhalaOrTamil || numeral)) continue;
    // a mark alone is LibreOffice's or cairo's, whose glyph widths pdf.js gets wrong: it is one
    // word with the next only drawn inside the word before it
    const alone = ONLY_MARKS.test(a.text);
    const inside = alone && before !== undefined && sameLine(before, a) && a.xMin >= before.xMin && a.xMin < before.xMax;
    const end = inside ? before.xMax : alone ? undefined : a.xMax;
    // a word further along the line than a line's height is the next word; one that starts
    // before the first does is drawn elsewhere on the line (a right-aligned label drawn first)
    const near = b.xMin - a.xMax <= height && b.xMin > a.xMin;
    // a pair on two lines is two words, and a place all the same: the text parts it with a line break
    const oneWord =
      sameLine(a, b) &&
      near &&
      end !== undefined &&
      (numeral ? suffixApart(a, b, drawnOn(a)) : b.xMin - end <= SAME_WORD * height || (marked && !alone && spannedByGlyph(a, b, drawnOn(a)))) &&
      !spaceBefore(a, b, drawnOn(a));
    addPlace(pairs, `${a.text} ${b.text}`, oneWord);
  }
  return pairs;
}

/**
 * For each pair of neighbouring words ("first second") on a line that pdftotext's word boxes part
 * though the second starts before the first ends, or right there (so its text runs them
 * together), whether a space glyph is drawn between them at each place: the second starts where
 * a space drawn after the first's start ends.
 */
export function spacedWordPairs(words: WordBox[], drawn: DrawnGlyph[]): WordPairs {
  const pairs: WordPairs = new Map();
  const drawnOn = onLine(drawn);
  for (const [i, a] of words.entries()) {
    // LibreOffice: words one box, with spaces drawn inside it
    const parts = partsAtSpaces(a, drawnOn(a));
    for (let k = 0; k + 1 < parts.length; k++) addPlace(pairs, `${parts[k]} ${parts[k + 1]}`, true);
    const b = words[i + 1];
    if (!b || !sameLine(a, b) || b.xMin <= a.xMin || b.xMin - a.xMax > SAME_WORD * (a.yMax - a.yMin)) continue;
    addPlace(pairs, `${a.text} ${b.text}`, spaceBefore(a, b, drawnOn(a)));
  }
  return pairs;
}

/**
 * The words of a box with space glyphs drawn inside it (LibreOffice draws a line's spaces apart
 * from its words), by the text of the glyphs drawn on either side of each; none when the box has
 * no such space or its glyphs' text cannot be lined up with the box's (alignedParts).
 */
function partsAtSpaces(word: WordBox, line: DrawnGlyph[]): string[] {
  const spaces = line
    .filter((glyph) => glyph.space && glyph.x > word.xMin && glyph.x + glyph.width < word.xMax)
    .map((glyph) => glyph.x + glyph.width / 2)
    .sort((x, y) => x - y);
  if (spaces.length === 0) return [];
  // a glyph is the box's when its middle is: a font that declares a glyph wider than it draws it
  // (LKLUG's ා) makes the box reach over the start of the next word's first letter
  const middle = (glyph: DrawnGlyph) => glyph.x + glyph.width / 2;
  const letters = line.filter((glyph) => !glyph.space && middle(glyph) >= word.xMin && middle(glyph) < word.xMax);
  const between = Array.from({ length: spaces.length + 1 }, () => '');
  for (const glyph of letters) between[spaces.filter((middle) => middle <= glyph.x).length] += glyph.text;
  // two spaces drawn side by side part the words once
  const sides = between.filter((side) => side !== '');
  if (sides.length < 2) return [];
  return sides.join('') === word.text ? sides : alignedParts(word.text, sides);
}

/** The text of a glyph its font does not map (a control code, pdf.js's own for a code below 32, or U+FFFD): a letter of poppler's text, unknown. */
const UNMAPPED = /[\p{Cc}\uFFFD]/u;
/** The most edits of the sides from their parts, for each letter of the box. */
const MOST_EDITS = 1 / 2;
/** How many edits fewer the parting taken has than any other. */
const LEAST_MARGIN = 2;
const clusters = new Intl.Segmenter('si', { granularity: 'grapheme' });
/** The longest box (letters) and the most words in one that are lined up: a few words run together; more is no such box, and the search grows with both. */
const LONGEST_BOX = 64;
const MOST_SIDES = 4;

/**
 * `text` parted into as many words as there are `sides`, the text pdf.js gives the glyphs drawn
 * between the spaces (in drawn order, some glyphs mapped otherwise than poppler maps them, as
 * LKLUG's ෙ as වේ in LibreOffice's files): at the cluster boundaries whose parts are the fewest
 * edits from their sides. None unless that parting has LEAST_MARGIN edits fewer than any other
 * and no more than MOST_EDITS in all: a guess that could break a correct word is not made.
 */
export function alignedParts(text: string, sides: string[]): string[] {
  const chars = [...text];
  const letters = sides.map((side) => [...side].map((c) => (UNMAPPED.test(c) ? undefined : c)));
  const drawn = letters.reduce((n, side) => n + side.length, 0);
  // a parting takes at least as many edits as the lengths differ: past MOST_EDITS none is taken
  if (chars.length > LONGEST_BOX || sides.length > MOST_SIDES || Math.abs(drawn - chars.length) > MOST_EDITS * chars.length) return [];
  if (letters.some((side) => side.length === 0)) return [];
  // the ends of the clusters (in letters), but for one ending in a joiner, which joins the next letter (ශ්‍|රේ)
  const cuts: number[] = [];
  for (const { segment } of clusters.segment(text)) cuts.push((cuts.at(-1) ?? 0) + [...segment].length);
  const inner = cuts.slice(0, -1).filter((cut) => chars[cut - 1] !== '\u200D');
  // the two partings with the fewest edits of the text from letter `start` on into the sides from `from` on
  type Parting = { edits: number; parts: string[] };
  const memo = new Map<string, Parting[]>();
  const best = (from: number, start: number): Parting[] => {
    const key = `${from} ${start}`;
    const known = memo.get(key);
    if (known) return known;
    const last = from === sides.length - 1;
    // one pass gives the side's edits from every part starting here
    const edits = editDistances(letters[from]!, chars.slice(start));
    const found: Parting[] = [];
    for (const end of last ? [chars.length] : inner.filter((cut) => cut > start)) {
      const rests: Parting[] = last ? [{ edits: 0, parts: [] }] : best(from + 1, end);
      for (const rest of rests) found.push({ edits: edits[end - start]! + rest.edits, parts: [chars.slice(start, end).join(''), ...rest.parts] });
    }
    found.sort((x, y) => x.edits - y.edits);
    const kept = found.slice(0, 2);
    memo.set(key, kept);
    return kept;
  };
  const [first, second] = best(0, 0);
  const certain = first && (!second || second.edits >= first.edits + LEAST_MARGIN) && first.edits <= MOST_EDITS * chars.length;
  return certain ? first.parts : [];
}

/** Levenshtein's distance of `a` from every prefix of `b` (index j: b[0..j)), where an unmapped letter (undefined) stands for any one letter. */
function editDistances(a: (string | undefined)[], b: string[]): number[] {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (const [i, x] of a.entries()) {
    const row = [i + 1];
    for (const [j, y] of b.entries()) row.push(Math.min(previous[j + 1]! + 1, row[j]! + 1, previous[j]! + (x === undefined || x === y ? 0 : 1)));
    previous = row;
  }
  return previous;
}

/** Whether a space glyph drawn after the start of `a` ends where `b` starts. */
function spaceBefore(a: WordBox, b: WordBox, line: DrawnGlyph[]): boolean {
  const height = a.yMax - a.yMin;
  return line.some((glyph) => glyph.space && glyph.x > a.xMin && Math.abs(glyph.x + glyph.width - b.xMin) <= NEAR_PLACE * height);
}

/**
 * The page's text with a space put back between the `pairs` whose every place is spaced, where the
 * text runs them together (ලබාදෙන, නිසාඒවාඇති: each pair in turn).
 */
export function splitWords(page: string, pairs: WordPairs): string {
  const spaced = [...pairs].flatMap(([pair, places]) => {
    const space = pair.indexOf(' ');
    return places.every(Boolean) ? [[pair.slice(0, space), pair.slice(space + 1)] as const] : [];
  });
  if (spaced.length === 0) return page;
  return page.replace(/\S+/gu, (word) => {
    const parts: string[] = [];
    let start = 0;
    for (;;) {
      const next = spaced.find(([first, second]) => word.startsWith(first, start) && word.startsWith(second, start + first.length));
      if (!next) break;
      parts.push(next[0]);
      start += next[0].length;
    }
    return parts.length === 0 ? word : [...parts, word.slice(start)].join(' ');
  });
}

/** Notes one more place of a pair, in the page's order. */
function addPlace(pairs: WordPairs, key: string, value: boolean): void {
  const places = pairs.get(key);
  if (places) places.push(value);
  else pairs.set(key, [value]);
}

const sameLine = (a: WordBox, b: WordBox) => Math.abs(a.yMin - b.yMin) <= 0.25 * (a.yMax - a.yMin);

/** The items whose baseline is within a word's height, found once for each line a page's words are on. */
function onLine<T extends { y: number }>(items: T[]): (word: WordBox) => T[] {
  const lines = new Map<string, T[]>();
  return (word) => {
    const key = `${word.yMin} ${word.yMax}`;
    let line = lines.get(key);
    if (!line) lines.set(key, (line = items.filter((item) => item.y >= word.yMin && item.y <= word.yMax)));
    return line;
  };
}

/** Whether a space glyph is drawn in the gap between `a` and `b` (its middle there). */
function spaceInGap(a: WordBox, b: WordBox, line: DrawnGlyph[]): boolean {
  const slack = SAME_WORD * (a.yMax - a.yMin);
  return line.some((glyph) => glyph.space && glyph.x + glyph.width / 2 >= a.xMax - slack && glyph.x + glyph.width / 2 <= b.xMin + slack);
}

/**
 * Whether a glyph drawn on the line of `a` starts before the gap, reaches across it and ends where
 * `b` starts (the letter that the mark was moved back onto), and no space glyph is drawn in the gap.
 */
function spannedByGlyph(a: WordBox, b: WordBox, line: DrawnGlyph[]): boolean {
  const height = a.yMax - a.yMin;
  return (
    line.some(
      (glyph) =>
        !glyph.space && glyph.x < a.xMax && glyph.x + glyph.width > a.xMax + SAME_WORD * height && Math.abs(glyph.x + glyph.width - b.xMin) <= NEAR_PLACE * height,
    ) && !spaceInGap(a, b, line)
  );
}

/**
 * Whether `b`, after the numeral `a`, is its suffix set apart (LibreOffice, above): a suffix's
 * length (SUFFIX_CLUSTERS), the line draws its spaces as glyphs, none in the gap, and the gap is
 * narrower than NUMERAL_SUFFIX_GAP. A table's number cell is as near the next cell (Calc's
 * margins), whose text is seldom that short.
 */
function suffixApart(a: WordBox, b: WordBox, line: DrawnGlyph[]): boolean {
  return (
    [...clusters.segment(b.text.replace(TRAILING_PUNCTUATION, ''))].length <= SUFFIX_CLUSTERS &&
    b.xMin - a.xMax <= NUMERAL_SUFFIX_GAP * (a.yMax - a.yMin) &&
    line.some((glyph) => glyph.space) &&
    !spaceInGap(a, b, line)
  );
}

/**
 * The page's text with the `pairs` that are one word, where a single space or line break parts
 * them, made one word (pdftotext's `-raw` breaks the line where a glyph is drawn back over the one
 * before: ලංකා | වේ in Chromium's LKLUG). pdftotext's text writes a word and the punctuation or a
 * mark alone that touches it as one (படும்., துளிகள்), where its word boxes have two, so the second
 * word may be followed by them in the text. A pair that is one word in some places and two in
 * others is settled place by place, in order, when the text has it as many times as the word
 * boxes (line breaks and blank lines count); otherwise it is joined only where a space parts it,
 * and only if it is one word in every place.
 */
export function joinWords(page: string, pairs: WordPairs): string {
  if (![...pairs.values()].some((places) => places.includes(true))) return page;
  const byFirst = Map.groupBy(pairs.keys(), (pair) => pair.slice(0, pair.indexOf(' ')));
  // the pair whose first word is `before` and whose second is `after` but for what follows it, as
  // above, or, after a line break, any word run into it (-raw's text has උදෑ | සන where its boxes
  // have උදෑ | ස | න); the longest such second word, should another be it without its marks
  const pairAt = (before: string, space: string, after: string) =>
    space === ' ' || LINE_BREAKS.test(space)
      ? byFirst
          .get(before)
          ?.filter((pair) => after.startsWith(pair.slice(before.length + 1)) && (space === '\n' || WORD_ENDS.test(after.slice(pair.length - before.length - 1))))
          .reduce<string | undefined>((longest, pair) => (longest && longest.length >= pair.length ? longest : pair), undefined)
      : undefined;
  const parts = page.split(/(\s+)/u);
  const gaps = Array.from({ length: (parts.length - 1) >> 1 }, (_, g) => pairAt(parts[2 * g]!, parts[2 * g + 1]!, parts[2 * g + 2]!));
  const found = new Map<string, number>();
  for (const pair of gaps) if (pair) found.set(pair, (found.get(pair) ?? 0) + 1);
  const seen = new Map<string, number>();
  let out = parts[0]!;
  gaps.forEach((pair, g) => {
    const space = parts[2 * g + 1]!;
    let oneWord = false;
    if (pair) {
      const places = pairs.get(pair)!;
      const n = seen.get(pair) ?? 0;
      seen.set(pair, n + 1);
      oneWord = (space === ' ' || space === '\n') && (places.length === found.get(pair) ? places[n]! : space === ' ' && places.every(Boolean));
    }
    out += (oneWord ? '' : space) + parts[2 * g + 2]!;
  });
  return out;
}
