import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { extractDocument as extractWith, UnreadableDocumentError } from '../../src/domain/documents/extract.js';
import { MAX_PAGES } from '../../src/domain/documents/pages.js';
import { pdfFromObjects, pdfWithPages } from '../support/pdf.js';
import { testPool } from './support/pool.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const pool = testPool();
const extractDocument = (fileName: string, bytes: Uint8Array) => extractWith(fileName, bytes, pool, 'test');

async function failure(fileName: string, bytes: Uint8Array): Promise<UnreadableDocumentError> {
  const error = await extractDocument(fileName, bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnreadableDocumentError);
  return error as UnreadableDocumentError;
}

describe('extractDocument: text files', () => {
  test('a Markdown file is normalised and split at its page markers', async () => {
    const text = '--- PAGE 1 ---\r\n# ජල  චක්‍රය\r\n--- PAGE 2 ---\r\n  நீர் \u200Bஆவியாகிறது.  ';
    expect(await extractDocument('water-cycle.md', utf8(text))).toEqual([
      { page: 1, text: '# ජල චක්‍රය' },
      { page: 2, text: 'நீர் ஆவியாகிறது.' },
    ]);
  });

  test('a text file without markers is one page; a byte order mark is dropped', async () => {
    expect(await extractDocument('NOTES.TXT', utf8('\uFEFFPlants make food.'))).toEqual([{ page: 1, text: 'Plants make food.' }]);
  });

  test('invalid UTF-8 is refused with the file name and what to do', async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    const error = await failure('notes.txt', latin1);
    expect(error.message).toBe('notes.txt is not valid UTF-8 text; save it as UTF-8 and upload it again');
  });

  test.each([
    ['empty', ''],
    ['blank', ' \n\t\n'],
    ['nothing but markers', '--- PAGE 1 ---\n\n--- PAGE 2 ---\n   '],
  ])('a file that is %s is refused', async (_, text) => {
    expect((await failure('notes.md', utf8(text))).message).toBe('notes.md is empty: it has no text to read');
  });

  test('markers may skip pages and text before the first is page 1', async () => {
    expect(await extractDocument('notes.md', utf8('Intro.\n--- PAGE 3 ---\nThree.\n--- PAGE 2000 ---\nLast.'))).toEqual([
      { page: 1, text: 'Intro.' },
      { page: 3, text: 'Three.' },
      { page: 2000, text: 'Last.' },
    ]);
  });

  test.each([
    ['page 0', 'Text.\n--- PAGE 0 ---\nMore.', 'notes.md has a page marker that numbers a page 0: pages are numbered from 1 to 2000 (a longer text is split into files). Fix the marker and upload it again'],
    ['a page past the most a document may have', `${'--- PAGE 1 ---\nA.\n'}--- PAGE 99999999999999999999 ---\nB.`, 'notes.md has a page marker that numbers a page above 2000: pages are numbered from 1 to 2000 (a longer text is split into files). Fix the marker and upload it again'],
    ['an earlier page after a later one', '--- PAGE 5 ---\nFive.\n--- PAGE 3 ---\nThree.', "notes.md has the page marker '--- PAGE 3 ---' after page 5: each marker must number a later page than the one before. Fix the marker and upload it again"],
    ['a page twice', '--- PAGE 1 ---\nOne.\n--- PAGE 1 ---\nAgain.', "notes.md has the page marker '--- PAGE 1 ---' after page 1: each marker must number a later page than the one before. Fix the marker and upload it again"],
    ['more pages than a document may have', Array.from({ length: 2001 }, (_, i) => `--- PAGE ${i + 1} ---\nLine.`).join('\n'), 'notes.md has a page marker that numbers a page above 2000: pages are numbered from 1 to 2000 (a longer text is split into files). Fix the marker and upload it again'],
  ])('page markers that cannot number its pages are refused: %s', async (_, text, message) => {
    expect((await failure('notes.md', utf8(text))).message).toBe(message);
  });

  test.each(['x.docx', 'scan.png', 'README', 'notes.md.zip'])('%s is an unsupported type', async (name) => {
    expect((await failure(name, utf8('Some text.'))).message).toBe(`${name}: unsupported file type; use PDF, .txt or .md`);
  });
});

describe('extractDocument: PDFs', () => {
  test('pages are numbered 1..n and a page without text stays, empty', async () => {
    expect(await extractDocument('grade10.pdf', pdfWithPages(['Leaves are green.', '', 'Roots take up water.']))).toEqual([
      { page: 1, text: 'Leaves are green.' },
      { page: 2, text: '' },
      { page: 3, text: 'Roots take up water.' },
    ]);
  });

  test('a PDF without any text is refused', async () => {
    expect((await failure('scan.pdf', pdfWithPages(['', '']))).message).toBe(
      'scan.pdf has no extractable text (scanned images are not supported): run it through OCR (text recognition) first, or upload the document it was made from',
    );
  });

  test('bytes that start like a PDF but are not one are refused with the reason', async () => {
    const error = await failure('grade10.pdf', utf8('%PDF-1.7\nthis is not really a PDF'));
    expect(error.message).toMatch(/^grade10\.pdf is not a readable PDF: \S/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  test('an empty .pdf file, and a PDF without pages, are refused saying so', async () => {
    expect((await failure('upload.pdf', new Uint8Array())).message).toBe('upload.pdf is empty (0 bytes): upload the file again');
    const noPages = pdfFromObjects(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
    expect((await failure('blank.pdf', noPages)).message).toBe('blank.pdf is not a readable PDF: it has no pages (its list of pages is empty or damaged); open it in a PDF viewer, print or save it to a new PDF, and upload that');
  });

  test('a PDF of more pages than are read is refused before its text is read', async () => {
    const pages = Array.from({ length: MAX_PAGES + 1 }, (_, i) => (i === 0 ? 'Leaves are green.' : ''));
    expect((await failure('atlas.pdf', pdfWithPages(pages))).message).toBe(
      `atlas.pdf has ${MAX_PAGES + 1} pages, more than the ${MAX_PAGES} a document may have; split it into files of at most ${MAX_PAGES} pages and upload each`,
    );
  });

  test('a password-protected PDF is refused, saying so', async () => {
    // made by scripts/build-pdf-fixtures.mjs: LibreOffice's export with an opening password
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/pdf-producers/password-protected.pdf', import.meta.url)));
    expect((await failure('exam.pdf', bytes)).message).toBe('exam.pdf is not a readable PDF: it is password-protected; upload a copy without a password');
  });

  test('a .pdf name on bytes that are not a PDF is refused', async () => {
    expect((await failure('grade10.pdf', utf8('Plants make food.'))).message).toBe(
      'grade10.pdf is not a readable PDF: it does not start with %PDF-',
    );
  });

  test('PDF bytes under another extension are refused', async () => {
    expect((await failure('grade10.txt', pdfWithPages(['Leaves are green.']))).message).toBe(
      'grade10.txt contains a PDF; name it with the .pdf extension and upload it again',
    );
  });
});
