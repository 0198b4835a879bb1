import type { Language } from '../../generated/contract-values.js';

// Invisible characters that only get in the way of matching. ZWNJ (U+200C) and ZWJ (U+200D) are
// not here: inside Sinhala words they decide which conjunct is written (ශ්‍ර vs ශ්ර).
const ZERO_WIDTH = /[\u00AD\u180E\u200B\u200E\u200F\u2060-\u2064\uFEFF]/g;
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029]/g;
const SPACE_RUN = /[^\S\n]+/g;

/** NFC, no zero-width characters, one space for any run of spaces, lines trimmed. */
export function normalise(text: string): string {
  return text
    .replace(ZERO_WIDTH, '')
    .normalize('NFC')
    .replace(LINE_BREAK, '\n')
    .replace(SPACE_RUN, ' ')
    .split('\n')
    .map((line) => line.trim())
    .join('\n');
}

const LETTER = /[\p{L}\p{M}]/u;
const LATIN = /\p{Script=Latin}/u;

/** The script most of the letters are written in; English when there are no letters. */
export function detectLanguage(text: string): Language {
  let sinhala = 0;
  let tamil = 0;
  let latin = 0;
  for (const char of text) {
    if (!LETTER.test(char)) continue;
    const code = char.codePointAt(0)!;
    if (code >= 0x0d80 && code <= 0x0dff) sinhala++;
    else if (code >= 0x0b80 && code <= 0x0bff) tamil++;
    else if (LATIN.test(char)) latin++;
  }
  if (sinhala > tamil && sinhala > latin) return 'sinhala';
  if (tamil > sinhala && tamil > latin) return 'tamil';
  return 'english';
}
