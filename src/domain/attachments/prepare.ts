import convertHeic from 'heic-convert';
import { imageSize } from 'image-size';
import { pdfPages, textPages } from '../documents/extract.js';
import { InvalidAttachmentError } from '../errors.js';
import type { Page } from '../documents/pages.js';
import { detectType, type TypeHints } from './media-type.js';

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
/** HEIC images are decoded to convert them; 50 megapixels covers any phone camera. */
const MAX_DECODED_PIXELS = 50_000_000;

export function imageTokens(width: number, height: number): number {
  return width <= SMALL_IMAGE_SIDE && height <= SMALL_IMAGE_SIDE ? SMALL_IMAGE_TOKENS : LARGE_IMAGE_TOKENS;
}

/** Checks the attachment's type and turns it into text pages or an image input. */
export async function prepareAttachment(raw: RawAttachment): Promise<PreparedAttachment> {
  const type = await detectType(raw.hints, raw.bytes, raw.name);
  // the same readers (and Sinhala/Tamil repair) as ingestion; the detected type says which
  if (type === 'application/pdf') return { kind: 'text', name: raw.name, pages: await pdfPages(raw.name, raw.bytes) };
  if (type === 'text/plain') return { kind: 'text', name: raw.name, pages: textPages(raw.name, raw.bytes) };
  let bytes = raw.bytes;
  let mediaType: string = type;
  let width: number;
  let height: number;
  try {
    if (type === 'image/heic') {
      // decoding allocates 4 bytes per pixel: refuse what would not fit before decoding
      const { width: w, height: h } = imageSize(raw.bytes);
      if (w * h > MAX_DECODED_PIXELS) throw new Error(`${w}x${h} pixels is more than ${MAX_DECODED_PIXELS}`);
      bytes = await convertHeic({ buffer: raw.bytes, format: 'JPEG', quality: 0.9 });
      mediaType = 'image/jpeg';
    }
    ({ width, height } = imageSize(bytes));
  } catch (error) {
    throw new InvalidAttachmentError(`Attachment '${raw.name}' is not a readable ${type} image.`, { cause: error });
  }
  return {
    kind: 'image',
    name: raw.name,
    dataUrl: `data:${mediaType};base64,${Buffer.from(bytes).toString('base64')}`,
    tokens: imageTokens(width, height),
  };
}
