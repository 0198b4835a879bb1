import { extname } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { fileTypeFromBuffer } from 'file-type';
import { InvalidAttachmentError } from '../errors.js';
import { SUPPORTED_TYPES, type SupportedType } from './limits.js';


const BY_EXTENSION: Record<string, SupportedType> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.heic': 'image/heic',
  '.heif': 'image/heic',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/plain',
};

// spellings of the same types, and labels that say nothing about the content
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/heif': 'image/heic',
  'application/x-pdf': 'application/pdf',
  'application/acrobat': 'application/pdf',
  'text/pdf': 'application/pdf',
  'text/markdown': 'text/plain',
  'text/x-markdown': 'text/plain',
};
const UNINFORMATIVE = new Set(['application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/binary', 'application/x-download', 'application/force-download', 'application/download', '']);

export class UnsupportedMediaTypeError extends InvalidAttachmentError {
  constructor(name: string, mediaType: string) {
    super(`Unsupported media type '${mediaType}' for attachment '${name}'. Supported types: ${SUPPORTED_TYPES.join(', ')}.`);
  }
}

export class ContentMismatchError extends InvalidAttachmentError {
  constructor(name: string, declared: string, actual: string) {
    // text in another encoding (UTF-16, a Windows code page) sniffs as octet-stream: say how to fix it
    super(
      declared === 'text/plain' && actual === 'application/octet-stream'
        ? `Attachment '${name}' is declared as text/plain, but it is not UTF-8 text: save it as UTF-8 and send it again.`
        : `Attachment '${name}' is declared as ${declared}, but its content is ${actual}.`,
    );
  }
}

/** The labels a file came with, in the order the specification says to trust them. */
export interface TypeHints {
  /** URL path or upload file name: its extension is looked at first */
  name: string;
  /** the download's Content-Type, or the upload part's type */
  contentType?: string | null;
  /** the optional media_type of a URL attachment, used when the others say nothing */
  mediaType?: string | null;
}

function normalise(type: string | null | undefined): string {
  const bare = (type ?? '').split(';')[0]!.trim().toLowerCase();
  return ALIASES[bare] ?? bare;
}

/**
 * The type named by the hints: the extension, then the Content-Type, each when it names a
 * supported type (servers often send generic or wrong ones), then media_type, which the client
 * gives for exactly that case; null when none says anything. A Content-Type that names another
 * type (a.svg as image/svg+xml, a web page as text/html) is kept when no label names a supported
 * one, so the file is refused as that type rather than read as whatever its content looks like
 * (markup as plain text); generic download labels say nothing.
 */
export function declaredType(hints: TypeHints): string | null {
  const extension = extname(hints.name).toLowerCase();
  const byExtension = BY_EXTENSION[extension];
  if (byExtension) return byExtension;
  const contentType = normalise(hints.contentType);
  if ((SUPPORTED_TYPES as readonly string[]).includes(contentType)) return contentType;
  const mediaType = normalise(hints.mediaType);
  if (!UNINFORMATIVE.has(mediaType)) return mediaType;
  return UNINFORMATIVE.has(contentType) ? null : contentType;
}

/** What the bytes are, by their magic numbers; plain text has none, so it is valid UTF-8 without NULs. */
export async function sniffedType(bytes: Uint8Array): Promise<string> {
  const found = await fileTypeFromBuffer(bytes);
  if (found) return normalise(found.mime);
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.includes('\u0000') ? 'application/octet-stream' : 'text/plain';
  } catch {
    return 'application/octet-stream';
  }
}

/**
 * The attachment's type: declared by its labels (or, with no label, by its content), supported,
 * and agreeing with the content's magic bytes, so a renamed executable cannot pass as a PNG.
 */
export async function detectType(hints: TypeHints, bytes: Uint8Array, shownName = hints.name): Promise<SupportedType> {
  // no content has no type: said so, rather than that an empty "PDF" is text
  if (bytes.length === 0) throw new InvalidAttachmentError(`Attachment '${shownName}' is empty (0 bytes): send the file with its content.`);
  const actual = await sniffedType(bytes);
  const declared = declaredType(hints) ?? actual;
  if (!(SUPPORTED_TYPES as readonly string[]).includes(declared)) throw new UnsupportedMediaTypeError(shownName, declared);
  if (declared !== actual) {
    // UTF-8 with a NUL sniffs as octet-stream too, but saving it as UTF-8 again would not help
    if (declared === 'text/plain' && isUtf8(bytes) && bytes.includes(0)) {
      throw new InvalidAttachmentError(`Attachment '${shownName}' is UTF-8 text with a NUL character (U+0000), which text may not contain: remove it and send it again.`);
    }
    throw new ContentMismatchError(shownName, declared, actual);
  }
  return declared as SupportedType;
}
