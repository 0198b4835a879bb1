import { ServiceError } from '../errors.js';
import type { Embedder } from '../ports/embedder.js';
import { rankCandidates, type Drafted } from './extractive.js';
import type { Passage } from './passage.js';

/** The embeddings endpoint and the question's vector (retrieval's, reused): what ranking sentences by meaning needs. */
export interface Meaning {
  embedder: Embedder;
  question: number[];
}

/**
 * The languages whose answers weigh the meaning of the best-matching sentences, measured on the
 * held-out sets (README "Answer quality"): Sinhala answered 41 of 42 questions instead of 38,
 * where a word's many suffixed forms make matching words weak; SciQ (English), whose questions
 * reuse their passage's words, answered 4 fewer of 300 at any weight, so English words alone decide.
 */
const BY_MEANING = new Set(['sinhala']);
/** How many of the best word matches are embedded (one call; a sentence costs about 25 ms on the local server): 3 did as well as 5 or 8. */
const CANDIDATES = 3;
/** How much a sentence's similarity counts, in standard deviations among the candidates, beside its word-match score (1 to 8 did alike). */
const MEANING_WEIGHT = 2;

/**
 * The extractive answer (extractive.ts), with the best few sentences by word match ranked again
 * by their meaning's similarity to the question's in the languages where that answers better.
 * Without embeddings, or when the endpoint fails or is slow (the question's short timeout), the
 * word match alone decides, as extractiveAnswer does: an answer always comes.
 */
export async function answerByMeaning(question: string, passages: Passage[], meaning: Meaning | null): Promise<Drafted> {
  const ranked = rankCandidates(question, passages);
  const top = ranked.candidates.slice(0, CANDIDATES);
  if (!meaning || !BY_MEANING.has(ranked.language) || top.length < 2) return ranked.quote(top[0]);
  let vectors: number[][];
  try {
    vectors = await meaning.embedder.embed(
      top.map((c) => ranked.focus(c)),
      'passage',
      { urgent: true },
    );
  } catch (error) {
    // the embedder reports (and logs) its endpoint's failures as ServiceErrors; anything else is a defect
    if (!(error instanceof ServiceError)) throw error;
    return ranked.quote(top[0]);
  }
  // cosine similarities are close together for any sentence of the subject: what counts is how far each stands out among the candidates
  const similarity = standardised(vectors.map((v) => cosine(meaning.question, v)));
  const scores = top.map((c, i) => c.score + MEANING_WEIGHT * similarity[i]!);
  return ranked.quote(top[scores.indexOf(Math.max(...scores))]);
}

/**
 * The embedder, remembering the last question's vector it was asked for, so that the answer
 * reuses retrieval's instead of asking the endpoint again.
 */
export function rememberingQuestion(embedder: Embedder): Embedder & { question(): number[] | undefined } {
  let last: number[] | undefined;
  return {
    async embed(texts, kind, options) {
      const vectors = await embedder.embed(texts, kind, options);
      if (kind === 'query') last = vectors[0];
      return vectors;
    },
    question: () => last,
  };
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa && bb ? dot / Math.sqrt(aa * bb) : 0;
}

/** Each value's distance from their mean in standard deviations (all 0 when they are equal). */
function standardised(values: number[]): number[] {
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  const deviation = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length);
  return values.map((v) => (deviation ? (v - mean) / deviation : 0));
}
