import type { Fetched } from './safe-fetch.js';
import type { RawAttachment } from './prepare.js';
import { sideBySide } from './side-by-side.js';

/** Downloads a URL attachment safely (see safe-fetch.ts); injected so tests can reach loopback servers. */
export type AttachmentFetcher = (url: string, signal?: AbortSignal) => Promise<Fetched>;

export interface UrlAttachment {
  url: string;
  media_type?: string;
}

/** Downloads all of a request's URL attachments; when one fails, or the request goes away, the others' connections are closed at once. */
export function downloadAll(fetcher: AttachmentFetcher, attachments: UrlAttachment[], signal?: AbortSignal): Promise<RawAttachment[]> {
  return sideBySide(attachments, (attachment, stop) => downloadAttachment(fetcher, attachment, stop), signal);
}

/**
 * A URL attachment in memory, with the labels its type is detected from: the final URL's file name
 * (after redirects, the same name the answer shows), the Content-Type, media_type.
 */
export async function downloadAttachment(fetcher: AttachmentFetcher, attachment: UrlAttachment, signal?: AbortSignal): Promise<RawAttachment> {
  const fetched = await fetcher(attachment.url, signal);
  return {
    name: fetched.fileName,
    bytes: fetched.bytes,
    hints: { name: fetched.fileName, contentType: fetched.contentType, mediaType: attachment.media_type },
  };
}
