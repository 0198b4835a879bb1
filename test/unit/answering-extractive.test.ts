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
      passage('වැසි ජලය ගංගා වලට ගලා යයි.', 'sinhala'),
      passage('මගේ සටහන: ප්‍රභාසංශ්ලේෂණය යනු ශාක ආහාර නිපදවන ක්‍රියාවලියයි.', null, 'notes.txt'),
    ]);
    expect(drafted).toEqual({ answer: 'මගේ සටහන: ප්‍රභාසංශ්ලේෂණය යනු ශාක ආහාර නිපදවන ක්‍රියාවලියයි.', used: [2] });
  });

  test('quote prose from one passage: never a heading, page furniture, a question or an exam item', () => {
    const text = [
      '--- PAGE 1 ---',
      'Photosynthesis: How Plants Make Food',
      'Grade 10 Science, Unit 4',
      'Green plants make their own food by photosynthesis. They need light, water and carbon dioxide.',
      '1. What do plants need for photosynthesis?',
      'Why do plants need photosynthesis?',
    ].join('\n');
    const drafted = extractiveAnswer('What do plants need for photosynthesis?', [passage(text), passage('Photosynthesis happens in leaves.')]);
    expect(drafted).toEqual({ answer: 'Green plants make their own food by photosynthesis. They need light, water and carbon dioxide.', used: [0] });
  });

  test('a sentence that points back brings the one before it; a long one stands alone', () => {
    const drafted = extractiveAnswer('What is the protein in red blood cells which transports oxygen around the body?', [
      passage(
        'Hemoglobin is found in red blood cells. It is the protein in red blood cells which transports oxygen around the body. ' +
          'Anaemia, a lack of it, makes people tired, pale and short of breath, and is treated with iron in food or tablets for weeks.',
      ),
    ]);
    expect(drafted.answer).toBe('Hemoglobin is found in red blood cells. It is the protein in red blood cells which transports oxygen around the body.');
    const long = `Plants ${'really '.repeat(40)}need light to make food. Plants also need water.`;
    expect(extractiveAnswer('What do plants need to make food?', [passage(long)]).answer.split(/\s+/)).toHaveLength(46);
  });

  test('say plainly when nothing relevant was found, with nothing to cite', () => {
    expect(extractiveAnswer('What is osmosis?', [passage('Volcanoes erupt lava.')])).toEqual({
      answer: 'No relevant passages were found in the indexed curriculum documents for this question.',
      used: [],
    });
    expect(extractiveAnswer('ஒஸ்மோசிஸ் என்றால் என்ன?', []).answer).toMatch(/[\u0B80-\u0BFF]/);
  });
});
