import { describe, expect, test } from '@jest/globals';
import { extractiveAnswer } from '../../src/domain/answering/extractive.js';
import type { Passage } from '../../src/domain/answering/passage.js';

const passage = (text: string, language: string | null = 'english', name = 'doc.pdf'): Passage => ({
  documentId: 'doc_1',
  documentName: name,
  pages: [1],
  metadata: {},
  text,
  language,
});

describe('extractive answers', () => {
  test('quote the sentences that share most words with the question, each once, in document order', () => {
    const overlap = 'Chlorophyll absorbs light energy for photosynthesis.';
    const drafted = extractiveAnswer('What does chlorophyll absorb for photosynthesis?', [
      passage(`--- PAGE 1 ---\nPlants are green. ${overlap}`),
      passage(`${overlap} Roots take up water.`),
    ]);
    expect(drafted.answer).toBe(overlap);
    expect(drafted.used).toEqual([0]);
  });

  test('prefer passages in the question\'s language, but always consider attachments', () => {
    const drafted = extractiveAnswer('ප්‍රභාසංශ්ලේෂණය යනු කුමක්ද?', [
      passage('Photosynthesis makes glucose.', 'english'),
      passage('ප්‍රභාසංශ්ලේෂණය යනු ශාක ආහාර නිපදවන ක්‍රියාවලියයි.', 'sinhala'),
      passage('මගේ සටහන: ප්‍රභාසංශ්ලේෂණය කොළ වල සිදු වේ.', null, 'notes.txt'),
    ]);
    expect(drafted.used).toEqual([1, 2]);
    expect(drafted.answer).not.toContain('Photosynthesis makes glucose');
  });

  test('say plainly when nothing relevant was found, with nothing to cite', () => {
    expect(extractiveAnswer('What is osmosis?', [passage('Volcanoes erupt lava.')])).toEqual({
      answer: 'No relevant passages were found in the indexed curriculum documents for this question.',
      used: [],
    });
    expect(extractiveAnswer('ஒஸ்மோசிஸ் என்றால் என்ன?', []).answer).toMatch(/[\u0B80-\u0BFF]/);
  });
});
