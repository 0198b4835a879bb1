import type { ImageAttachment } from '../attachments/prepare.js';
import { splitMarkedText } from '../documents/pages.js';
import type { Model } from '../../generated/contract-values.js';
import type { ChatMessage, ContentPart, ModelProvider } from '../ports/model-provider.js';
import { detectLanguage } from '../text/normalise.js';
import type { Drafted } from './extractive.js';
import { nothingFound } from './not-found.js';
import type { Passage } from './passage.js';

const SYSTEM = [
  'You answer questions from students of Sri Lankan schools (grades 6-13).',
  'Use only the numbered passages and any attached images given to you; never use outside knowledge.',
  'Answer in the language of the question, clearly and briefly.',
  'Cite the passages you used by their numbers in square brackets, for example [1] or [2][3].',
  'If they do not contain the answer, say that the provided curriculum documents do not contain it.',
].join(' ');

export interface Generated extends Drafted {
  promptTokens: number;
  completionTokens: number;
}

function pagesLabel(pages: number[]): string {
  return pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.join(', ')}`;
}

/** Whether there is anything to ask the provider about; without it the answer says that nothing was found. */
export function canGenerate(passages: Passage[], images: ImageAttachment[]): boolean {
  return passages.length > 0 || images.length > 0;
}

/** The messages that ask for an answer from the numbered passages (and images) only. */
export function promptFor(question: string, passages: Passage[], images: ImageAttachment[]): ChatMessage[] {
  const numbered = passages
    .map((passage, i) => {
      const text = splitMarkedText(passage.text).map((p) => p.text).join('\n');
      return `[${i + 1}] ${passage.documentName}, ${pagesLabel(passage.pages)}\n${text}`;
    })
    .join('\n\n');
  const content: ContentPart[] = [
    { type: 'text', text: `Passages:\n\n${numbered || '(none)'}\n\nQuestion: ${question}` },
    ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: image.dataUrl } })),
  ];
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content },
  ];
}

/** The provider writes the answer from the passages (and images) only; the passages it cites are the citations. */
export async function generativeAnswer(
  provider: ModelProvider,
  model: Model,
  question: string,
  passages: Passage[],
  images: ImageAttachment[],
  signal: AbortSignal,
): Promise<Generated> {
  if (!canGenerate(passages, images)) {
    return { answer: nothingFound(detectLanguage(question)), used: [], promptTokens: 0, completionTokens: 0 };
  }
  const completion = await provider.complete(model, promptFor(question, passages, images), signal);
  const { answer, used } = renumberCitations(completion.text, passages.length);
  return { answer, used, promptTokens: completion.promptTokens, completionTokens: completion.completionTokens };
}

// A citation mark: one passage number, or several in one pair of brackets ("[2, 3]")
const CITATION = /\[(\d+(?:\s*,\s*\d+)*)\]/g;

/**
 * The passages an answer cites, in rank order, and the answer with its marks renumbered to match:
 * `[k]` in the answer is the k-th citation of the response, whichever passage number the model
 * used. Marks with a number outside the passages are left as written (they may be text, `a[0]`).
 * An answer that cites nothing was still written from all the passages it was given.
 */
export function renumberCitations(text: string, passages: number): Drafted {
  const inRange = (n: number) => n >= 1 && n <= passages;
  const numbers = (mark: string) => mark.split(',').map((n) => Number(n.trim()));
  const cited = new Set<number>();
  for (const [, mark] of text.matchAll(CITATION)) if (numbers(mark!).every(inRange)) numbers(mark!).forEach((n) => cited.add(n));
  if (cited.size === 0) return { answer: text, used: Array.from({ length: passages }, (_, i) => i) };
  const ranked = [...cited].sort((a, b) => a - b);
  const position = new Map(ranked.map((n, i) => [n, i + 1]));
  const answer = text.replace(CITATION, (whole, mark: string) =>
    numbers(mark).every(inRange) ? `[${numbers(mark).map((n) => position.get(n)).join(', ')}]` : whole,
  );
  return { answer, used: ranked.map((n) => n - 1) };
}
