import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { inflatesWithin } from '../../src/domain/documents/pdf-budget.js';
import { extractDocument, UnreadableDocumentError } from '../../src/domain/documents/extract.js';

/** A one-page PDF whose content stream inflates to `size` bytes of spaces. */
function pdfWithContent(size: number): Uint8Array {
  const stream = deflateSync(Buffer.alloc(size, 0x20), { level: 9 });
  const head = `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >> endobj\n4 0 obj << /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`;
  return new Uint8Array(Buffer.concat([Buffer.from(head, 'latin1'), stream, Buffer.from('\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1')]));
}

describe('PDF inflation budget', () => {
  test('real documents are well within it', () => {
    expect(inflatesWithin(new Uint8Array(readFileSync('samples/curriculum/pdf/grade10-science-photosynthesis.pdf')))).toBe(true);
  });

  test('a stream that inflates past the budget is refused, however small the file', () => {
    const bomb = pdfWithContent(2_000_000);
    expect(bomb.length).toBeLessThan(10_000);
    expect(inflatesWithin(bomb, 1_000_000)).toBe(false);
    expect(inflatesWithin(bomb, 3_000_000)).toBe(true);
  });

  test('the budget is for all streams together', () => {
    const one = pdfWithContent(600_000);
    const two = new Uint8Array(Buffer.concat([Buffer.from(one), Buffer.from(one)]));
    expect(inflatesWithin(one, 1_000_000)).toBe(true);
    expect(inflatesWithin(two, 1_000_000)).toBe(false);
  });

  test('extraction refuses a PDF bomb with a readable message instead of reading it', async () => {
    const bomb = pdfWithContent(70 * 1024 * 1024);
    await expect(extractDocument('bomb.pdf', bomb)).rejects.toThrow(UnreadableDocumentError);
    await expect(extractDocument('bomb.pdf', bomb)).rejects.toThrow('bomb.pdf is not a readable PDF: its content expands to more than 67108864 bytes');
  });
});
