import { countTokens as count } from 'gpt-tokenizer';
import type { PriceTable } from '../../config.js';
import type { Model } from '../../generated/contract-values.js';
import { InvalidRequestError } from '../errors.js';
import { memoised } from './memo.js';
import { OverBudgetError, type HeavyWork } from '../ports/heavy-work.js';

/**
 * Tokens of each text as an OpenAI-family tokenizer counts them (used when no provider reports
 * usage). The `tokens` step of src/domain/ports/heavy-work.ts: byte-pair encoding takes time that
 * grows with the square of a word's length, seconds for 40,000 letters without a space.
 */
export function countTokens(texts: string[]): number[] {
  return texts.map(tokensOf);
}

// the retrieved passages of one query are mostly those of earlier ones: each is counted once
const tokensOf = memoised((text) => count(text), { size: 2_000, maxLength: 4_000 });

/** Ordinary text tokenizes in a few milliseconds; only long runs without whitespace are slow. */
const INLINE_MAX_CHARS = 100_000;
const LONG_RUN = /\S{257}/;
// the search tries the run at every position of every passage (3% of a query's processor time): once a passage
const hasLongRun = memoised((text) => LONG_RUN.test(text), { size: 2_000, maxLength: 4_000 });

/**
 * The tokens of each text: counted here when that is cheap (ordinary text, so concurrent queries
 * never queue behind each other for it), else off the event loop on `owner`'s share of `work`.
 */
export async function countTokensOf(work: HeavyWork, owner: string, texts: string[]): Promise<number[]> {
  const chars = texts.reduce((sum, text) => sum + text.length, 0);
  if (chars <= INLINE_MAX_CHARS && !texts.some(hasLongRun)) return countTokens(texts);
  try {
    return await work.run('tokens', texts, owner);
  } catch (error) {
    if (!(error instanceof OverBudgetError)) throw error;
    // only text without spaces takes that long, tens of thousands of letters of it
    throw new InvalidRequestError(`The question and its attachments need more work than allowed to count their tokens: ${error.message}. Send shorter attachments.`);
  }
}

/** Cost in USD of a request, from the per-model price table (USD per million tokens), rounded by roundedUsd. */
export function costUsd(prices: PriceTable, model: Model, promptTokens: number, completionTokens: number): number {
  const price = prices[model];
  return roundedUsd((promptTokens * price.input + completionTokens * price.output) / 1_000_000);
}

/**
 * An amount in USD to the millionth, as the request log stores it (numeric(…, 6)), without the
 * float noise of sums and products (0.00030000000000000003): what every response reports.
 */
export function roundedUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
