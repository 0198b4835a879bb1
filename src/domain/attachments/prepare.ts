import { pdfPages, textPages } from '../documents/extract.js';
import { InvalidAttachmentError } from '../errors.js';
import type { Page } from '../documents/pages.js';
import { JobFailedError, OverBudgetError, type HeavyWork } from '../ports/heavy-work.js';
import { TooManyPixelsError, type ImageType, type ReadImage } from './image.js';
import { detectType, type TypeHints } from './media-type.js';
import { sideBySide } from './side-by-side.js';

/** An attachment as it arrived: a downloaded URL or an uploaded part, held in memory only. */
export interface RawAttachment {
  /** shown in answers and citations: the upload's file name or the URL's last path segment */
  name: string;
  bytes: Uint8Array;
  hints: TypeHints;
}

export interface TextAttachment {
  kind: 'text';
  name: string;
  pages: Page[];
}

export interface ImageAttachment {
  kind: 'image';
  name: string;
  /** a data: URL in a format every multimodal provider accepts (HEIC becomes JPEG) */
  dataUrl: string;
  /** what the image adds to the request's token count */
  tokens: number;
}

export type PreparedAttachment = TextAttachment | ImageAttachment;

// Images cost a fixed number of tokens by size: small ones (both sides at most 384 px) 258,
// larger ones 516 (the figures the product documents).
export const SMALL_IMAGE_TOKENS = 258;
export const LARGE_IMAGE_TOKENS = 516;
const SMALL_IMAGE_SIDE = 384;
/**
 * How much of an attached text is kept, all of which an answer may quote (passage.ts): cutting a
 * long file down to this keeps chunking and answering it from holding the event loop.
 */
export const ATTACHMENT_TEXT_CHARS = 36_000;

export function imageTokens(width: number, height: number): number {
  return width <= SMALL_IMAGE_SIDE && height <= SMALL_IMAGE_SIDE ? SMALL_IMAGE_TOKENS : LARGE_IMAGE_TOKENS;
}

/**
 * Prepares a request's attachments side by side. When one is refused, or the request goes away
 * (`signal`), the others' reading is dropped while it waits for a thread and stopped while it
 * runs, leaving the key's share of the threads to its next request.
 */
export function prepareAll(raws: RawAttachment[], work: HeavyWork, owner: string, signal: AbortSignal): Promise<PreparedAttachment[]> {
  return sideBySide(raws, (raw, stop) => prepareAttachment(raw, { run: (kind, input, who) => work.run(kind, input, who, stop) }, owner), signal);
}

/**
 * Checks the attachment's type and turns it into text pages or an image input; the reading runs
 * off the event loop on `owner`'s share of `work`.
 */
export async function prepareAttachment(raw: RawAttachment, work: HeavyWork, owner: string): Promise<PreparedAttachment> {
  const type = await detectType(raw.hints, raw.bytes, raw.name);
  // the same readers (and Sinhala/Tamil repair) as ingestion; the detected type says which
  if (type === 'application/pdf') return { kind: 'text', name: raw.name, pages: leading(await pdfPages(raw.name, raw.bytes, work, owner)) };
  if (type === 'text/plain') return { kind: 'text', name: raw.name, pages: leading(await textPages(raw.name, raw.bytes, work, owner)) };
  const image = await readAttachedImage(raw, type, work, owner);
  const jpeg = image.jpeg;
  return {
    kind: 'image',
    name: raw.name,
    dataUrl: jpeg ? `data:image/jpeg;base64,${Buffer.from(jpeg).toString('base64')}` : `data:${type};base64,${Buffer.from(raw.bytes).toString('base64')}`,
    tokens: imageTokens(image.width, image.height),
  };
}

async function readAttachedImage(raw: RawAttachment, type: ImageType, work: HeavyWork, owner: string): Promise<ReadImage> {
  try {
    return await work.run('image', { bytes: raw.bytes, type }, owner);
  } catch (error) {
    if (error instanceof OverBudgetError) {
      throw new InvalidAttachmentError(`Attachment '${raw.name}' needs more work than allowed: reading it takes ${error.message}. Send a smaller image.`, {
        cause: error,
      });
    }
    if (error instanceof JobFailedError && error.name === TooManyPixelsError.name) {
      throw new InvalidAttachmentError(`Attachment '${raw.name}' is too large to read: ${error.message}. Send a smaller image.`, { cause: error });
    }
    if (error instanceof JobFailedError) throw new InvalidAttachmentError(`Attachment '${raw.name}' is not a readable ${type} image.`, { cause: error });
    throw error;
  }
}

/** The pages up to ATTACHMENT_TEXT_CHARS characters of text; pages of only whitespace do not count. */
function leading(pages: Page[]): Page[] {
  const kept: Page[] = [];
  let left = ATTACHMENT_TEXT_CHARS;
  for (const page of pages) {
    if (left <= 0) break;
    if (page.text.trim() === '') continue;
    kept.push(page.text.length <= left ? page : { page: page.page, text: page.text.slice(0, left) });
    left -= page.text.length;
  }
  return kept;
}
