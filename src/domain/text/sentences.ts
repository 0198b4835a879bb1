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
// error values ("#NAME? appears when ...", "#DIV/0! appears ..."): a sentence does not start so
const ASKS_OR_EXCLAIMS = /[?!]$/u;
const LOWER_CASE_START = /^[a-z]/u;
// An abbreviation of dotted parts, such as an era's ("கி.பி. 1017 இல்", "ක්‍රි.ව. 1070 දී", "A.D. 1070"),
// ends no sentence before a number, a lower-case word or a Sinhala or Tamil one
const DOTTED_ABBREVIATION_AT_END = /(?:^|\s|\()(?:[\p{L}\p{M}\u200C\u200D]{1,6}\.){2,3}$/u;
const GOES_ON = /^[\p{N}\p{Ll}\u0D80-\u0DFF\u0B80-\u0BFF]/u;

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
    const gap = previous ? text.slice(previous.end, index + lead) : '\n';
    const before = gap.includes('\n') ? undefined : text.slice(previous!.start, previous!.end);
    // a sentence ends before a space: the segmenter ends one inside a formula too ("A'.B'",
    // "X = A.(B + B')"); and a numbered line's number belongs to the sentence after it on its line
    // ("1. The unit of ...")
    const goesOn =
      gap === '' ||
      NUMBER_ALONE.test(before ?? '') ||
      (ASKS_OR_EXCLAIMS.test(before ?? '') && LOWER_CASE_START.test(content)) ||
      (DOTTED_ABBREVIATION_AT_END.test(before ?? '') && GOES_ON.test(content));
    if (before !== undefined && goesOn) previous!.end = index + lead + content.length;
    else spans.push({ start: index + lead, end: index + lead + content.length });
  }
  return spans;
}

/** The sentences of a text, trimmed, with page marker lines left out and line breaks as spaces. */
export function sentences(text: string): string[] {
  const plain = text.replace(MARKER_LINE, '');
  return sentenceSpans(plain).map(({ start, end }) => plain.slice(start, end).replace(/\s+/g, ' '));
}
