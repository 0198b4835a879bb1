import { inflateSync, constants } from 'node:zlib';

/** Text extraction inflates every compressed stream into memory: the total is capped. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;
const STREAM = /stream\r?\n/g;

/**
 * Whether a PDF's compressed streams inflate to at most `budget` bytes in all. Checked before
 * pdf.js reads the file, because a "zip bomb" of a few megabytes expands to gigabytes; zlib stops
 * at the limit, so the check itself never holds more than the budget.
 */
export function inflatesWithin(bytes: Uint8Array, budget = MAX_INFLATED_BYTES): boolean {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  let remaining = budget;
  for (const match of text.matchAll(STREAM)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) break;
    try {
      // sync flush: a stream followed by a newline before `endstream` is still complete
      remaining -= inflateSync(bytes.subarray(start, end), { maxOutputLength: remaining + 1, finishFlush: constants.Z_SYNC_FLUSH }).length;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return false;
      // not a Flate stream (images and fonts use other filters) or damaged: pdf.js judges those
    }
    if (remaining < 0) return false;
  }
  return true;
}
