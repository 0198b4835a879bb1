import { splitMarkedText } from '../documents/pages.js';
import { detectLanguage } from '../text/normalise.js';
import { sentences } from '../text/sentences.js';
import { stems, terms } from '../text/analyse.js';
import { nothingFound } from './not-found.js';
import type { Passage } from './passage.js';

const MAX_SENTENCES = 3;

export interface Drafted {
  answer: string;
  /** Positions (in the passages given) of the passages the answer quotes, in rank order. */
  used: number[];
}

interface Candidate {
  passage: number;
  position: number;
  text: string;
  score: number;
}

/**
 * Composes the answer from the passages' sentences that share most words with the question,
 * preferring passages in the question's language (attachments always count). It only quotes:
 * it never writes text of its own, apart from saying that nothing relevant was found.
 */
export function extractiveAnswer(question: string, passages: Passage[]): Drafted {
  const language = detectLanguage(question);
  const wanted = new Set(terms(question));
  const wantedStems = new Set(stems(question));
  const sameLanguage = passages.some((p) => p.language === language);

  const candidates: Candidate[] = [];
  passages.forEach((passage, index) => {
    if (sameLanguage && passage.language !== null && passage.language !== language) return;
    const plain = splitMarkedText(passage.text).map((p) => p.text).join('\n');
    sentences(plain).forEach((text, position) => {
      const words = terms(text);
      const matched = new Set(words.filter((w) => wanted.has(w))).size;
      const stemMatched = new Set(stems(text).filter((s) => wantedStems.has(s))).size;
      // favour sentences that cover the question, not merely long ones
      const score = (matched + 0.5 * stemMatched) / Math.sqrt(Math.max(words.length, 4)) - index * 0.01;
      if (matched + stemMatched > 0) candidates.push({ passage: index, position, text, score });
    });
  });
  if (candidates.length === 0) return { answer: nothingFound(language), used: [] };

  // overlapping chunks repeat sentences: quote each sentence once
  const seen = new Set<string>();
  const chosen = candidates
    .sort((a, b) => b.score - a.score)
    .filter((c) => {
      const key = terms(c.text).join(' ');
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_SENTENCES)
    .sort((a, b) => a.passage - b.passage || a.position - b.position);
  return {
    answer: chosen.map((c) => c.text).join(' '),
    used: [...new Set(chosen.map((c) => c.passage))],
  };
}
