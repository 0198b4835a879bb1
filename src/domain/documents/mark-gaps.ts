// Some fonts draw a mark (Tamil's pulli ்) as a glyph of its own, moved back onto its letter:
// Noto Serif Tamil in Chromium's and Typst's files. Chromium writes each cluster's text once
// for all its glyphs (an ActualText span), and poppler ends the cluster where its last glyph,
// the mark, ends: halfway into the letter. The next cluster starts a letter's half later, a gap
// as wide as a space, so pdftotext breaks the word there (இலங் கையின் for இலங்கையின்). No text
// rule tells that gap from a space after a word ending in a pulli (a third of Tamil words), but
// the file does: a space between words is a glyph of its own, and inside the word the letter's
// glyph spans the gap. So where a page shows the break, each gap after a mark is looked up in
// the glyphs' positions (pdf.js's text runs), and joined when a glyph, not a space, fills it.

/** A word as pdftotext's `-bbox` gives it: points from the page's top left corner. */
export interface WordBox {
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** A run of horizontal glyphs (pdf.js's text item): its text, baseline start and width, same coordinates. */
export interface GlyphRun {
  text: string;
  x: number;
  y: number;
  width: number;
}

const VIRAMA = /[\u0BCD\u0DCA]/gu;
const VIRAMA_BEFORE_WORD = /[\u0BCD\u0DCA](?= \p{L})/gu;
/** A word that ends in a mark, the glyph that may end its cluster early. */
const ENDS_IN_MARK = /\p{M}$/u;
/** Below this many viramas, a page's share says little. */
const MIN_VIRAMAS = 5;
/**
 * Correct Tamil text has a space after about a third of its viramas (0.31-0.34 in the sample
 * curriculum), these files after nearly all that do not end a line; pages between only cost a
 * look at their glyphs.
 */
const MIN_SHARE_BEFORE_SPACE = 0.45;
/** How far apart, as shares of the line's height, poppler and pdf.js may place the same glyph, and a run's width may end from the next glyph. */
const SAME_PLACE = 0.02;
const NEAR_PLACE = 0.1;

/** Whether a page's text (pdftotext's) shows words broken after their marks, as above. */
export function breaksAfterMarks(page: string): boolean {
  const viramas = page.match(VIRAMA)?.length ?? 0;
  return viramas >= MIN_VIRAMAS && (page.match(VIRAMA_BEFORE_WORD)?.length ?? 0) >= MIN_SHARE_BEFORE_SPACE * viramas;
}

/**
 * The pairs of neighbouring words ("first second") that the glyphs show to be one word: the first
 * ends in a mark and the glyphs of its last cluster reach the second (filledByGlyphs). A pair also seen apart on the page is left out.
 */
export function wordsJoinedByGlyphs(words: WordBox[], runs: GlyphRun[]): Set<string> {
  const joined = new Set<string>();
  const apart = new Set<string>();
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i]!, words[i + 1]!];
    if (!ENDS_IN_MARK.test(a.text) || b.xMin <= a.xMax) continue;
    // a word of the next line, or one further along this line
    if (Math.abs(a.yMin - b.yMin) > 0.25 * (a.yMax - a.yMin) || b.xMin - a.xMax > a.yMax - a.yMin) continue;
    const key = `${a.text} ${b.text}`;
    (filledByGlyphs(a, b, runs) ? joined : apart).add(key);
  }
  for (const key of apart) joined.delete(key);
  return joined;
}

/**
 * Whether the glyphs show the gap inside a word: on the pair's line, a run of glyphs that ends in
 * the first word's mark starts before the gap and reaches across it, and the next run starts where the second
 * word does. pdf.js's widths are the font's own, so they may differ a little from where the file
 * places the next glyph (kerning) and a lot from where poppler places words in some files
 * (LibreOffice's and cairo's fonts): both readers must agree on where the next cluster starts.
 * pdf.js joins a space with glyphs drawn after it and gives the run a width that may reach over
 * them, so such a run's start counts, not its end.
 */
function filledByGlyphs(a: WordBox, b: WordBox, runs: GlyphRun[]): boolean {
  const height = a.yMax - a.yMin;
  const line = runs.filter((run) => run.y >= a.yMin && run.y <= a.yMax);
  const starts = (run: GlyphRun) => /^\S/u.test(run.text) && Math.abs(run.x - b.xMin) <= SAME_PLACE * height;
  const reaches = (run: GlyphRun) =>
    !/\s/u.test(run.text) && run.text.at(-1) === a.text.at(-1) && run.x <= a.xMax && Math.abs(run.x + run.width - b.xMin) <= NEAR_PLACE * height;
  return line.some(starts) && line.some(reaches);
}

/** The page's text with each pair of `joined` words, where a single space parts them, made one word. */
export function joinWords(page: string, joined: Set<string>): string {
  if (joined.size === 0) return page;
  const parts = page.split(/(\s+)/u);
  let out = parts[0]!;
  for (let i = 1; i + 1 < parts.length; i += 2) {
    const [before, space, after] = [parts[i - 1]!, parts[i]!, parts[i + 1]!];
    out += (space === ' ' && joined.has(`${before} ${after}`) ? '' : space) + after;
  }
  return out;
}
