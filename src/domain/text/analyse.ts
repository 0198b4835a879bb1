import stopword from 'stopword';
import { normalise } from './normalise.js';

// The service's own keyword analyser. Weaviate indexes its output with `whitespace`
// tokenization because its `word` rule cuts Sinhala and Tamil words at every vowel sign; the
// same functions must run on documents and on queries.

// A fixed locale: the default one comes from the environment, and index and query time must
// split text the same way on every machine.
const WORDS = new Intl.Segmenter('en', { granularity: 'word' });
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
const STOPWORDS = new Set(stopword.eng);
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
// Typed Sinhala often leaves out the joiners that curriculum text has (ප්රදේශ vs ප්‍රදේශ);
// dropping them from terms lets both spellings match.
const JOINERS = /[\u200C\u200D]/g;
const SINHALA_OR_TAMIL = /[\u0B80-\u0BFF\u0D80-\u0DFF]/u;
// Stems of 3 clusters found the right passage more often than whole words or 2 or 4 clusters
// (BM25 recall@1 on the shared QA sets: Sinhala 0.98 vs 0.86 for words, Tamil 0.72 vs 0.63).
const STEM_CLUSTERS = 3;
// A light English suffix strip: [suffix, replacement, shortest word it applies to]. It found
// a few more SciQ passages than whole words did.
const ENGLISH_SUFFIXES: [RegExp, string, number][] = [
  [/ies$/, 'y', 5],
  [/ing$/, '', 6],
  [/ed$/, '', 5],
  [/(ss|sh|ch|x|z)es$/, '$1', 5],
  [/([^isu])s$/, '$1', 4],
];
const LATIN_WORD = /^[a-z]+$/;

/** Lowercased words without English stopwords or punctuation; numbers stay. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const { segment, isWordLike } of WORDS.segment(normalise(text).toLowerCase())) {
    if (!isWordLike) continue;
    const term = segment.replace(JOINERS, '');
    if (HAS_LETTER_OR_DIGIT.test(term) && !STOPWORDS.has(term)) out.push(term);
  }
  return out;
}

/**
 * One stem per term: Sinhala and Tamil words cut to their first grapheme clusters, which
 * stands in for their suffixes; English words lose a plural, -ing or -ed ending.
 */
export function stems(text: string): string[] {
  return terms(text).map(stem);
}

export function analysedText(text: string): string {
  return terms(text).join(' ');
}

export function stemText(text: string): string {
  return stems(text).join(' ');
}

function stem(term: string): string {
  if (LATIN_WORD.test(term)) return englishStem(term);
  if (!SINHALA_OR_TAMIL.test(term)) return term;
  const clusters = Array.from(GRAPHEMES.segment(term), (s) => s.segment);
  return clusters.length > STEM_CLUSTERS ? clusters.slice(0, STEM_CLUSTERS).join('') : term;
}

function englishStem(word: string): string {
  for (const [suffix, replacement, minLength] of ENGLISH_SUFFIXES) {
    if (word.length >= minLength && suffix.test(word)) return word.replace(suffix, replacement);
  }
  return word;
}
