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
  images: ImageAttachment[] = [],
): Promise<Generated> {
  if (!canGenerate(passages, images)) {
    return { answer: nothingFound(detectLanguage(question)), used: [], promptTokens: 0, completionTokens: 0 };
  }
  const completion = await provider.complete(model, promptFor(question, passages, images));
  const cited = [...completion.text.matchAll(/\[(\d+)\]/g)]
    .map((m) => Number(m[1]) - 1)
    .filter((i) => i >= 0 && i < passages.length);
  // an answer that cites nothing was still written from all the passages it was given
  const used = cited.length ? [...new Set(cited)].sort((a, b) => a - b) : passages.map((_, i) => i);
  return { answer: completion.text, used, promptTokens: completion.promptTokens, completionTokens: completion.completionTokens };
}
