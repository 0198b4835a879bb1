import type { Hit } from '../../search-index/chunks.js';
import type { ModelProvider, PublicModel } from '../../providers/model-provider.js';
import { splitMarkedText } from '../documents/pages.js';
import { detectLanguage } from '../text/normalise.js';
import type { Drafted } from './extractive.js';
import { nothingFound } from './not-found.js';

const SYSTEM = [
  'You answer questions from students of Sri Lankan schools (grades 6-13).',
  'Use only the numbered passages given to you; never use outside knowledge.',
  'Answer in the language of the question, clearly and briefly.',
  'Cite the passages you used by their numbers in square brackets, for example [1] or [2][3].',
  'If the passages do not contain the answer, say that the provided curriculum documents do not contain it.',
].join(' ');

export interface Generated extends Drafted {
  promptTokens: number;
  completionTokens: number;
}

function pagesLabel(pages: number[]): string {
  return pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.join(', ')}`;
}

/** The provider writes the answer from the retrieved chunks only; the chunks it cites are the citations. */
export async function generativeAnswer(provider: ModelProvider, model: PublicModel, question: string, hits: Hit[]): Promise<Generated> {
  if (hits.length === 0) return { answer: nothingFound(detectLanguage(question)), used: [], promptTokens: 0, completionTokens: 0 };
  const passages = hits
    .map((hit, i) => {
      const text = splitMarkedText(hit.chunk.chunkText).map((p) => p.text).join('\n');
      return `[${i + 1}] ${hit.chunk.documentName}, ${pagesLabel(hit.chunk.pages)}\n${text}`;
    })
    .join('\n\n');
  const completion = await provider.complete(model, [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Passages:\n\n${passages}\n\nQuestion: ${question}` },
  ]);
  const cited = [...completion.text.matchAll(/\[(\d+)\]/g)]
    .map((m) => Number(m[1]) - 1)
    .filter((i) => i >= 0 && i < hits.length);
  // an answer that cites nothing was still written from all the passages it was given
  const used = cited.length ? [...new Set(cited)].sort((a, b) => a - b) : hits.map((_, i) => i);
  return { answer: completion.text, used, promptTokens: completion.promptTokens, completionTokens: completion.completionTokens };
}
