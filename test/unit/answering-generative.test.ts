import { describe, expect, test } from '@jest/globals';
import { renumberCitations } from '../../src/domain/answering/generative.js';

describe('citations of a generated answer', () => {
  test('the cited passages, in rank order, and the marks renumbered so that [k] is the k-th citation', () => {
    expect(renumberCitations('Magma rises [3]. It erupts [1][3], then cools [3, 5].', 5)).toEqual({
      answer: 'Magma rises [2]. It erupts [1][2], then cools [2, 3].',
      used: [0, 2, 4],
    });
  });

  test('marks outside the passages are text, not citations', () => {
    expect(renumberCitations('The first element is a[0]; see [2] and [9].', 3)).toEqual({ answer: 'The first element is a[0]; see [1] and [9].', used: [1] });
  });

  test('an answer that cites nothing was written from every passage', () => {
    expect(renumberCitations('The documents do not contain the answer.', 2)).toEqual({ answer: 'The documents do not contain the answer.', used: [0, 1] });
  });
});
