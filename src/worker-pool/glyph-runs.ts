import type { GlyphRun } from '../domain/documents/mark-gaps.js';

// Where a PDF draws its glyphs, by pdf.js: poppler's tools give words, not glyphs
// (src/domain/documents/mark-gaps.ts says what this is for). pdf.js runs in the pool's thread,
// within the job's budget; its text (each glyph's own map, no ActualText) is not read.

/** The horizontal glyph runs of each of `pages` (numbered from 1), in points from the top left corner of the crop box. */
export async function glyphRuns(bytes: Uint8Array, pages: number[]): Promise<Map<number, GlyphRun[]>> {
  // loaded by the first file that needs it, which few do: the service's memory has a target (README, "Performance")
  const { getDocumentProxy } = await import('unpdf');
  // pdf.js takes the buffer over; the caller's bytes stay as they are
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    const runs = new Map<number, GlyphRun[]>();
    for (const number of pages) {
      const page = await pdf.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      const pageRuns: GlyphRun[] = [];
      // a turned page's runs go along its height: none are given, and no gap is joined
      if (viewport.rotation % 360 === 0) {
        for (const item of (await page.getTextContent()).items) {
          if (!('str' in item)) continue;
          const [a, b, c, , e, f] = item.transform as number[];
          if (b !== 0 || c !== 0 || a! <= 0) continue;
          const [x, y] = viewport.convertToViewportPoint(e!, f!) as [number, number];
          pageRuns.push({ text: item.str, x, y, width: item.width });
        }
      }
      runs.set(number, pageRuns);
      page.cleanup();
    }
    return runs;
  } finally {
    await pdf.loadingTask.destroy();
  }
}
