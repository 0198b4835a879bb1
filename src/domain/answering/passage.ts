import { METADATA_KEYS } from '../../generated/contract-values.js';
import type { TextAttachment } from '../attachments/prepare.js';
import { chunkPages } from '../documents/chunker.js';
import type { Hit } from '../ports/search-index.js';

/** A piece of text an answer may be built from: a retrieved chunk or part of an attached file. */
export interface Passage {
  documentId: string;
  documentName: string;
  pages: number[];
  /** null for attachments: they are not curriculum documents */
  metadata: Record<string, string> | null;
  /** with its page marker lines */
  text: string;
  language: string | null;
}

/** An attachment joins the context with at most this many chunks, so a long file cannot crowd out the corpus. */
const MAX_ATTACHMENT_CHUNKS = 20;

export function fromHit({ chunk }: Hit): Passage {
  const metadata: Record<string, string> = {};
  for (const key of METADATA_KEYS) if (chunk[key]) metadata[key] = chunk[key];
  return { documentId: chunk.documentId, documentName: chunk.documentName, pages: chunk.pages, metadata, text: chunk.chunkText, language: chunk.language };
}

/** An attached text or PDF as passages, cited by its own name with an empty document id. */
export function fromAttachment(attachment: TextAttachment): Passage[] {
  return chunkPages(attachment.pages)
    .slice(0, MAX_ATTACHMENT_CHUNKS)
    .map((chunk) => ({ documentId: '', documentName: attachment.name, pages: chunk.pages, metadata: null, text: chunk.text, language: null }));
}
