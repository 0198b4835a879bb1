import { describe, expect, test } from '@jest/globals';
import { extractDocument, UnreadableDocumentError } from '../../src/domain/documents/extract.js';
import { legacyFont } from '../../src/domain/documents/legacy-fonts.js';
import { pdfWithPages } from '../support/pdf.js';
import { testPool } from './support/pool.js';

// "Y%S ,xld" is how FM Abhaya stores ශ්‍රී ලංකා: Latin letters that no Sinhala search finds.
const LEGACY_TEXT = ['Y%S ,xld m%cd;dka;%sl iudcjd ckrcfha', 'wOHdmk wud;HdxYh'];
const pool = testPool();

describe('legacyFont', () => {
  test.each([
    [['FMAbhaya'], 'FMAbhaya', 'Sinhala'],
    [['Helvetica', 'QWERTY+FMBindumathi'], 'FMBindumathi', 'Sinhala'],
    [['DL-Manel-bold'], 'DL-Manel-bold', 'Sinhala'],
    [['DLAraliya'], 'DLAraliya', 'Sinhala'],
    [['FM-Malithi,Bold'], 'FM-Malithi,Bold', 'Sinhala'],
    // versions and a trailing dot, as PDF producers write them
    [['FM-Abhaya2'], 'FM-Abhaya2', 'Sinhala'],
    [['ABCDEF+FMAbhaya-2010'], 'FMAbhaya-2010', 'Sinhala'],
    [['DL-Manel-bold.'], 'DL-Manel-bold.', 'Sinhala'],
    [['DL-Paras.'], 'DL-Paras.', 'Sinhala'],
    [['ABCDEF+Bamini'], 'Bamini', 'Tamil'],
    [['Baamini,Bold'], 'Baamini,Bold', 'Tamil'],
    [['TAM-Kambar'], 'TAM-Kambar', 'Tamil'],
    [['Arial', 'TAB-Anna-Bold'], 'TAB-Anna-Bold', 'Tamil'],
    [['Shree-Tam-0802'], 'Shree-Tam-0802', 'Tamil'],
  ])('finds the legacy font among %j', (names, font, language) => {
    expect(legacyFont(names)).toEqual({ font, language });
  });

  test.each([[['NotoSansSinhala-Regular', 'ABCDEF+IskoolaPota']], [['Helvetica', 'FMono', 'DejaVuSans']], [['Latha', 'NirmalaUI', 'NotoSansTamil-Bold', 'Tamil-Sangam']], [[]]])(
    'finds none among %j',
    (names) => {
      expect(legacyFont(names)).toBeUndefined();
    },
  );
});

describe('a PDF in a legacy Sinhala font', () => {
  test('is refused at ingestion, naming the font and what to do', async () => {
    const error = await extractDocument('paper-2019.pdf', pdfWithPages(LEGACY_TEXT, 'FMAbhaya'), pool, 'test').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocumentError);
    expect((error as Error).message).toBe(
      'paper-2019.pdf is not a readable PDF: its text is in FMAbhaya, a legacy Sinhala font that stores Sinhala letters as Latin ones, so it cannot be searched. ' +
        'Save it again with a Unicode Sinhala font (for example Noto Sans Sinhala or Iskoola Pota) and upload it again',
    );
  });

  test('the same pages in an ordinary font are read as they are', async () => {
    expect(await extractDocument('paper-2019.pdf', pdfWithPages(LEGACY_TEXT), pool, 'test')).toEqual([
      { page: 1, text: LEGACY_TEXT[0] },
      { page: 2, text: LEGACY_TEXT[1] },
    ]);
  });
});

describe('a PDF in a legacy Tamil font', () => {
  test('is refused at ingestion, naming the font and what to do', async () => {
    // "jkpo;" is how Bamini stores தமிழ்
    const error = await extractDocument('notes.pdf', pdfWithPages(['jkpo; nkhop', 'ghlk; 1'], 'Bamini'), pool, 'test').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocumentError);
    expect((error as Error).message).toBe(
      'notes.pdf is not a readable PDF: its text is in Bamini, a legacy Tamil font that stores Tamil letters as Latin ones, so it cannot be searched. ' +
        'Save it again with a Unicode Tamil font (for example Noto Sans Tamil, Latha or Nirmala UI) and upload it again',
    );
  });
});
