import { imageSize } from 'image-size';
import { heifExtents } from './heif-extents.js';
import { MAX_DECODED_PIXELS, type SupportedType } from './limits.js';

export type ImageType = Extract<SupportedType, `image/${string}`>;

/** What the service learns from an image before it goes to the model provider. */
export interface ReadImage {
  width: number;
  height: number;
  /** the image as JPEG, for HEIC, which not every provider accepts; null: the bytes go as they are */
  jpeg: Uint8Array | null;
}

/** An image with more pixels than are decoded; the message completes "Attachment '<name>' is too large to read: ". */
export class TooManyPixelsError extends Error {
  override name = 'TooManyPixelsError';
  constructor(width: number, height: number) {
    super(`${width}x${height} pixels, more than the ${MAX_DECODED_PIXELS} allowed`);
  }
}

/**
 * The size of an image, and HEIC converted to JPEG. The `image` step of
 * src/domain/ports/heavy-work.ts: decoding and re-encoding take about a second per 50 megapixels.
 */
export async function readImage({ bytes, type }: { bytes: Uint8Array; type: ImageType }): Promise<ReadImage> {
  const { width, height } = imageSize(bytes);
  if (type !== 'image/heic') return { width, height, jpeg: null };
  // decoding allocates 4 bytes per pixel of each image's full extent: refuse what would not fit
  // before decoding
  const extents = heifExtents(bytes);
  const largest = extents.reduce((a, b) => (b.width * b.height > a.width * a.height ? b : a), { width, height });
  if (largest.width * largest.height > MAX_DECODED_PIXELS) throw new TooManyPixelsError(largest.width, largest.height);
  if (extents.length === 0 || width <= 0 || height <= 0) throw new Error('the file gives no usable image size');
  // loaded here, in the worker, so that the main thread never loads the decoder
  const { default: convertHeic } = await import('heic-convert');
  const jpeg = await convertHeic({ buffer: bytes, format: 'JPEG', quality: 0.9 });
  const converted = imageSize(jpeg);
  return { width: converted.width, height: converted.height, jpeg };
}
