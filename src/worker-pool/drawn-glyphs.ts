import type { DrawnGlyph } from '../domain/documents/mark-gaps.js';

// Where a page draws each glyph, from pdf.js's operator list: its text (getTextContent) gives
// runs, merges a drawn space with a gap the pen was moved over (pdf.js does so on purpose) and
// gives a cluster written as one text (ActualText) no width, where
// src/domain/documents/mark-gaps.ts needs the glyphs themselves. Only what places a glyph is
// followed: the graphics and text state and the pen along each run.

type Matrix = [number, number, number, number, number, number];

/** The operator codes this reads, as pdf.js numbers them (its `OPS`). */
export type TextOps = Record<
  | 'save'
  | 'restore'
  | 'transform'
  | 'paintFormXObjectBegin'
  | 'paintFormXObjectEnd'
  | 'beginText'
  | 'setFont'
  | 'setGState'
  | 'setCharSpacing'
  | 'setWordSpacing'
  | 'setHScale'
  | 'setLeading'
  | 'setTextRise'
  | 'setTextMatrix'
  | 'moveText'
  | 'setLeadingMoveText'
  | 'nextLine'
  | 'showText',
  number
>;

/** A glyph as pdf.js's operator list gives it: the code that drew it, its text, and its advance in its font's units (FontMetrics.scale). */
interface OpGlyph {
  originalCharCode: number;
  unicode: string;
  width: number;
  isSpace: boolean;
}

/** What a font's glyphs need: its matrix's scale (0.001 for most), whether it writes downwards, and whether its text map leaves a code out. */
export interface FontMetrics {
  scale: number;
  vertical: boolean;
  unmapped: (code: number) => boolean;
}

interface TextState {
  size: number;
  font: FontMetrics;
  charSpacing: number;
  wordSpacing: number;
  hScale: number;
  leading: number;
  rise: number;
  /** the start of the line, and the text matrix there; the pen is `pen` along it */
  line: Matrix;
  pen: number;
}

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
const SPACE = /^\p{Zs}$/u;

/**
 * The text of a glyph whose code its font's text map leaves out: pdf.js gives the code's own
 * character instead (a space for byte 32), which says nothing. LibreOffice numbers a subset's
 * glyphs from 1 and leaves a glyph out of the map when its cluster's text is written as
 * ActualText, so byte 32 may draw a letter that pdf.js calls a space.
 */
const UNKNOWN = '\uFFFD';

/**
 * Whether a glyph is a space: its text is one, or it has none and is drawn by byte 32. A font
 * subset by LibreOffice numbers its glyphs from 1, and byte 32 may be a letter (LKLUG's ණී or ර).
 */
const isSpace = (glyph: OpGlyph, text: string) => SPACE.test(text) || (glyph.isSpace && text.trim() === '');
const USUAL_FONT: FontMetrics = { scale: 0.001, vertical: false, unmapped: () => false };

