import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { inflatesWithin } from '../../src/domain/documents/pdf-budget.js';
import { extractDocument, UnreadableDocumentError } from '../../src/domain/documents/extract.js';
import { inflatingPdf, pdfFromObjects, photoPdf, repeatedStreamKeywords } from '../support/pdf.js';
import { testPool } from './support/pool.js';

const pool = testPool();

describe('PDF inflation budget', () => {
  test('real documents are well within it', () => {
    expect(inflatesWithin(new Uint8Array(readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf')))).toBe(true);
  });

  test('a stream that inflates past the budget is refused, however small the file', () => {
    const bomb = inflatingPdf(2_000_000);
    expect(bomb.length).toBeLessThan(10_000);
    expect(inflatesWithin(bomb, 1_000_000)).toBe(false);
    expect(inflatesWithin(bomb, 3_000_000)).toBe(true);
  });

  test('the budget is for all streams together', () => {
    const one = inflatingPdf(600_000);
    const two = new Uint8Array(Buffer.concat([Buffer.from(one), Buffer.from(one)]));
    expect(inflatesWithin(one, 1_000_000)).toBe(true);
    expect(inflatesWithin(two, 1_000_000)).toBe(false);
  });

  test('a stream after a stray endstream is still counted', () => {
    const bomb = Buffer.from(inflatingPdf(2_000_000));
    const stray = new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj\n(endstream\n)\nendobj\n', 'latin1'), bomb.subarray(9)]));
    expect(inflatesWithin(stray, 1_000_000)).toBe(false);
  });

  test('a `stream` keyword inside stream data does not hide the stream that follows', () => {
    const data = Buffer.from('no Flate here: stream\n and more', 'latin1');
    const decoy = Buffer.concat([Buffer.from(`<< /Length ${data.length} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);
    const bomb = Buffer.from(inflatingPdf(2_000_000)).toString('latin1');
    const stream = Buffer.from(bomb.slice(bomb.indexOf('<< /Length'), bomb.indexOf('endstream') + 'endstream'.length), 'latin1');
    expect(inflatesWithin(pdfFromObjects(['<< /Type /Catalog >>', decoy, stream]), 1_000_000)).toBe(false);
  });

  test('the scan takes one pass: a file of repeated `stream` keywords is checked in linear time', () => {
    // 10 MB, the largest attachment: the quadratic scan it replaces searched the rest of the
    // file from each of 1.5 million keywords (hours); one pass takes milliseconds
    const hostile = repeatedStreamKeywords(1_500_000);
    expect(hostile.length).toBeGreaterThan(10_000_000);
    const started = performance.now();
    expect(inflatesWithin(hostile)).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test('images are not counted: the reader never decodes them, and photos inflate to far more than text', async () => {
    const photos = photoPdf(70 * 1024 * 1024);
    expect(inflatesWithin(photos)).toBe(true);
    // the same stream, not an image: counted; nor is one that names the subtype only in a dictionary inside its own
    const photosText = Buffer.from(photos).toString('latin1');
    for (const notImage of [photosText.replace('/Subtype /Image ', '/Subtype /Imagery '), photosText.replace('/Subtype /Image ', '/DecodeParms << /Subtype /Image >> ')]) {
      expect(inflatesWithin(new Uint8Array(Buffer.from(notImage, 'latin1')))).toBe(false);
    }
    const pages = await extractDocument('photos.pdf', photos, pool, 'test');
    expect(pages).toEqual([{ page: 1, text: 'Photosynthesis needs light' }]);
  });

  test('extraction refuses a PDF bomb with a readable message instead of reading it', async () => {
    const bomb = inflatingPdf(70 * 1024 * 1024);
    const error = await extractDocument('bomb.pdf', bomb, pool, 'test').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocumentError);
    expect((error as Error).message).toBe(
      "bomb.pdf is not a readable PDF: its pages' content expands to more than 67108864 bytes, far more than any document's text needs (images are not counted); open it in a PDF viewer, print or save it to a new PDF, and upload that",
    );
  });
});
