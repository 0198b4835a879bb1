import { SINHALA_OR_TAMIL } from '../text/scripts.js';

// A PDF's text layer is what its fonts say each glyph means (their ToUnicode maps), not what the
// page shows. Some tools rewrite those maps wrongly: Ghostscript's pdfwrite and ps2pdf (behind
// many "compress PDF" and "print to PDF" steps) cut Sinhala and Tamil entries to stray bytes, so
// letters of other scripts land inside the words ("ශ쇓 ලංකÏවෙ샊"), or turn the text into symbols
// after pdf2ps; legacy 8-bit Tamil fonts (TSCII) give accented Latin letters ("þÄí¨¸Â¢ý").
// Indexed, such a file answers nothing and cites garbage, so it is refused, saying what to do.
// Correct text has none of these: measured on 60 files of nine producers (README "Reading PDFs").

/** A letter or mark of a script that never appears inside a Sinhala or Tamil word. */
const FOREIGN_IN_WORD = /[^\p{ASCII}\u0D80-\u0DFF\u0B80-\u0BFF\u200C\u200D\p{P}\p{N}\p{S}]/u;
/** Letters of Latin-1 and Latin Extended-A/B: a few in a European name, all of TSCII text. */
const ACCENTED_LATIN = /[\u00C0-\u024F]/u;
const LETTER = /\p{L}/u;
/** Symbols and private-use characters: what pdf2ps leaves of a font's letters. */
const SYMBOL = /[\p{So}\p{Co}]/u;

/** Below this many words or letters, a share says little. */
const MIN_COUNT = 20;
const MAX_MIXED_SHARE = 0.2;
const MAX_ACCENTED_SHARE = 0.5;
const MAX_SYMBOL_SHARE = 0.5;

/** Why the text read from a PDF cannot be what its pages show, or undefined; completes "<file> is not a readable PDF: ". */
export function textLayerProblem(pages: string[], producer: string | undefined): string | undefined {
  const text = pages.join('\n');
  const tokens = text.split(/\s+/);
  const chars = [...text];
  const madeBy = producer ? ` (this file was made by ${producer})` : '';
  const again = 'Export or print it again from the original document (for example with a browser or LibreOffice) and upload it again';

  const words = tokens.filter((word) => SINHALA_OR_TAMIL.test(word));
  const mixed = words.filter((word) => FOREIGN_IN_WORD.test(word));
  if (words.length >= MIN_COUNT && mixed.length > MAX_MIXED_SHARE * words.length) {
    return (
      `its text layer does not match what its pages show: ${mixed.length} of its ${words.length} Sinhala and Tamil words have letters of other scripts inside ` +
      `(for example ${examples(mixed)}), which happens when a tool rewrites a file's fonts${madeBy}. ${again}`
    );
  }

  const letters = chars.filter((char) => LETTER.test(char));
  const accented = letters.filter((char) => ACCENTED_LATIN.test(char)).length;
  if (letters.length >= MIN_COUNT && accented > MAX_ACCENTED_SHARE * letters.length) {
    const latinWords = tokens.filter((word) => ACCENTED_LATIN.test(word));
    return (
      `its text comes out as accented Latin letters (for example ${examples(latinWords)}): it is typed in a legacy 8-bit font (such as the TSCII Tamil fonts) ` +
      'that stores Tamil or Sinhala letters in the places of Latin ones, so it cannot be searched. ' +
      'Save it again with a Unicode font (for example Noto Sans Tamil, Latha or Noto Sans Sinhala) and upload it again'
    );
  }

  const visible = chars.filter((char) => /\S/u.test(char));
  const symbols = visible.filter((char) => SYMBOL.test(char)).length;
  if (visible.length >= MIN_COUNT && symbols > MAX_SYMBOL_SHARE * visible.length) {
    const symbolWords = tokens.filter((word) => SYMBOL.test(word));
    return `its text layer holds symbols instead of letters (for example ${examples(symbolWords)})${madeBy}. ${again}`;
  }
  return undefined;
}

function examples(words: string[]): string {
  return [...new Set(words)]
    .slice(0, 3)
    .map((word) => `'${word}'`)
    .join(', ');
}
