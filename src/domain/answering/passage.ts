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

export function fromHit({ chunk }: Hit): Passage {
  const metadata: Record<string, string> = {};
  for (const key of METADATA_KEYS) if (chunk[key]) metadata[key] = chunk[key];
  return { documentId: chunk.documentId, documentName: chunk.documentName, pages: chunk.pages, metadata, text: chunk.chunkText, language: chunk.language };
}

/**
 * An attached text or PDF as passages, cited by its own name with an empty document id: all of
 * what was kept of it (its first ATTACHMENT_TEXT_CHARS characters, prepare.ts), as the contract
 * says any of that may be quoted (20 chunks, about 15,000 characters, were used before).
 */
export function fromAttachment(attachment: TextAttachment): Passage[] {
  return chunkPages(attachment.pages).map((chunk) => ({ documentId: '', documentName: attachment.name, pages: chunk.pages, metadata: null, text: chunk.text, language: null }));
}
