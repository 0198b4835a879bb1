import { describe, expect, test } from '@jest/globals';
import { costUsd } from '../../src/domain/answering/cost.js';

const prices = { 'svcai-fast': { input: 0.15, output: 0.6 }, 'svcai-thinking': { input: 1.1, output: 4.4 } };

describe('costUsd', () => {
  test('is rounded to the millionth of a dollar the request log keeps, without float noise', () => {
    // unrounded, 1001 × 0.15 / 1e6 is 0.00015015000000000002
    expect(costUsd(prices, 'svcai-fast', 1001, 0)).toBe(0.00015);
    expect(costUsd(prices, 'svcai-thinking', 812, 100)).toBe(0.001333);
  });
});