/** `m` then `n`, as PDF composes matrices (pdf.js's Util.transform(n, m)). */
const then = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[1] * n[2],
  m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2],
  m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4],
  m[4] * n[1] + m[5] * n[3] + n[5],
];
const apply = (m: Matrix, x: number, y: number): [number, number] => [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
const translate = (x: number, y: number): Matrix => [1, 0, 0, 1, x, y];
const asMatrix = (args: unknown[]): Matrix => Array.from((args.length === 6 ? args : args[0]) as ArrayLike<number>) as Matrix;

/**
 * The glyphs a page draws along horizontal lines: baseline start, advance and whether it is a
 * space, in the coordinates `toPage` gives (from the user space), with each font's metrics by the
 * name pdf.js gave it. A glyph of a turned or mirrored run, or of a font that writes downwards, is
 * left out.
 */
export function drawnGlyphs(
  fnArray: number[],
  argsArray: unknown[][],
  ops: TextOps,
  toPage: (x: number, y: number) => number[],
  fontOf: (name: string) => FontMetrics,
): DrawnGlyph[] {
  const glyphs: DrawnGlyph[] = [];
  const newText = (): TextState => ({ size: 0, font: USUAL_FONT, charSpacing: 0, wordSpacing: 0, hScale: 1, leading: 0, rise: 0, line: IDENTITY, pen: 0 });
  let ctm = IDENTITY;
  let text = newText();
  const saved: [Matrix, TextState][] = [];
  const setFont = ([name, size]: unknown[]) => {
    text.font = fontOf(String(name));
    text.size = Number(size);
  };
  const nextLine = (x: number, y: number) => {
    text.line = then(translate(x, y), text.line);
    text.pen = 0;
  };
  fnArray.forEach((fn, i) => {
    const args = argsArray[i] ?? [];
    switch (fn) {
      case ops.save:
      case ops.paintFormXObjectBegin:
        saved.push([ctm, { ...text }]);
        if (fn === ops.paintFormXObjectBegin && args[0]) ctm = then(asMatrix(args[0] as unknown[]), ctm);
        break;
      case ops.restore:
      case ops.paintFormXObjectEnd:
        [ctm, text] = saved.pop() ?? [ctm, text];
        break;
      case ops.transform:
        ctm = then(asMatrix(args), ctm);
        break;
      case ops.beginText:
        text.line = IDENTITY;
        text.pen = 0;
        break;
      case ops.setFont:
        setFont(args);
        break;
      case ops.setGState:
        // an ExtGState may set the font, as [name, size]
        for (const [key, value] of (args[0] ?? []) as [string, unknown][]) if (key === 'Font') setFont(value as unknown[]);
        break;
      case ops.setCharSpacing:
        text.charSpacing = Number(args[0]);
        break;
      case ops.setWordSpacing:
        text.wordSpacing = Number(args[0]);
        break;
      case ops.setHScale:
        text.hScale = Number(args[0]) / 100;
        break;
      case ops.setLeading:
        text.leading = Number(args[0]);
        break;
      case ops.setTextRise:
        text.rise = Number(args[0]);
        break;
      case ops.setTextMatrix:
        text.line = asMatrix(args);
        text.pen = 0;
        break;
      case ops.moveText:
        nextLine(Number(args[0]), Number(args[1]));
        break;
      case ops.setLeadingMoveText:
        text.leading = -Number(args[1]);
        nextLine(Number(args[0]), Number(args[1]));
        break;
      case ops.nextLine:
        nextLine(0, -text.leading);
        break;
      case ops.showText:
        if (!text.font.vertical) showText(args[0] as (OpGlyph | number)[], text, then(text.line, ctm), toPage, glyphs);
        break;
    }
  });
  return glyphs;
}

/** Moves the pen along a run (TJ numbers move it back), noting where each glyph is drawn. */
function showText(run: (OpGlyph | number)[], text: TextState, toUser: Matrix, toPage: (x: number, y: number) => number[], glyphs: DrawnGlyph[]) {
  for (const glyph of run) {
    if (typeof glyph === 'number') {
      text.pen -= (glyph / 1000) * text.size * text.hScale;
      continue;
    }
    const width = glyph.width * text.font.scale * text.size * text.hScale;
    const [x, y] = toPage(...apply(toUser, text.pen, text.rise)) as [number, number];
    const [xEnd, yEnd] = toPage(...apply(toUser, text.pen + width, text.rise)) as [number, number];
    // along a horizontal line, left to right
    const known = text.font.unmapped(glyph.originalCharCode) ? UNKNOWN : glyph.unicode;
    if (Math.abs(yEnd - y) < 1e-3 && xEnd >= x) glyphs.push({ x, y, width: xEnd - x, space: isSpace(glyph, known), text: known });
    text.pen += width + (text.charSpacing + (glyph.isSpace ? text.wordSpacing : 0)) * text.hScale;
  }
}
