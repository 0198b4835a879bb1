import { ServiceError } from '../errors.js';
import { JobFailedError, OverBudgetError, type HeavyWork } from '../ports/heavy-work.js';
import { markedPagesProblem, type Page } from './pages.js';

/** The file cannot be indexed; the message says why and what to do about it. */
export class UnreadableDocumentError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unreadable_document', message, {}, options);
  }
}

const PDF_SIGNATURE = '%PDF-';
const TEXT_EXTENSIONS = ['.txt', '.md'];

/**
 * The pages of an uploaded document, read off the event loop on `owner`'s share of `work`. PDFs
 * keep their page numbering (pages without text stay, empty); text files are split at their
 * `--- PAGE n ---` lines. `signal` stops the reading (rejecting with its reason).
 */
export async function extractDocument(fileName: string, bytes: Uint8Array, work: HeavyWork, owner: string, signal?: AbortSignal): Promise<Page[]> {
  const extension = /\.[^./\\]+$/.exec(fileName.toLowerCase())?.[0] ?? '';
  const isPdf = startsWith(bytes, PDF_SIGNATURE);
  if (extension === '.pdf' || isPdf) {
    if (bytes.length === 0) throw new UnreadableDocumentError(`${fileName} is empty (0 bytes): upload the file again`);
    if (!isPdf) throw new UnreadableDocumentError(`${fileName} is not a readable PDF: it does not start with ${PDF_SIGNATURE}`);
    if (extension !== '.pdf') {
      throw new UnreadableDocumentError(`${fileName} contains a PDF; name it with the .pdf extension and upload it again`);
    }
    return pdfPages(fileName, bytes, work, owner, signal);
  }
  if (!TEXT_EXTENSIONS.includes(extension)) {
    throw new UnreadableDocumentError(`${fileName}: unsupported file type; use PDF, .txt or .md`);
  }
  return textPages(fileName, bytes, work, owner, signal);
}

/** The pages of UTF-8 text, split at its `--- PAGE n ---` lines; empty text, and markers that cannot number its pages, are refused. */
export async function textPages(fileName: string, bytes: Uint8Array, work: HeavyWork, owner: string, signal?: AbortSignal): Promise<Page[]> {
  let pages: Page[];
  try {
    pages = await work.run('markedText', bytes, owner, signal);
  } catch (error) {
    throw unreadable(fileName, error, () => `${fileName} is not valid UTF-8 text; save it as UTF-8 and upload it again`);
  }
  if (pages.every((p) => p.text.trim() === '')) throw new UnreadableDocumentError(`${fileName} is empty: it has no text to read`);
  const problem = markedPagesProblem(pages);
  if (problem) throw new UnreadableDocumentError(`${fileName} ${problem}`);
  return pages;
}

/** The pages of a PDF, numbered as in the file; a PDF without any text is refused. */
export async function pdfPages(fileName: string, bytes: Uint8Array, work: HeavyWork, owner: string, signal?: AbortSignal): Promise<Page[]> {
  let texts: string[];
  try {
    texts = await work.run('pdfText', bytes, owner, signal);
  } catch (error) {
    throw unreadable(fileName, error, (failure) => (failure.name === 'TooManyPagesError' ? `${fileName} ${failure.message}` : `${fileName} is not a readable PDF: ${pdfProblem(failure)}`));
  }
  if (texts.every((t) => t.trim() === '')) {
    throw new UnreadableDocumentError(`${fileName} has no extractable text (scanned images are not supported): run it through OCR (text recognition) first, or upload the document it was made from`);
  }
  return texts.map((text, i) => ({ page: i + 1, text }));
}

/** A reading step's failure as the refusal a caller sees; the service's own refusals pass as they are. */
function unreadable(fileName: string, error: unknown, failed: (failure: JobFailedError) => string): unknown {
  if (error instanceof OverBudgetError) {
    return new UnreadableDocumentError(
      `${fileName} needs more work than allowed: reading it takes ${error.message}. Send a smaller file, or only the pages you need.`,
      { cause: error },
    );
  }
  if (error instanceof JobFailedError) return new UnreadableDocumentError(failed(error), { cause: error });
  return error;
}

function pdfProblem(failure: JobFailedError): string {
  // the reader needs a password (src/worker-pool/poppler.ts); the service has none to give.
  if (failure.name === 'PasswordException') return 'it is password-protected; upload a copy without a password';
  return failure.message;
}

function startsWith(bytes: Uint8Array, signature: string): boolean {
  return bytes.length >= signature.length && [...signature].every((c, i) => bytes[i] === c.charCodeAt(0));
}
