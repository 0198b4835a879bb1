import { beforeAll, describe, expect, test } from '@jest/globals';
import { getResolvedPDFJS } from 'unpdf';
import { drawnGlyphs, type FontMetrics, type TextOps } from '../../src/worker-pool/drawn-glyphs.js';

// Where each glyph lands, followed through pdf.js's operator list as PDF's text operators move
// the pen (ISO 32000-1, 9.4.4): the codes are pdf.js's own, so a renamed operator fails here.
let ops: TextOps;
beforeAll(async () => {
  ops = (await getResolvedPDFJS()).OPS;
});

const glyph = (unicode: string, width: number, isSpace = false) => ({ originalCharCode: isSpace ? 32 : unicode.codePointAt(0) ?? 0, unicode, width, isSpace });
/** A page 800 points high, its top left the origin, as pdf.js's viewport gives it. */
const toPage = (x: number, y: number) => [x, 800 - y];
const mapsAll = () => false;
/** Fonts by name: `f1` as most are; `big`, whose matrix is 1/2048 of an em; `down`, which writes downwards; `subset`, whose text map leaves byte 32 out. */
const FONTS: Record<string, FontMetrics> = {
  f1: { scale: 0.001, vertical: false, unmapped: mapsAll },
  big: { scale: 1 / 2048, vertical: false, unmapped: mapsAll },
  down: { scale: 0.001, vertical: true, unmapped: mapsAll },
  subset: { scale: 0.001, vertical: false, unmapped: (code) => code === 32 },
};
const read = (list: [keyof TextOps, unknown[]][]) =>
  drawnGlyphs(
    list.map(([op]) => ops[op]),
    list.map(([, args]) => args),
    ops,
    toPage,
    (name) => FONTS[name]!,
  ).map(({ x, y, width, space, text }) => ({ x: +x.toFixed(3), y: +y.toFixed(3), width: +width.toFixed(3), space, text }));

describe('drawnGlyphs', () => {
  test('places each glyph of a run by the matrices and the widths, a TJ number moving the pen back; Typst\'s clusters', () => {
    // Typst: the page's matrix turned upside down, each cluster at a text matrix of its own
    const glyphs = read([
      ['save', []],
      ['transform', [1, 0, 0, -1, 50, 700]],
      ['beginText', []],
      ['setFont', ['f1', 10]],
      ['setTextMatrix', [new Float32Array([1, 0, 0, -1, 20, 0])]],
      ['showText', [[glyph('ங', 500), 250, glyph('\u0BCD', 0)]]],
      ['setTextMatrix', [new Float32Array([1, 0, 0, -1, 30, 0])]],
      ['showText', [[glyph(' ', 250), glyph('க', 600)]]],
      ['restore', []],
    ]);
    expect(glyphs).toEqual([
      { x: 70, y: 100, width: 5, space: false, text: 'ங' },
      { x: 72.5, y: 100, width: 0, space: false, text: '\u0BCD' },
      { x: 80, y: 100, width: 2.5, space: true, text: ' ' },
      { x: 82.5, y: 100, width: 6, space: false, text: 'க' },
    ]);
  });

  test('follows character and word spacing, horizontal scaling, line moves and the leading; a saved state comes back', () => {
    const glyphs = read([
      ['beginText', []],
      ['setFont', ['f1', 10]],
      ['setCharSpacing', [1]],
      ['setWordSpacing', [2]],
      ['setHScale', [50]],
      ['moveText', [100, 500]],
      ['showText', [[glyph('a', 500), glyph(' ', 250, true), glyph('b', 500)]]],
      ['setLeading', [12]],
      ['nextLine', []],
      ['showText', [[glyph('c', 500)]]],
      ['save', []],
      ['setHScale', [100]],
      ['setTextRise', [3]],
      ['restore', []],
      ['setLeadingMoveText', [0, -14]],
      ['showText', [[glyph('d', 500)]]],
    ]);
    expect(glyphs).toEqual([
      // a: 5 wide at half scale; the pen moves on by (5 + 1) / 2
      { x: 100, y: 300, width: 2.5, space: false, text: 'a' },
      // the space gets the word spacing too: (2.5 + 1 + 2) / 2
      { x: 103, y: 300, width: 1.25, space: true, text: ' ' },
      { x: 105.75, y: 300, width: 2.5, space: false, text: 'b' },
      { x: 100, y: 312, width: 2.5, space: false, text: 'c' },
      { x: 100, y: 326, width: 2.5, space: false, text: 'd' },
    ]);
  });

  test('leaves out glyphs of turned and mirrored runs, and a form\'s matrix ends with it', () => {
    const glyphs = read([
      ['paintFormXObjectBegin', [[0, 1, -1, 0, 300, 300], null]],
      ['beginText', []],
      ['setFont', ['f1', 10]],
      ['showText', [[glyph('a', 500)]]],
      ['paintFormXObjectEnd', []],
      ['beginText', []],
      ['setFont', ['f1', 10]],
      ['setTextMatrix', [[-1, 0, 0, 1, 200, 100]]],
      ['showText', [[glyph('b', 500)]]],
      ['setTextMatrix', [[1, 0, 0, 1, 200, 100]]],
      ['showText', [[glyph('c', 500)]]],
    ]);
    expect(glyphs).toEqual([{ x: 200, y: 700, width: 5, space: false, text: 'c' }]);
  });

  test('takes widths in the font\'s own units, a font set by a graphics state too; leaves out a font that writes downwards', () => {
    const glyphs = read([
      ['beginText', []],
      ['setGState', [[['Font', ['big', 10]]]]],
      ['moveText', [100, 500]],
      ['showText', [[glyph('a', 1024), glyph('\u2009', 512)]]],
      ['setFont', ['down', 10]],
      ['showText', [[glyph('b', 500)]]],
    ]);
    // 1024 of 2048 units of a 10-point font; a thin space is a space
    expect(glyphs).toEqual([
      { x: 100, y: 300, width: 5, space: false, text: 'a' },
      { x: 105, y: 300, width: 2.5, space: true, text: '\u2009' },
    ]);
  });

  test('a glyph drawn by byte 32 is a space only when it has no other text: LibreOffice\'s font subsets give it to a letter', () => {
    const glyphs = read([
      ['beginText', []],
      ['setFont', ['f1', 10]],
      ['setWordSpacing', [1]],
      ['moveText', [100, 500]],
      ['showText', [[glyph('ර', 500, true), glyph('', 250, true), glyph('ක', 500)]]],
    ]);
    // the word spacing is byte 32's all the same (ISO 32000-1, 9.3.3)
    expect(glyphs).toEqual([
      { x: 100, y: 300, width: 5, space: false, text: 'ර' },
      { x: 106, y: 300, width: 2.5, space: true, text: '' },
      { x: 109.5, y: 300, width: 5, space: false, text: 'ක' },
    ]);
  });

  test('a glyph whose code its font\'s text map leaves out has unknown text, and byte 32 is then no space: LibreOffice writes such a letter\'s text as ActualText', () => {
    const glyphs = read([
      ['beginText', []],
      ['setFont', ['subset', 10]],
      ['moveText', [100, 500]],
      // pdf.js gives the unmapped byte 32 its own character, a space
      ['showText', [[glyph('ய', 500), glyph(' ', 1054, true), glyph('ி', 260)]]],
    ]);
    expect(glyphs).toEqual([
      { x: 100, y: 300, width: 5, space: false, text: 'ய' },
      { x: 105, y: 300, width: 10.54, space: false, text: '\uFFFD' },
      { x: 115.54, y: 300, width: 2.6, space: false, text: 'ி' },
    ]);
  });
});
