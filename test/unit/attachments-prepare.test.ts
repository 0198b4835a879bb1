import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { ATTACHMENT_TEXT_CHARS, LARGE_IMAGE_TOKENS, prepareAll, prepareAttachment, type TextAttachment } from '../../src/domain/attachments/prepare.js';
import { UnreadableDocumentError } from '../../src/domain/documents/extract.js';
import { InvalidAttachmentError } from '../../src/domain/errors.js';
import { OverBudgetError, type HeavyWork } from '../../src/domain/ports/heavy-work.js';
import { sharedStreamPdf } from '../support/pdf.js';
import { testPool } from './support/pool.js';

const pool = testPool({ cpuMs: 1000 });
const oneThread = testPool({ threads: 1, perOwner: 1, cpuMs: 1000 });
const prepare = (name: string, bytes: Uint8Array) => prepareAttachment({ name, bytes, hints: { name } }, pool, 'key');
const heic = readFileSync('test/fixtures/photo.heic');

/** The HEIC fixture with the size in its header (its one `ispe` box) changed. */
function heicClaiming(width: number, height: number): Uint8Array {
  const bytes = Buffer.from(heic);
  const box = bytes.indexOf('ispe');
  bytes.writeUInt32BE(width, box + 8);
  bytes.writeUInt32BE(height, box + 12);
  return new Uint8Array(bytes);
}

/**
 * heicClaiming's file with a crop (`clap`) after its extent, whose second number image-size
 * takes from the width: the size it reports is then any number, though decoding still allocates the full extent.
 */
function heicCropped(width: number, height: number, cropNumber: number): Uint8Array {
  const bytes = Buffer.from(heicClaiming(width, height));
  const clap = Buffer.alloc(40);
  clap.writeUInt32BE(40, 0);
  clap.write('clap', 4);
  clap.writeUInt32BE(cropNumber, 12);
  const at = bytes.indexOf('ispe') - 4 + 20;
  const grown = Buffer.concat([bytes.subarray(0, at), clap, bytes.subarray(at)]);
  // the boxes holding it grow with it
  for (const box of ['meta', 'iprp', 'ipco']) {
    const start = grown.indexOf(box) - 4;
    grown.writeUInt32BE(grown.readUInt32BE(start) + 40, start);
  }
  return new Uint8Array(grown);
}

describe('prepareAttachment', () => {
  test('a HEIC image becomes JPEG, sized for its tokens', async () => {
    const image = await prepare('leaf.heic', new Uint8Array(heic));
    expect(image).toMatchObject({ kind: 'image', tokens: LARGE_IMAGE_TOKENS, dataUrl: expect.stringMatching(/^data:image\/jpeg;base64,\/9j\//) });
  });

  test('a HEIC image of more pixels than are decoded is refused before decoding, saying so', async () => {
    const error = await prepare('huge.heic', heicClaiming(10_000, 10_000)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidAttachmentError);
    expect((error as Error).message).toBe("Attachment 'huge.heic' is too large to read: 10000x10000 pixels, more than the 50000000 allowed. Send a smaller image.");
  });

  test.each([
    ['a small', 9_990],
    ['a negative', 25_000],
  ])('a HEIC image whose crop makes its size %s number is refused by its full extent before decoding', async (_, cropNumber) => {
    const error = await prepare('cropped.heic', heicCropped(10_000, 10_000, cropNumber)).catch((e: unknown) => e);
    expect((error as Error).message).toBe("Attachment 'cropped.heic' is too large to read: 10000x10000 pixels, more than the 50000000 allowed. Send a smaller image.");
  });

  test('a PDF that needs more processor time than allowed is refused with what to do', async () => {
    const error = await prepare('slow.pdf', sharedStreamPdf(160, 1 << 20)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreadableDocumentError);
    expect((error as Error).message).toBe(
      'slow.pdf needs more work than allowed: reading it takes more than 1 second of processor time. Send a smaller file, or only the pages you need.',
    );
  });

  test('a long text keeps the start an answer can read', async () => {
    const sentence = 'Plants make their food in the leaves. ';
    const text = `--- PAGE 1 ---\n${sentence.repeat(500)}\n--- PAGE 2 ---\n \n--- PAGE 3 ---\n${sentence.repeat(5000)}`;
    const { pages } = (await prepare('notes.txt', new TextEncoder().encode(text))) as TextAttachment;
    expect(pages.map((p) => p.page)).toEqual([1, 3]);
    expect(pages[0]!.text).toBe(sentence.repeat(500).trim());
    expect(pages[0]!.text.length + pages[1]!.text.length).toBe(ATTACHMENT_TEXT_CHARS);
    expect(sentence.repeat(5000)).toContain(pages[1]!.text);
  });

  test("when one attachment is refused, the others' reading is stopped, or dropped while it waits for a thread", async () => {
    const outcomes: Promise<string>[] = [];
    const watched: HeavyWork = {
      run(kind, input, owner, signal) {
        const job = oneThread.run(kind, input, owner, signal);
        outcomes.push(job.then(() => `${kind} read`, (error: Error) => `${kind} ${error instanceof OverBudgetError ? 'over budget' : error.name}`));
        return job;
      },
    };
    const raws = [
      { name: 'slow.pdf', bytes: sharedStreamPdf(160, 1 << 20) },
      { name: 'notes.txt', bytes: new TextEncoder().encode('Osmosis moves water.') },
      { name: 'archive.zip', bytes: new Uint8Array(Buffer.from('UEsDBBQAAAAIAAAAIQAAAAAAAAAAAAAAAAAAAAAACAAAAGEudHh0', 'base64')) },
    ].map((file) => ({ ...file, hints: { name: file.name } }));
    await expect(prepareAll(raws, watched, 'key', new AbortController().signal)).rejects.toThrow("Unsupported media type 'application/zip'");
    // the PDF was being read and is stopped; the text, waiting behind it, is never read
    expect((await Promise.all(outcomes)).sort()).toEqual(['markedText AbortError', 'pdfText AbortError']);
  });
});
