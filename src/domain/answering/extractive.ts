import { splitMarkedText } from '../documents/pages.js';
import { detectLanguage } from '../text/normalise.js';
import { sentences } from '../text/sentences.js';
import { stems, terms } from '../text/analyse.js';
import type { Hit } from '../../search-index/chunks.js';
import { nothingFound } from './not-found.js';

const MAX_SENTENCES = 3;

export interface Drafted {
  answer: string;
  /** Positions (in `hits`) of the chunks the answer quotes, in rank order. */
  used: number[];
}

interface Candidate {
  hit: number;
  position: number;
  text: string;
  score: number;
}

/**
 * Composes the answer from the retrieved chunks' sentences that share most words with the
 * question, preferring chunks in the question's language. It only quotes: it never writes text
 * of its own, apart from saying that nothing relevant was found.
 */
export function extractiveAnswer(question: string, hits: Hit[]): Drafted {
  const language = detectLanguage(question);
  const wanted = new Set(terms(question));
  const wantedStems = new Set(stems(question));
  const sameLanguage = hits.some((h) => h.chunk.language === language);

  const candidates: Candidate[] = [];
  hits.forEach((hit, index) => {
    if (sameLanguage && hit.chunk.language !== language) return;
    const plain = splitMarkedText(hit.chunk.chunkText).map((p) => p.text).join('\n');
    sentences(plain).forEach((text, position) => {
      const words = terms(text);
      const matched = new Set(words.filter((w) => wanted.has(w))).size;
      const stemMatched = new Set(stems(text).filter((s) => wantedStems.has(s))).size;
      // favour sentences that cover the question, not merely long ones
      const score = (matched + 0.5 * stemMatched) / Math.sqrt(Math.max(words.length, 4)) - index * 0.01;
      if (matched + stemMatched > 0) candidates.push({ hit: index, position, text, score });
    });
  });
  if (candidates.length === 0) return { answer: nothingFound(language), used: [] };

  const chosen = candidates
    .sort((a, b) => b.score - a.score)
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.hit - b.hit || a.position - b.position);
  return {
    answer: chosen.map((c) => c.text).join(' '),
    used: [...new Set(chosen.map((c) => c.hit))],
  };
}
