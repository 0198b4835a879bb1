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

/** A glyph as pdf.js's operator list gives it: its text and advance in thousandths of the font size. */
interface OpGlyph {
  unicode: string;
  width: number;
  isSpace: boolean;
}

interface TextState {
  size: number;
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
const SPACE = /^[\u0020\u00A0]$/u;

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
 * space, in the coordinates `toPage` gives (from the user space). A glyph of a turned or mirrored
 * run is left out; Type 3 fonts (widths in their own matrix) are rare in text and read as others are.
 */
export function drawnGlyphs(fnArray: number[], argsArray: unknown[][], ops: TextOps, toPage: (x: number, y: number) => number[]): DrawnGlyph[] {
  const glyphs: DrawnGlyph[] = [];
  const newText = (): TextState => ({ size: 0, charSpacing: 0, wordSpacing: 0, hScale: 1, leading: 0, rise: 0, line: IDENTITY, pen: 0 });
  let ctm = IDENTITY;
  let text = newText();
  const saved: [Matrix, TextState][] = [];
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
        text.size = Number(args[1]);
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
        showText(args[0] as (OpGlyph | number)[], text, then(text.line, ctm), toPage, glyphs);
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
    const width = (glyph.width / 1000) * text.size * text.hScale;
    const [x, y] = toPage(...apply(toUser, text.pen, text.rise)) as [number, number];
    const [xEnd, yEnd] = toPage(...apply(toUser, text.pen + width, text.rise)) as [number, number];
    // along a horizontal line, left to right
    if (Math.abs(yEnd - y) < 1e-3 && xEnd >= x) glyphs.push({ x, y, width: xEnd - x, space: SPACE.test(glyph.unicode) });
    text.pen += width + (text.charSpacing + (glyph.isSpace ? text.wordSpacing : 0)) * text.hScale;
  }
}
