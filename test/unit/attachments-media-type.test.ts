import { describe, expect, test } from '@jest/globals';
import { ContentMismatchError, declaredType, detectType, sniffedType, UnsupportedMediaTypeError } from '../../src/domain/attachments/media-type.js';
import { imageTokens } from '../../src/domain/attachments/prepare.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
const TEXT = Buffer.from('ප්‍රභාසංශ්ලේෂණය and photosynthesis\n');
const ZIP = Buffer.from('UEsDBBQAAAAIAAAAIQAAAAAAAAAAAAAAAAAAAAAACAAAAGEudHh0', 'base64');

describe('declared type: URL or file extension, then Content-Type, then media_type', () => {
  test.each([
    [{ name: '/papers/2022.PDF', contentType: 'image/png', mediaType: 'text/plain' }, 'application/pdf'],
    [{ name: '/download', contentType: 'image/png; charset=binary', mediaType: 'application/pdf' }, 'image/png'],
    [{ name: '/download', contentType: 'application/octet-stream', mediaType: 'image/gif' }, 'image/gif'],
    [{ name: '/x.jpeg', contentType: null }, 'image/jpeg'],
    [{ name: '/x.heif' }, 'image/heic'],
    [{ name: 'notes.md' }, 'text/plain'],
    [{ name: '/download', contentType: 'image/jpg' }, 'image/jpeg'],
    [{ name: '/download', contentType: 'application/zip' }, 'application/zip'],
    [{ name: '/page', contentType: 'text/html; charset=utf-8' }, 'text/html'],
    [{ name: '/download', contentType: 'application/force-download' }, null],
    // older spellings of supported types
    [{ name: '/download', contentType: 'application/x-pdf' }, 'application/pdf'],
    [{ name: '/download', contentType: 'application/acrobat' }, 'application/pdf'],
    [{ name: '/download', contentType: 'image/x-png' }, 'image/png'],
    [{ name: '/download', contentType: 'text/x-markdown' }, 'text/plain'],
    [{ name: '/download', contentType: 'application/x-download', mediaType: 'application/pdf' }, 'application/pdf'],
    [{ name: '/download', mediaType: 'application/msword' }, 'application/msword'],
    [{ name: '/download' }, null],
    // a name of another type keeps its label: refused as that, not read as whatever it looks like
    [{ name: 'a.svg', contentType: 'image/svg+xml' }, 'image/svg+xml'],
    [{ name: 'a.exe', contentType: 'application/x-msdownload' }, 'application/x-msdownload'],
    [{ name: 'page.html', contentType: 'text/html; charset=utf-8' }, 'text/html'],
    [{ name: 'notes.v2', contentType: 'application/octet-stream' }, null],
    [{ name: 'report.php', contentType: 'application/pdf' }, 'application/pdf'],
  ])('%j -> %s', (hints, expected) => {
    expect(declaredType(hints)).toBe(expected);
  });
});

describe('content sniffing', () => {
  test.each([
    [PNG, 'image/png'],
    [GIF, 'image/gif'],
    [PDF, 'application/pdf'],
    [TEXT, 'text/plain'],
    [Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80]), 'application/octet-stream'],
    [Buffer.from('text with a \u0000 NUL'), 'application/octet-stream'],
  ])('%#', async (bytes, expected) => {
    expect(await sniffedType(new Uint8Array(bytes))).toBe(expected);
  });
});

describe('detectType', () => {
  test('a labelled file whose content agrees', async () => {
    expect(await detectType({ name: 'page.png', contentType: 'image/png' }, new Uint8Array(PNG))).toBe('image/png');
    expect(await detectType({ name: '/a' }, new Uint8Array(PDF))).toBe('application/pdf');
  });

  test('an unsupported type names itself and lists the supported ones', async () => {
    await expect(detectType({ name: 'archive.zip', contentType: 'application/zip' }, new Uint8Array(ZIP))).rejects.toThrow(
      "Unsupported media type 'application/zip' for attachment 'archive.zip'. Supported types: image/jpeg, image/png, image/webp, image/gif, image/heic, application/pdf, text/plain.",
    );
    await expect(detectType({ name: 'x' }, new Uint8Array([0xff, 0xfe, 0, 1]))).rejects.toThrow(UnsupportedMediaTypeError);
  });

  test('a spoofed type is refused: the magic bytes must agree', async () => {
    await expect(detectType({ name: 'photo.png' }, new Uint8Array(PDF))).rejects.toThrow(ContentMismatchError);
    await expect(detectType({ name: 'notes.txt' }, new Uint8Array(PNG))).rejects.toThrow(
      "Attachment 'notes.txt' is declared as text/plain, but its content is image/png.",
    );
  });

  test.each(['empty.pdf', 'empty.txt', 'empty.png'])('an empty file, %s, is refused as empty, not as text that is no PDF', async (name) => {
    await expect(detectType({ name }, new Uint8Array())).rejects.toThrow(`Attachment '${name}' is empty (0 bytes): send the file with its content.`);
  });

  test('text that is not UTF-8 is told to be saved as UTF-8, not called application/octet-stream', async () => {
    const latin1 = new Uint8Array(Buffer.from('Caf\xe9 notes', 'latin1'));
    await expect(detectType({ name: 'notes.txt', contentType: 'text/plain' }, latin1)).rejects.toThrow(
      "Attachment 'notes.txt' is declared as text/plain, but it is not UTF-8 text: save it as UTF-8 and send it again.",
    );
  });

  test('UTF-8 text with a NUL is told so, not that it is not UTF-8', async () => {
    await expect(detectType({ name: 'notes.txt' }, new TextEncoder().encode('ප්‍රකාශ\u0000 notes'))).rejects.toThrow(
      "Attachment 'notes.txt' is UTF-8 text with a NUL character (U+0000), which text may not contain: remove it and send it again.",
    );
  });
});

describe('image token cost', () => {
  test.each([
    [1, 1, 258],
    [384, 384, 258],
    [385, 200, 516],
    [4032, 3024, 516],
  ])('%ix%i -> %i tokens', (w, h, tokens) => {
    expect(imageTokens(w, h)).toBe(tokens);
  });
});
