import { extractText, getDocumentProxy } from 'unpdf';
import { normalise } from '../text/normalise.js';
import { inflatesWithin, MAX_INFLATED_BYTES } from './pdf-budget.js';

// Text extracted from Sinhala and Tamil PDFs is in visual order: a vowel sign drawn before its
// consonant (ෙ, ේ, ෛ; ெ, ே, ை) comes before it, and the second half of a two-part vowel (ො =
// ෙ + ා, ொ = ெ + ா) stays after it. Moving the sign behind the consonant cluster and composing
// (NFC) gives the logical order that was typed.
//
// Logical text never has such a sign right after something other than a consonant, while
// visual text has it at the start of words and after a virama all the time. A script is only
// reordered when it shows that evidence, so correctly ordered text is left as it is.
interface Script {
  visual: RegExp;
  misplaced: RegExp;
}

const SINHALA_CONSONANT = '[\\u0D9A-\\u0DC6]';
const TAMIL_CONSONANT = '[\\u0B95-\\u0BB9]';

const SCRIPTS: Script[] = [
  {
    visual: new RegExp(`(?<!${SINHALA_CONSONANT})[\\u0DD9-\\u0DDB](?=${SINHALA_CONSONANT})`, 'u'),
    // A Sinhala conjunct needs a ZWJ beside the virama; a bare virama after the consonant is the
    // second half of ේ (ෙ + ්). Extraction sometimes doubles the virama inside a conjunct
    // (ෙශ්්‍ර for ශ්‍රේ): the extra one is that half too.
    misplaced: new RegExp(
      `([\\u0DD9-\\u0DDB])(${SINHALA_CONSONANT}(?:(?:\\u0DCA\\u0DCA?\\u200D|\\u200D\\u0DCA)${SINHALA_CONSONANT})*)`,
      'gu',
    ),
  },
  {
    visual: new RegExp(`(?<!${TAMIL_CONSONANT})[\\u0BC6-\\u0BC8](?=${TAMIL_CONSONANT})`, 'u'),
    // Tamil writes no ZWJ: a virama inside the cluster is a conjunct such as க்ஷ.
    misplaced: new RegExp(`([\\u0BC6-\\u0BC8])(${TAMIL_CONSONANT}(?:\\u0BCD${TAMIL_CONSONANT})*)`, 'gu'),
  },
];

// A vowel sign drawn on the first consonant of a Sinhala conjunct comes out before the conjunct's
// virama (කි්‍ර for ක්‍රි). No correctly ordered text has a vowel sign followed by a virama.
const SIGN_INSIDE_CONJUNCT = new RegExp(
  `(${SINHALA_CONSONANT})([\\u0DD0-\\u0DD6\\u0DD8])(\\u0DCA\\u200D${SINHALA_CONSONANT})`,
  'gu',
);

/** Logical order for Sinhala and Tamil text that a PDF gave in visual order; NFC. */
export function repairVisualOrder(text: string): string {
  let out = text.replace(SIGN_INSIDE_CONJUNCT, '$1$3$2');
  for (const { visual, misplaced } of SCRIPTS) {
    if (!visual.test(out)) continue;
    out = out.replace(misplaced, (_, sign: string, cluster: string) => {
      const single = cluster.replace('\u0DCA\u0DCA', '\u0DCA');
      return single === cluster ? cluster + sign : `${single}${sign}\u0DCA`;
    });
  }
  return out.normalize('NFC');
}

/** Bounds the work one document can cause (a textbook has a few hundred pages). */
export const MAX_PAGES = 2000;

/**
 * The text of every page, in order, repaired and normalised; empty strings for pages without text.
 * The `pdfText` step of src/domain/ports/heavy-work.ts: it runs in a worker, within a budget.
 * Its errors' messages complete "<file> is not a readable PDF: ".
 */
export async function extractPdfPages(bytes: Uint8Array): Promise<string[]> {
  if (!inflatesWithin(bytes)) throw new Error(`its content expands to more than ${MAX_INFLATED_BYTES} bytes`);
  // pdf.js refuses Node Buffers and detaches the array it is given: it gets its own copy.
  // Verbosity 0 keeps its warnings about damaged files out of the service's log.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  try {
    if (pdf.numPages > MAX_PAGES) throw new Error(`it has ${pdf.numPages} pages; at most ${MAX_PAGES} are read`);
    const { text } = await extractText(pdf, { mergePages: false });
    return text.map((page) => normalise(repairVisualOrder(page)));
  } finally {
    await pdf.loadingTask.destroy();
  }
}
