import { sentenceSpans, type Span } from '../text/sentences.js';
import { joinPages, pageMarker, type Page } from './pages.js';

export interface Chunk {
  index: number;
  /** A slice of the pages joined with their marker lines. */
  text: string;
  pages: number[];
}

export interface ChunkOptions {
  targetChars?: number;
  overlapChars?: number;
}

/** A run of text that is never cut: a sentence, or a piece of one that is too long. */
interface Unit extends Span {
  page: number;
}

/**
 * Cuts the pages into chunks of about `targetChars` at sentence ends (at spaces inside a
 * sentence longer than that), each repeating about `overlapChars` of whole sentences from the
 * end of the one before. A chunk holds the marker line of every page that starts inside it.
 */
export function chunkPages(pages: Page[], options: ChunkOptions = {}): Chunk[] {
  const { targetChars = 900, overlapChars = 150 } = options;
  if (!(targetChars > 0) || !(overlapChars >= 0) || overlapChars >= targetChars) {
    throw new RangeError(`chunk sizes must satisfy 0 <= overlap (${overlapChars}) < target (${targetChars})`);
  }
  const { text, units } = layout(pages.filter((p) => p.text.trim() !== ''), targetChars, overlapChars || targetChars);
  const chunks: Chunk[] = [];
  let first = 0;
  while (first < units.length) {
    let last = first;
    while (last + 1 < units.length && units[last + 1]!.end - units[first]!.start <= targetChars) last++;
    const spanned = new Set(units.slice(first, last + 1).map((u) => u.page));
    chunks.push({
      index: chunks.length,
      text: text.slice(units[first]!.start, units[last]!.end),
      pages: [...spanned].sort((a, b) => a - b),
    });
    if (last === units.length - 1) break;
    first = overlapStart(units, first, last, targetChars, overlapChars);
  }
  return chunks;
}

/**
 * The joined text and its units. The first unit of a page starts at the page's marker line, so
 * a chunk never ends on a marker and includes the marker of each page it starts.
 */
function layout(pages: Page[], targetChars: number, pieceChars: number): { text: string; units: Unit[] } {
  const text = joinPages(pages);
  const units: Unit[] = [];
  let markerStart = 0;
  for (const { page, text: content } of pages) {
    const contentStart = markerStart + pageMarker(page).length + 1;
    const spans = sentenceSpans(content).flatMap((s) => split(content, s, targetChars, pieceChars));
    spans.forEach((span, i) =>
      units.push({ page, start: i === 0 ? markerStart : contentStart + span.start, end: contentStart + span.end }),
    );
    markerStart = contentStart + content.length + 1;
  }
  return { text, units };
}

/**
 * A sentence longer than `targetChars` as runs of whole words of at most `pieceChars`: small
 * enough for the next chunk to repeat one.
 */
function split(text: string, sentence: Span, targetChars: number, pieceChars: number): Span[] {
  if (sentence.end - sentence.start <= targetChars) return [sentence];
  const pieces: Span[] = [];
  for (const word of text.slice(sentence.start, sentence.end).matchAll(/\S+/g)) {
    const start = sentence.start + word.index;
    const end = start + word[0].length;
    const current = pieces.at(-1);
    if (current && end - current.start <= pieceChars) current.end = end;
    else pieces.push({ start, end });
  }
  return pieces;
}

/**
 * Where the chunk after units first..last starts: at the trailing units of that chunk whose
 * length is closest to `overlapChars`, leaving room for at least one new unit.
 */
function overlapStart(units: Unit[], first: number, last: number, targetChars: number, overlapChars: number): number {
  const next = last + 1;
  let best = next;
  let bestDistance = overlapChars;
  for (let start = last; start > first; start--) {
    if (units[next]!.end - units[start]!.start > targetChars) break;
    const distance = Math.abs(units[last]!.end - units[start]!.start - overlapChars);
    if (distance < bestDistance) {
      best = start;
      bestDistance = distance;
    }
  }
  return best;
}
