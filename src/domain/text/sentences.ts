export interface Span {
  start: number;
  end: number;
}

const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });
/** A list item's bullet and the space after it ("- ", "• ", "● ", "+ " before a word), as a pattern's source. */
export const LIST_BULLET = String.raw`(?:[-•*▪◦–●○■□►➢✓❖◆◇]|\+(?=\s+\p{L}))\s`;
const MARKER_LINE = /^--- PAGE \d+ ---$/gm;
// PDF text breaks lines inside sentences, and the segmenter ends a sentence at every line
// break. Only a blank line (a paragraph break), a list item, an exam item ("1.", "(b)", "(ii)",
// "(අ)") or heading on the next line, or a short line without closing punctuation before a line
// that does not go on in lower case (a title, a heading, page furniture such as "Grade 10
// Science, Unit 4") should end one. Joined, "... Rs. 10,500. (b) How much ...?" would be one
// sentence: the segmenter does not end one before a lower-case letter.
// An exam item's mark allocation at the end of its line ("[1 mark]", "(ලකුණු 2)") and an answer's
// label at the start of the next ("Answer:", "පිළිතුර:", "விடை:") end a sentence too.
const LINE_WRAP = new RegExp(
  String.raw`(?<!\n)(?<!(?:[Mm]arks?|ලකුණු\s*\d+|(?:புள்ளிகள்|மதிப்பெண்கள்)\s*\d*)[\])])(?:(?<!(?:^|\n)[^\n]{0,39}[^\s.!?,;:])\n|\n(?=[a-z]))(?![\n#•*-]|${LIST_BULLET}|\d+[.)] |\(?[a-h]\) |\([ivx]{1,4}\) |\([\p{L}\p{M}]{1,3}\) |(?:[Aa]nswer|ANSWER|[Aa]ns|පිළිතුර|விடை)\s*:)`,
  'gu',
);
// A number alone ("4.", "(2)"): the segmenter ends a sentence after a numbered line's number
const NUMBER_ALONE = /^\(?[0-9ivx]{1,4}[.)]$/iu;
// The segmenter ends a sentence at "?" or "!" even before a lower-case word, as in a spreadsheet's
// error values ("#NAME? appears when ...", "#DIV/0! appears ..."), a factorial ("5! means ...") and
// any word with "!" ("Yahoo! and Google ..."; also "Wow! look ..."), which end none
const MARK_IN_TERM_AT_END = /(?:^|\s)(?:#[^\s#]*[?!]|[\p{L}\p{M}\p{N}]+!)$/u;
const LOWER_CASE_START = /^[a-z]/u;
// A Sinhala or Tamil abbreviation of dotted parts, an era's or a name's initials ("கி.பி. 1017 இல்",
// "கி.பி. பத்தாம் நூற்றாண்டின்", "ක්‍රි.ව. 1070 දී", "ඩී.එස්. සේනානායක"), ends no sentence before a
// Sinhala or Tamil word or a number; nor does "A.D." before a year
const SINHALA_TAMIL_PART = String.raw`[\u0D80-\u0DFF\u0B80-\u0BFF\u200D]{1,8}\.`;
const SINHALA_TAMIL_ABBREVIATION_AT_END = new RegExp(`(?:^|[\\s(])(?:${SINHALA_TAMIL_PART}){2,5}$`, 'u');
const ENGLISH_ERA_AT_END = /(?:^|\s|\()(?:A\.D|B\.C|C\.E|B\.C\.E)\.$/u;
const SINHALA_TAMIL_OR_DIGIT_START = /^[\p{N}\u0D80-\u0DFF\u0B80-\u0BFF]/u;
const DIGIT_START = /^\p{N}/u;
// The segmenter also ends a sentence where no space follows: inside a formula, after a prime
// ("A'.B'") or a stop before a parenthesis ("X = A.(B + B')"), and between the dotted parts of a
// Sinhala or Tamil abbreviation ("கி.பி.", "ඩී.එස්.": a part, then another). Elsewhere a missing
// space is the text's ("කොළඹ වේ.එය ...", "in 1948.The ...") and ends the sentence.
const FORMULA_AT_END = /(?:['’′]\.|\.[([])$/u;
const SINHALA_TAMIL_PART_AT_END = new RegExp(`(?:^|[\\s(.])${SINHALA_TAMIL_PART}$`, 'u');
const SINHALA_TAMIL_PART_START = new RegExp(`^${SINHALA_TAMIL_PART}`, 'u');

/**
 * Where the sentences of a text are: each span starts and ends at non-whitespace.
 */
export function sentenceSpans(text: string): Span[] {
  const spans: Span[] = [];
  // Same length as `text`, so the segments' offsets point into it.
  const joined = text.replace(LINE_WRAP, ' ');
  for (const { segment, index } of SENTENCES.segment(joined)) {
    const lead = segment.length - segment.trimStart().length;
    const content = segment.trim();
    if (content === '') continue;
    const previous = spans.at(-1);
    const gap = previous ? text.slice(previous.end, index + lead) : '';
    if (previous && !gap.includes('\n') && goesOn(text.slice(previous.start, previous.end), gap, content)) previous.end = index + lead + content.length;
    else spans.push({ start: index + lead, end: index + lead + content.length });
  }
  return spans;
}

/**
 * Whether the segmenter's cut between `last` and `next` on one line, `gap` apart, is undone (the
 * cuts above), or `last` is a numbered line's number, which belongs to the sentence after it
 * ("1. The unit of ...").
 */
function goesOn(last: string, gap: string, next: string): boolean {
  return (
    (gap === '' && FORMULA_AT_END.test(last)) ||
    (gap === '' && SINHALA_TAMIL_PART_AT_END.test(last) && SINHALA_TAMIL_PART_START.test(next)) ||
    NUMBER_ALONE.test(last) ||
    (MARK_IN_TERM_AT_END.test(last) && LOWER_CASE_START.test(next)) ||
    (SINHALA_TAMIL_ABBREVIATION_AT_END.test(last) && SINHALA_TAMIL_OR_DIGIT_START.test(next)) ||
    (ENGLISH_ERA_AT_END.test(last) && DIGIT_START.test(next))
  );
}

/** The sentences of a text, trimmed, with page marker lines left out and line breaks as spaces. */
export function sentences(text: string): string[] {
  const plain = text.replace(MARKER_LINE, '');
  return sentenceSpans(plain).map(({ start, end }) => plain.slice(start, end).replace(/\s+/g, ' '));
}
