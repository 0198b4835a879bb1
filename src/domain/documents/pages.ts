import { normalise } from '../text/normalise.js';

export interface Page {
  page: number;
  text: string;
}

const MARKER = /^--- PAGE (\d+) ---$/;

/** Bounds the work one document can cause (a textbook has a few hundred pages). */
export const MAX_PAGES = 2000;

/** A readable file of more than MAX_PAGES pages: its message completes "<file> " (it is no unreadable PDF). */
export class TooManyPagesError extends Error {
  override readonly name = 'TooManyPagesError';

  constructor(pages: number) {
    super(`has ${pages} pages, more than the ${MAX_PAGES} a document may have; split it into files of at most ${MAX_PAGES} pages and upload each`);
  }
}

export function pageMarker(n: number): string {
  return `--- PAGE ${n} ---`;
}

/** The inverse of splitMarkedText: every page preceded by its marker line. */
export function joinPages(pages: Page[]): string {
  return pages.map((p) => `${pageMarker(p.page)}\n${p.text}`).join('\n');
}

/**
 * Pages of a text with marker lines, numbered as written. Text before the first marker is page 1;
 * a text without markers is all page 1.
 */
export function splitMarkedText(text: string): Page[] {
  const preamble: string[] = [];
  const sections: { page: number; lines: string[] }[] = [];
  let current = preamble;
  for (const line of text.split('\n')) {
    const marker = MARKER.exec(line);
    if (marker) {
      current = [];
      sections.push({ page: Number(marker[1]), lines: current });
    } else {
      current.push(line);
    }
  }
  const pages = sections.map(({ page, lines }) => ({ page, text: lines.join('\n') }));
  const before = preamble.join('\n');
  if (pages.length === 0) return [{ page: 1, text: before }];
  if (before.trim() === '') return pages;
  const first = pages[0]!;
  if (first.page === 1) first.text = `${before}\n${first.text}`;
  else pages.unshift({ page: 1, text: before });
  return pages;
}

/**
 * Why a text's page markers cannot number its pages, or undefined: pages are numbered from 1 to
 * MAX_PAGES, each after the one before (a citation names them). Completes "<file> ".
 */
export function markedPagesProblem(pages: Page[]): string | undefined {
  let previous = 0;
  for (const { page } of pages) {
    if (page < 1 || page > MAX_PAGES) {
      return `has a page marker that numbers a page ${page < 1 ? String(page) : `above ${MAX_PAGES}`}: pages are numbered from 1 to ${MAX_PAGES} (a longer text is split into files). Fix the marker and upload it again`;
    }
    if (page <= previous) {
      return `has the page marker '${pageMarker(page)}' after page ${previous}: each marker must number a later page than the one before. Fix the marker and upload it again`;
    }
    previous = page;
  }
  return undefined;
}

/**
 * The pages of UTF-8 text, normalised and split at its marker lines. The `markedText` step of
 * src/domain/ports/heavy-work.ts (a 10 MB file takes a noticeable fraction of a second); its one
 * failure is text that is not UTF-8.
 */
export function readMarkedText(bytes: Uint8Array): Page[] {
  return splitMarkedText(normalise(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
}
