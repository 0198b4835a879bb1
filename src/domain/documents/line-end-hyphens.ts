// A line that ends in a hyphen: pdftotext's reading order joins it to the next line without the
// hyphen ("north-" / "east" becomes "northeast"), its drawn order (-raw) keeps the two parts on
// their lines. Word processors and browsers break lines only at the hyphens a text has
// ("north-east", "8-bit", "1990-1995") unless hyphenation is turned on, and a word that a layout
// hyphenated is most often found whole elsewhere in the same document. So the hyphen stays, unless
// the joined word also appears in the document away from a line's end.
// A soft hyphen shown at a line's end is the layout's own (Chromium writes it as U+2010 HYPHEN,
// other producers keep U+00AD): the word is joined without it.
const SOFT_BREAK = /([\p{L}\p{M}\p{N}])[\u00AD\u2010]+[^\S\n]*\n[^\S\n]*(?=[\p{L}\p{M}\p{N}])/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const BREAK = /(?<![\p{L}\p{M}\p{N}])([\p{L}\p{M}\p{N}]+)-\n([\p{L}\p{M}\p{N}]+)/gu;
// A dash standing alone at a line's end (`1823 -` / `9`, `உள்ளன -` / `பாட்னா,`) hyphenates
// nothing, but pdftotext's reading order drops it with the line break all the same; the drawn
// order keeps it. The words on either side are whole (anchored: no backtracking along a long run).
const LONE_DASH = /(?<!\S)(\S+)[^\S\n]+(\p{Pd})[^\S\n]*\n[^\S\n]*(?=(\S+))/gu;

// A run of dashes at a line's end (a blank to fill in: "1. The unit of force is ----------"):
// pdftotext's reading order takes its last dash for a hyphen, drops it and runs the next line
// on ("---------2. The largest ..."); the drawn order keeps both.
const DASH_RUN = /(\p{Pd}{2,})[^\S\n]*\n[^\S\n]*(?=(\S+))/gu;

/** The joined words of the hyphens to keep, each with its hyphenated form. */
function keptHyphens(placed: string[], drawn: string[]): Map<string, string> {
  const breaks = new Map<string, { hyphenated: string; count: number }>();
  for (const page of drawn) {
    for (const [, before, after] of page.matchAll(BREAK)) {
      const entry = breaks.get(before! + after!) ?? { hyphenated: `${before}-${after}`, count: 0 };
      entry.count += 1;
      breaks.set(before! + after!, entry);
    }
  }
  const seen = new Map<string, number>();
  for (const page of placed) {
    for (const [word] of page.matchAll(WORD)) if (breaks.has(word)) seen.set(word, (seen.get(word) ?? 0) + 1);
  }
  const kept = new Map<string, string>();
  for (const [joined, { hyphenated, count }] of breaks) if ((seen.get(joined) ?? 0) <= count) kept.set(joined, hyphenated);
  return kept;
}

/**
 * `placed` with the dashes that `drawn` has alone at a line's end put back between their two
 * words, where the page is sure: the two words meet without a dash exactly as often as `drawn`
 * has the dash between them, and never with one (then pdftotext kept it, and a meeting without
 * one is another place). One pass over the page's words.
 */
function withLoneDashes(placed: string, drawn: string): string {
  const dashes = new Map<string, { dash: string; count: number }>();
  for (const [, before, dash, after] of drawn.matchAll(LONE_DASH)) {
    const pair = `${before} ${after}`;
    const known = dashes.get(pair);
    // two different dashes between the same words: not sure which goes where
    dashes.set(pair, { dash: known && known.dash !== dash ? '' : dash!, count: (known?.count ?? 0) + 1 });
  }
  if (dashes.size === 0) return placed;
  // words and the spaces between them, alternately
  const parts = placed.split(/(\s+)/u);
  const meetings = new Map<string, number[]>();
  const withDash = new Set<string>();
  for (let i = 0; i + 2 < parts.length; i += 2) {
    if (parts[i + 1] === ' ' && dashes.has(`${parts[i]} ${parts[i + 2]}`)) {
      const pair = `${parts[i]} ${parts[i + 2]}`;
      const places = meetings.get(pair);
      if (places) places.push(i + 1);
      else meetings.set(pair, [i + 1]);
    }
    if (i + 4 < parts.length && /^\p{Pd}$/u.test(parts[i + 2]!)) withDash.add(`${parts[i]} ${parts[i + 4]}`);
  }
  for (const [pair, places] of meetings) {
    const { dash, count } = dashes.get(pair)!;
    if (dash === '' || withDash.has(pair) || places.length !== count) continue;
    for (const at of places) parts[at] = ` ${dash}\n`;
  }
  return parts.join('');
}

/**
 * `placed` with the runs of dashes that `drawn` ends lines with given back their last dash and
 * their line break, where the page is sure: the run less a dash, run into the next line's first
 * word, is in `placed` exactly as often as `drawn` has the run before that word.
 */
function withDashRuns(placed: string, drawn: string): string {
  const runs = new Map<string, { restored: string; count: number }>();
  for (const [, run, after] of drawn.matchAll(DASH_RUN)) {
    const glued = `${run!.slice(0, -1)}${after}`;
    runs.set(glued, { restored: `${run}\n${after}`, count: (runs.get(glued)?.count ?? 0) + 1 });
  }
  if (runs.size === 0) return placed;
  const parts = placed.split(/(\s+)/u);
  const found = new Map<string, number>();
  for (const part of parts) if (runs.has(part)) found.set(part, (found.get(part) ?? 0) + 1);
  return parts.map((part) => (runs.has(part) && found.get(part) === runs.get(part)!.count ? runs.get(part)!.restored : part)).join('');
}

/**
 * The two readings of a PDF's pages with every line-end hyphen settled alike (above): in `placed`,
 * the words pdftotext joined get their hyphen back where it stays, and a dash alone at a line's
 * end comes back; in `drawn`, the parts are joined, with or without it.
 */
export function settleLineEndHyphens(placed: string[], drawn: string[]): { placed: string[]; drawn: string[] } {
  const kept = keptHyphens(placed, drawn);
  const dashed = placed.map((page, i) => withDashRuns(withLoneDashes(page, drawn[i] ?? ''), drawn[i] ?? ''));
  return {
    placed: kept.size === 0 ? dashed : dashed.map((page) => page.replace(WORD, (word) => kept.get(word) ?? word)),
    drawn: drawn.map((page) => page.replace(BREAK, (_, before: string, after: string) => kept.get(before + after) ?? before + after)),
  };
}

/** The page with the words that a soft hyphen broke at a line's end joined (above). */
export function joinSoftHyphens(page: string): string {
  return page.replace(SOFT_BREAK, '$1');
}
