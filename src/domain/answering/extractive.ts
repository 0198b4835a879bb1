import { splitMarkedText } from '../documents/pages.js';
import { detectLanguage } from '../text/normalise.js';
import { sentences } from '../text/sentences.js';
import { stems, terms } from '../text/analyse.js';
import { nothingFound } from './not-found.js';
import type { Passage } from './passage.js';

/** Words an answer may grow to when a neighbouring sentence is added (a longer best sentence stays alone). */
const MAX_WORDS = 40;
/** The best sentence takes the one before it when it points back to it, up to this many words in all. */
const MAX_WORDS_WITH_ANTECEDENT = 60;
// Sinhala and Tamil inflect: a question's word often appears in the passage only by its stem
const STEM_WEIGHT: Record<string, number> = { english: 0.5, sinhala: 2, tamil: 2 };
// A sentence that points back early on ("It is ...", "... live in them") needs the one before it to make sense
const POINTS_BACK = /^(?:\S+\s+){0,6}?(it|its|this|these|that|those|they|them|their|such|he|she|his|her|එය|එහි|මෙය|මේවා|ඔහු|ඇය|ඔවුහු|ඔවුන්|இது|இவை|அது|அவை|அவர்)(?=[\s,])/iu;
// Only prose answers: titles, headings and page furniture do not end with sentence punctuation
const SENTENCE_END = /[.!।]["'”’)\]]*$/u;
/** An unpunctuated line this long is prose cut at a passage's end, not a heading. */
const MIN_UNPUNCTUATED_WORDS = 10;
const EXAM_ITEM = /^(\(?[0-9ivx]{1,4}[.)]|\(?[a-h]\)|Q\s?\d+)\s/iu;

export interface Drafted {
  answer: string;
  /** Positions (in the passages given) of the passages the answer quotes, in rank order. */
  used: number[];
}

interface Sentence {
  passage: number;
  position: number;
  text: string;
  words: number;
}

/**
 * Quotes the sentence that best covers the question, with its neighbours where they belong to
 * it: the one before when the best one points back to it ("It is ..."), the one after while the
 * answer stays short. All from one passage, in its order, preferring passages in the question's
 * language (attachments always count). It never writes text of its own, apart from saying that
 * nothing relevant was found.
 */
export function extractiveAnswer(question: string, passages: Passage[]): Drafted {
  const language = detectLanguage(question);
  const wanted = new Set(terms(question));
  const wantedStems = new Set(stems(question));
  const stemWeight = STEM_WEIGHT[language] ?? 0.5;
  const sameLanguage = passages.some((p) => p.language === language);

  const sentencesOf = passages.map((passage) => sentences(splitMarkedText(passage.text).map((p) => p.text).join('\n')));
  let best: (Sentence & { score: number }) | null = null;
  for (const [index, passage] of passages.entries()) {
    if (sameLanguage && passage.language !== null && passage.language !== language) continue;
    for (const [position, text] of sentencesOf[index]!.entries()) {
      if (!isProse(text)) continue;
      const words = terms(text);
      const matched = new Set(words.filter((w) => wanted.has(w))).size;
      const stemMatched = new Set(stems(text).filter((s) => wantedStems.has(s))).size;
      if (matched + stemMatched === 0) continue;
      // how much of the question the sentence covers; shorter and higher-ranked break ties
      const coverage = (matched + stemWeight * stemMatched) / Math.max(1, wanted.size + stemWeight * wantedStems.size);
      const score = coverage - 0.002 * words.length - 0.01 * index;
      if (!best || score > best.score) best = { passage: index, position, text, words: wordCount(text), score };
    }
  }
  if (!best) return { answer: nothingFound(language), used: [] };

  const chosen: Sentence = best;
  const own = sentencesOf[chosen.passage]!;
  const at = (position: number): Sentence | null =>
    position >= 0 && position < own.length ? { passage: chosen.passage, position, text: own[position]!, words: wordCount(own[position]!) } : null;
  const quoted: Sentence[] = [chosen];
  let total = chosen.words;
  const before = at(chosen.position - 1);
  if (before && isProse(before.text) && POINTS_BACK.test(chosen.text) && total + before.words <= MAX_WORDS_WITH_ANTECEDENT) {
    quoted.unshift(before);
    total += before.words;
  }
  const after = at(chosen.position + 1);
  if (after && isProse(after.text) && total + after.words <= MAX_WORDS) quoted.push(after);
  return { answer: quoted.map((s) => s.text).join(' '), used: [chosen.passage] };
}

/** A sentence of prose: not a question or a numbered exam item, and not a heading (short, unpunctuated). */
function isProse(text: string): boolean {
  if (/\?["'”’)]*$/u.test(text) || EXAM_ITEM.test(text)) return false;
  return SENTENCE_END.test(text) || wordCount(text) >= MIN_UNPUNCTUATED_WORDS;
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
