import { inflateSync, constants } from 'node:zlib';

/** Text extraction inflates every compressed stream into memory: the total is capped. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

const STREAM = Buffer.from('stream', 'latin1');
const END_STREAM = Buffer.from('endstream', 'latin1');
const CR = 0x0d;
const LF = 0x0a;
/** An image XObject's subtype, at a name in its dictionary; the name ends where a PDF name can end. */
const IMAGE_SUBTYPE = /^\/Subtype\s*\/Image(?![A-Za-z0-9_.-])/;
/** How far before its `stream` keyword a stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

/**
 * Whether a PDF's compressed streams inflate to at most `budget` bytes in all. Checked before
 * the PDF reader reads the file, because a "zip bomb" of a few megabytes expands to gigabytes; zlib stops
 * at the limit, so the check itself never holds more than the budget.
 *
 * Images are not counted: the reader never decodes them (pdftotext draws no images, and pdf.js is
 * told not to), while an ordinary document's photos and diagrams inflate to hundreds of megabytes.
 * A stream that only claims to be an image is still bounded by the tools' memory and time budgets.
 *
 * One forward pass: after a stream's data the search goes on behind its `endstream`, so every
 * byte is looked at a bounded number of times however many `stream` keywords a file repeats.
 * It is a quick refusal with a clear message, not the guarantee: a file can hide a stream from
 * any scan that does not parse it, so the worker that reads PDFs also has a memory budget
 * (src/worker-pool/pool.ts) that counts the bytes it inflates.
 */
export function inflatesWithin(bytes: Uint8Array, budget = MAX_INFLATED_BYTES): boolean {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let remaining = budget;
  let from = 0;
  for (;;) {
    const keyword = data.indexOf(STREAM, from);
    if (keyword < 0) return true;
    const start = isEndStream(data, keyword) ? -1 : dataStart(data, keyword + STREAM.length);
    if (start < 0) {
      from = keyword + STREAM.length;
      continue;
    }
    const end = data.indexOf(END_STREAM, start);
    // no later stream can be complete either
    if (end < 0) return true;
    if (!isImage(data, keyword)) {
      try {
        // sync flush: a stream followed by a newline before `endstream` is still complete
        remaining -= inflateSync(data.subarray(start, end), { maxOutputLength: remaining + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return false;
        // not a Flate stream (photos and fonts use other filters) or damaged: the reader judges those
      }
    }
    if (remaining < 0) return false;
    from = end + END_STREAM.length;
  }
}

/**
 * Whether the dictionary before a stream's keyword (from its object's `obj`) makes it an image:
 * its own `/Subtype`, not one in a dictionary inside it.
 */
function isImage(data: Buffer, keyword: number): boolean {
  const before = data.toString('latin1', Math.max(0, keyword - DICTIONARY_WINDOW), keyword);
  const object = before.lastIndexOf('obj');
  const dictionary = object < 0 ? before : before.slice(object);
  let depth = 0;
  for (let i = 0; i < dictionary.length; i++) {
    const pair = dictionary.slice(i, i + 2);
    if (pair === '<<' || pair === '>>') {
      depth += pair === '<<' ? 1 : -1;
      i++;
    } else if (depth === 1 && dictionary[i] === '/' && IMAGE_SUBTYPE.test(dictionary.slice(i, i + 32))) {
      return true;
    }
  }
  return false;
}

function isEndStream(data: Buffer, keyword: number): boolean {
  return keyword >= 3 && data.toString('latin1', keyword - 3, keyword) === 'end';
}

/** Where a stream's data begins: after the end of line that follows the keyword; -1 if none does. */
function dataStart(data: Buffer, at: number): number {
  if (data[at] === LF) return at + 1;
  if (data[at] === CR && data[at + 1] === LF) return at + 2;
  return -1;
}
