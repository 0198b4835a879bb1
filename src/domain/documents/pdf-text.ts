import { normalise } from '../text/normalise.js';
import { joinSoftHyphens } from './line-end-hyphens.js';
import { hasSinhalaOrTamil } from './mark-gaps.js';

// Text extracted from Sinhala and Tamil PDFs is in visual order: a vowel sign drawn before its
// consonant (ෙ, ේ, ෛ; ெ, ே, ை) comes before it, and the second half of a two-part vowel (ො =
// ෙ + ා, ொ = ெ + ா) stays after it. Moving the sign behind the consonant cluster and composing
// (NFC) gives the logical order that was typed.
//
// Logical text never has such a sign right after something other than a consonant, while
// visual text has it at the start of words and after a virama all the time. A script is only
// reordered when it shows that evidence, so correctly ordered text is left as it is.
interface Script {
  visual: RegExp;
  misplaced: RegExp;
}

const SINHALA_CONSONANT = '[\\u0D9A-\\u0DC6]';
const TAMIL_CONSONANT = '[\\u0B95-\\u0BB9]';

const SCRIPTS: Script[] = [
  {
    visual: new RegExp(`(?<!${SINHALA_CONSONANT})[\\u0DD9-\\u0DDB](?=${SINHALA_CONSONANT})`, 'u'),
    // A Sinhala conjunct needs a ZWJ beside the virama; a bare virama after the consonant is the
    // second half of ේ (ෙ + ්). Extraction sometimes doubles the virama inside a conjunct
    // (ෙශ්්‍ර for ශ්‍රේ): the extra one is that half too.
    misplaced: new RegExp(
      `([\\u0DD9-\\u0DDB])(${SINHALA_CONSONANT}(?:(?:\\u0DCA\\u0DCA?\\u200D|\\u200D\\u0DCA)${SINHALA_CONSONANT})*)`,
      'gu',
    ),
  },
  {
    visual: new RegExp(`(?<!${TAMIL_CONSONANT})[\\u0BC6-\\u0BC8](?=${TAMIL_CONSONANT})`, 'u'),
    // Tamil writes no ZWJ: a virama inside the cluster is a conjunct such as க்ஷ.
    misplaced: new RegExp(`([\\u0BC6-\\u0BC8])(${TAMIL_CONSONANT}(?:\\u0BCD${TAMIL_CONSONANT})*)`, 'gu'),
  },
];

// A vowel sign drawn on the first consonant of a Sinhala conjunct comes out before the conjunct's
// virama (කි්‍ර for ක්‍රි). No correctly ordered text has a vowel sign followed by a virama.
const SIGN_INSIDE_CONJUNCT = new RegExp(
  `(${SINHALA_CONSONANT})([\\u0DD0-\\u0DD6\\u0DD8])(\\u0DCA\\u200D${SINHALA_CONSONANT})`,
  'gu',
);

/** Logical order for Sinhala and Tamil text that a PDF gave in visual order; NFC. */
export function repairVisualOrder(text: string): string {
  let out = text.replace(SIGN_INSIDE_CONJUNCT, '$1$3$2');
  for (const { visual, misplaced } of SCRIPTS) {
    if (!visual.test(out)) continue;
    out = out.replace(misplaced, (_, sign: string, cluster: string) => {
      const single = cluster.replace('\u0DCA\u0DCA', '\u0DCA');
      return single === cluster ? cluster + sign : `${single}${sign}\u0DCA`;
    });
  }
  return out.normalize('NFC');
}

// Some fonts draw a mark (Tamil's pulli ், a vowel sign) as a glyph of its own, moved back onto
// the letter before it (Noto Serif Tamil), and readers then see a gap before the mark, or put it
// on the next line (LibreOffice's and cairo's files: இலங ் கையின ் for இலங்கையின்); LibreOffice
// breaks a Sinhala line inside a conjunct, after its virama and ZWJ (ප්‍ | රමාණය). Correct text
// never has a space before a mark that follows its letter, nor a ZWJ conjunct at a word's end,
// so those spaces go. Signs drawn before their letter (ෙ, ே) may start a word in visual order.
const DETACHED_SIGN = /\s+(?=[\u0D81-\u0D83\u0DCA\u0DCF-\u0DD8\u0DDC-\u0DDF\u0DF2\u0DF3\u0B82\u0BBE-\u0BC2\u0BCA-\u0BCD\u0BD7])/gu;
const SPLIT_CONJUNCT = /(\u0DCA\u200D)\s+(?=[\u0D9A-\u0DC6])/gu;

/** The text with the spaces that a font's detached marks or a line break put inside Sinhala and Tamil words removed. */
export function joinDetachedSigns(text: string): string {
  return text.replace(DETACHED_SIGN, '').replace(SPLIT_CONJUNCT, '$1');
}

// pdftotext's default mode orders a page's blocks of text by where they lie, and misreads lines
// with wide gaps between words as columns (justified Tamil and Sinhala, whose words are long) and
// interleaves the paragraphs of two columns of Tamil. The order the file draws its text in
// (`pdftotext -raw`) reads those exactly, but has no blank lines between blocks (the answerer
// reads headings and paragraphs by them), and is wrong for a file that draws its text out of order.
// So a page keeps the default's text unless the two disagree on the words, and the drawn order
// has the same letters, no more words (a word broken, text drawn twice for bold), no word the
// default does not have (words run together where a layout's spaces are narrow) and no more lines
// (a line broken apart) than the default's.
const words = (page: string) => page.split(/\s+/).filter((word) => word !== '');
const lines = (page: string) => page.split('\n').filter((line) => line.trim() !== '').length;
const letters = (pageWords: string[]) => [...pageWords.join('')].sort().join('');

/**
 * Whether the two readings of a Sinhala or Tamil page have different words: one breaks words that
 * the other has whole, at a line (-raw: ලංකා | වේ) or where cairo places glyphs beyond their
 * widths (ප්‍රශ් න); the word boxes tell which is right (src/domain/documents/mark-gaps.ts).
 */
export function readingsDiffer(placed: string, drawn: string): boolean {
  const sorted = (page: string) => words(page).sort().join(' ');
  return hasSinhalaOrTamil(placed) && sorted(placed) !== sorted(drawn);
}

// A dash alone between words that the default mode dropped with a line break (a heading wrapped
// at "அறிவியல் - தரம் 10 -") and could not put back, the words no longer meeting in its order:
// the two readings are compared without such dashes, and the drawn order keeps its own
const withoutLoneDashes = (pageWords: string[]) => pageWords.filter((word) => !/^\p{Pd}+$/u.test(word));

/** Per page, the text in poppler's reading order (`placed`) or in the file's drawing order (`drawn`), as above. */
export function chooseReadingOrder(placed: string[], drawn: string[]): string[] {
  return placed.map((page, i) => {
    const other = drawn[i] ?? '';
    const [a, b] = [words(page), words(other)];
    if (a.length === b.length && a.every((word, j) => word === b[j])) return page;
    const [placedText, drawnText] = [withoutLoneDashes(a), withoutLoneDashes(b)];
    const placedWords = new Set(placedText);
    const same = drawnText.length <= placedText.length && letters(placedText) === letters(drawnText) && drawnText.every((word) => placedWords.has(word));
    return same && lines(other) <= lines(page) ? other : page;
  });
}

/** The pages a PDF reader gave, as the index sees them: words broken by a soft hyphen and detached signs joined, repaired where in visual order, normalised. */
export function finishPdfPages(pages: string[]): string[] {
  return pages.map((page) => normalise(repairVisualOrder(joinDetachedSigns(joinSoftHyphens(page)))).trim());
}
