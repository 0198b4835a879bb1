import type { Fetched } from './safe-fetch.js';
import type { RawAttachment } from './prepare.js';

/** Downloads a URL attachment safely (see safe-fetch.ts); injected so tests can reach loopback servers. */
export type AttachmentFetcher = (url: string) => Promise<Fetched>;

export interface UrlAttachment {
  url: string;
  media_type?: string;
}

/**
 * A URL attachment in memory, with the labels its type is detected from: the final URL's file name
 * (after redirects, the same name the answer shows), the Content-Type, media_type.
 */
export async function downloadAttachment(fetcher: AttachmentFetcher, attachment: UrlAttachment): Promise<RawAttachment> {
  const fetched = await fetcher(attachment.url);
  return {
    name: fetched.fileName,
    bytes: fetched.bytes,
    hints: { name: fetched.fileName, contentType: fetched.contentType, mediaType: attachment.media_type },
  };
}
