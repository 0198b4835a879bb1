import { ServiceError } from '../errors.js';
import { normalise } from '../text/normalise.js';
import { splitMarkedText, type Page } from './pages.js';
import { inflatesWithin, MAX_INFLATED_BYTES } from './pdf-budget.js';
import { extractPdfPages } from './pdf-text.js';

/** The file cannot be indexed; the message says why and what to do about it. */
export class UnreadableDocumentError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unreadable_document', message, {}, options);
  }
}

const PDF_SIGNATURE = '%PDF-';
const TEXT_EXTENSIONS = ['.txt', '.md'];

/**
 * The pages of an uploaded document. PDFs keep their page numbering (pages without text stay,
 * empty); text files are split at their `--- PAGE n ---` lines.
 */
export async function extractDocument(fileName: string, bytes: Uint8Array): Promise<Page[]> {
  const extension = /\.[^./\\]+$/.exec(fileName.toLowerCase())?.[0] ?? '';
  const isPdf = startsWith(bytes, PDF_SIGNATURE);
  if (extension === '.pdf' || isPdf) {
    if (!isPdf) throw new UnreadableDocumentError(`${fileName} is not a readable PDF: it does not start with ${PDF_SIGNATURE}`);
    if (extension !== '.pdf') {
      throw new UnreadableDocumentError(`${fileName} contains a PDF; name it with the .pdf extension and upload it again`);
    }
    return pdfPages(fileName, bytes);
  }
  if (!TEXT_EXTENSIONS.includes(extension)) {
    throw new UnreadableDocumentError(`${fileName}: unsupported file type; use PDF, .txt or .md`);
  }
  return textPages(fileName, bytes);
}

/** The pages of UTF-8 text, split at its `--- PAGE n ---` lines; empty text is refused. */
export function textPages(fileName: string, bytes: Uint8Array): Page[] {
  const pages = splitMarkedText(normalise(decodeUtf8(fileName, bytes)));
  if (pages.every((p) => p.text.trim() === '')) throw new UnreadableDocumentError(`${fileName} is empty: no text to index`);
  return pages;
}

/** The pages of a PDF, numbered as in the file; a PDF without any text is refused. */
export async function pdfPages(fileName: string, bytes: Uint8Array): Promise<Page[]> {
  if (!inflatesWithin(bytes)) {
    throw new UnreadableDocumentError(`${fileName} is not a readable PDF: its content expands to more than ${MAX_INFLATED_BYTES} bytes`);
  }
  let texts: string[];
  try {
    texts = await extractPdfPages(bytes);
  } catch (error) {
    throw new UnreadableDocumentError(`${fileName} is not a readable PDF: ${pdfProblem(error)}`, { cause: error });
  }
  if (texts.every((t) => t.trim() === '')) {
    throw new UnreadableDocumentError(`${fileName} has no extractable text (scanned images are not supported)`);
  }
  return texts.map((text, i) => ({ page: i + 1, text }));
}

function pdfProblem(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // pdf.js asks for a password; the service has none to give.
  if (error.name === 'PasswordException') return 'it is password-protected; upload a copy without a password';
  return error.message;
}

function decodeUtf8(fileName: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw new UnreadableDocumentError(`${fileName} is not valid UTF-8 text; save it as UTF-8 and upload it again`, {
      cause: error,
    });
  }
}

function startsWith(bytes: Uint8Array, signature: string): boolean {
  return bytes.length >= signature.length && [...signature].every((c, i) => bytes[i] === c.charCodeAt(0));
}
