import type { DrawnGlyph } from '../domain/documents/mark-gaps.js';
import { drawnGlyphs, type FontMetrics } from './drawn-glyphs.js';

// Where a PDF draws its glyphs, by pdf.js: poppler's tools give words, not glyphs
// (src/domain/documents/mark-gaps.ts says what this is for). pdf.js runs in the pool's thread,
// within the job's budget; the glyphs' text is not read.

/** The glyphs drawn along horizontal lines of each of `pages` (numbered from 1), in points from the top left corner of the crop box. */
export async function pageGlyphs(bytes: Uint8Array, pages: number[]): Promise<Map<number, DrawnGlyph[]>> {
  // loaded by the first file that needs it, which few do: the service's memory has a target (README, "Performance")
  const { getDocumentProxy, getResolvedPDFJS } = await import('unpdf');
  const { OPS, AnnotationMode } = await getResolvedPDFJS();
  // pdf.js takes the buffer over; the caller's bytes stay as they are. Only where glyphs are drawn is read:
  // images are not decoded; each font's text map comes along (fontExtraProperties), for the codes it leaves out
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, maxImageSize: 0, fontExtraProperties: true });
  try {
    const glyphs = new Map<number, DrawnGlyph[]>();
    for (const number of pages) {
      const page = await pdf.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      // the page's own content, as its text is: an annotation's is drawn in a box of its own
      const followed = async () => {
        const { fnArray, argsArray } = await page.getOperatorList({ annotationMode: AnnotationMode.DISABLE });
        const toPage = (x: number, y: number) => viewport.convertToViewportPoint(x, y) as number[];
        return drawnGlyphs(fnArray, argsArray as unknown[][], OPS, toPage, (name) => fontMetrics(page.commonObjs, name));
      };
      // a turned page's lines go along its height: no glyphs are given, and no gap is joined. A
      // page pdf.js cannot follow gives none either.
      glyphs.set(number, viewport.rotation % 360 === 0 ? await followed().catch((): DrawnGlyph[] => []) : []);
      page.cleanup();
    }
    return glyphs;
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/**
 * A font's metrics as pdf.js loaded it for the operator list; one it could not load has the usual
 * ones. Its text map (the file's ToUnicode, else its encoding's names) lists the codes it has text
 * for; an identity map (`_map` absent) has text for every code.
 */
function fontMetrics(fonts: { has(name: string): boolean; get(name: string): unknown }, name: string): FontMetrics {
  const font = (fonts.has(name) ? fonts.get(name) : undefined) as { fontMatrix?: number[]; vertical?: boolean; toUnicode?: { _map?: unknown } } | undefined;
  const map = font?.toUnicode?._map;
  return {
    scale: font?.fontMatrix?.[0] ?? 0.001,
    vertical: font?.vertical === true,
    unmapped: Array.isArray(map) ? (code) => map[code] === undefined : () => false,
  };
}
