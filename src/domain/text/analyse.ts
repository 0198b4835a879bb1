import { stemmer as tamilSnowballStem } from '@orama/stemmers/tamil';
import stopword from 'stopword';
import { normalise } from './normalise.js';
import { SINHALA_OR_TAMIL } from './scripts.js';

// The service's own keyword analyser. Weaviate indexes its output with `whitespace`
// tokenization because its `word` rule cuts Sinhala and Tamil words at every vowel sign; the
// same functions must run on documents and on queries.

// A fixed locale: the default one comes from the environment, and index and query time must
// split text the same way on every machine.
const WORDS = new Intl.Segmenter('en', { granularity: 'word' });
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
// "not" too: it only asks ("Which is not ...?"), and "NOT" naming a gate is kept below
const STOPWORDS = new Set([...stopword.eng, 'not']);
// Logic gates and a subject's name are written in capitals ("an OR gate", "A AND B", "IT"): such
// a stopword stays a term on a line not all in capitals (a heading's "AND" joins words). "NOT" in
// capitals is mostly emphasis ("Which metal does NOT rust?"): a term only before a gate's name.
const TERMS_WHEN_CAPITALISED = new Set(['and', 'or', 'it']);
const OPERATION = /^(?:gates?|operations?|operators?|ද්වාර\p{L}*|படலை\p{L}*|வாயில்\p{L}*)$/iu;
// a lowercase Latin letter, or a letter of a script without case (Sinhala, Tamil)
const NOT_CAPITAL = /[\p{Ll}\p{Lo}]/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
// Typed Sinhala often leaves out the joiners that curriculum text has (ප්රදේශ vs ප්‍රදේශ);
// dropping them from terms lets both spellings match.
const JOINERS = /[\u200C\u200D]/g;
const TAMIL = /[\u0B80-\u0BFF]/u;
// Tamil words that only ask: a question drops them before searching, since curriculum pages use
// them too (exam items, "X என்றால் என்ன?" headings). Compared without a trailing doubled-consonant
// joiner ("எதனைக்" is "எதனை" before a word starting with க).
const TAMIL_QUESTION_WORDS = new Set(
  'என்ன எது எவை யாவை யாது யார் எவர் எவர்கள் எங்கே எங்கு எப்போது எப்பொழுது ஏன் எப்படி எவ்வாறு எத்தனை எவ்வளவு எந்த எதனை எதை எதற்கு எதற்காக எதனால் என்றால்'.split(' '),
);
const MIN_SNOWBALL_CLUSTERS = 2;
const TAMIL_JOINER_CONSONANT = /(?<=[^\u0BCD])[கசதப]\u0BCD$/u;
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

/**
 * Lowercased words without English stopwords (but for "OR", "NOT" and the like in capitals) or
 * punctuation; numbers stay. Compatibility forms are folded (NFKC: fullwidth letters typed by
 * East Asian keyboards, a PDF's ﬁ ligature): only for matching, the text itself is quoted as
 * written. Sinhala and Tamil have no such forms.
 */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const line of normalise(text).normalize('NFKC').split('\n')) {
    const notAllCapitals = NOT_CAPITAL.test(line);
    const words = Array.from(WORDS.segment(line)).filter((s) => s.isWordLike);
    for (const [i, { segment }] of words.entries()) {
      const term = segment.toLowerCase().replace(JOINERS, '');
      if (!HAS_LETTER_OR_DIGIT.test(term)) continue;
      if (!STOPWORDS.has(term) || (notAllCapitals && keptCapitalised(segment, term, words[i + 1]?.segment))) out.push(term);
    }
  }
  return out;
}

function keptCapitalised(segment: string, term: string, next: string | undefined): boolean {
  if (segment.length < 2 || segment !== segment.toUpperCase()) return false;
  return TERMS_WHEN_CAPITALISED.has(term) || (term === 'not' && next !== undefined && OPERATION.test(next));
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

/**
 * What the index's stem field holds for a text: each term's stem and, for a Tamil word, also its
 * Snowball stem (suffixes stripped by rule: "தாவரங்களில்" and "தாவரம்" both give "தாவரம்"),
 * which matches inflected forms that the three-cluster cut keeps apart or joins wrongly.
 */
export function stemText(text: string): string {
  return stemTokens(terms(text)).join(' ');
}

/** Whether a term is a Tamil word that only asks ("என்ன", "எதனைக்"): neither searched for nor matched in an answer. */
export function asksOnly(term: string): boolean {
  return TAMIL_QUESTION_WORDS.has(term.replace(TAMIL_JOINER_CONSONANT, ''));
}

/**
 * A question as the index is searched with it: its terms and stem tokens, as for a document,
 * without the Tamil words that only ask (unless nothing else is left).
 */
export function analysedQuestion(question: string): { terms: string; stems: string } {
  const all = terms(question);
  const asked = all.filter((term) => !asksOnly(term));
  const kept = asked.length > 0 ? asked : all;
  return { terms: kept.join(' '), stems: stemTokens(kept).join(' ') };
}

function stemTokens(words: string[]): string[] {
  return words.flatMap((term) => {
    const cut = stem(term);
    if (!TAMIL.test(term)) return [cut];
    const snowball = tamilSnowballStem(term);
    // the algorithm cuts some words to a letter or nothing ("விற்பனை" to "வி"), which would match
    // unrelated words: such a stem is left out
    const usable = clusterCount(snowball) >= MIN_SNOWBALL_CLUSTERS && snowball !== cut;
    return usable ? [cut, snowball] : [cut];
  });
}

function clusterCount(word: string): number {
  return Array.from(GRAPHEMES.segment(word)).length;
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
