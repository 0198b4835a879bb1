// The attachment rules, in one place. The contract states the same figures to API users (each
// file's x-max-bytes and allowed types, the count as maxItems); test/unit/contract-agreement.test.ts
// holds the two together.

/** Largest attachment, downloaded or uploaded: 10 MiB. */
export const MAX_ATTACHMENT_BYTES = 10_485_760;

export const SUPPORTED_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/heic', 'application/pdf', 'text/plain'] as const;
export type SupportedType = (typeof SUPPORTED_TYPES)[number];

/** HEIC images are decoded to convert them (4 bytes a pixel); 50 megapixels covers any phone camera. */
export const MAX_DECODED_PIXELS = 50_000_000;
