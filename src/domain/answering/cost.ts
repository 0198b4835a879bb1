import { countTokens as count } from 'gpt-tokenizer';
import type { PriceTable } from '../../config.js';
import type { Model } from '../../generated/contract-values.js';

/** Tokens of a text as an OpenAI-family tokenizer counts them (used when no provider reports usage). */
export function countTokens(text: string): number {
  return count(text);
}

/** Cost in USD of a request, from the per-model price table (USD per million tokens). */
export function costUsd(prices: PriceTable, model: Model, promptTokens: number, completionTokens: number): number {
  const price = prices[model];
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}
