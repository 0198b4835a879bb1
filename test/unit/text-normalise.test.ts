import { describe, expect, test } from '@jest/globals';
import { detectLanguage, normalise } from '../../src/domain/text/normalise.js';

describe('normalise', () => {
  test('composes to NFC, Latin and Sinhala alike', () => {
    expect(normalise('cafe\u0301')).toBe('café');
    // ක + ෙ + ා is the decomposed form of කො
    expect(normalise('\u0D9A\u0DD9\u0DCF')).toBe('\u0D9A\u0DDC');
  });

  test('removes zero-width characters but keeps ZWJ and ZWNJ', () => {
    expect(normalise('photo\u200Bsyn\u00ADthe\u2060sis\uFEFF')).toBe('photosynthesis');
    const withJoiners = 'ප්\u200Dරදේශ ශ්\u200Cරී';
    expect(normalise(withJoiners)).toBe(withJoiners);
  });

  test('turns any run of spaces into one space and trims every line', () => {
    expect(normalise('  water \t\u00A0 cycle  ')).toBe('water cycle');
    expect(normalise(' ජලය\u2003 චක්‍රය \n  வானிலை   ')).toBe('ජලය චක්‍රය\nவானிலை');
  });

  test('keeps newlines, blank lines included, and unifies line endings', () => {
    expect(normalise('one\r\ntwo\rthree\u2028four\n\n\nfive')).toBe('one\ntwo\nthree\nfour\n\n\nfive');
  });
});

describe('detectLanguage', () => {
  test.each([
    ['What is photosynthesis?', 'english'],
    ['ප්‍රභාසංශ්ලේෂණය යනු කුමක්ද?', 'sinhala'],
    ['ஒளித்தொகுப்பு என்றால் என்ன?', 'tamil'],
    ['DNA යනු ජීවීන්ගේ ප්‍රවේණික ද්‍රව්‍යයයි', 'sinhala'],
    ['Grade 10 அறிவியல் பாடம்: ஒளித்தொகுப்பு', 'tamil'],
    ['The Sinhala word ජලය means water', 'english'],
    ['', 'english'],
    ['12 + 7 = 19', 'english'],
  ])('%j is %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  test('the script with more letters wins over another Indic script', () => {
    expect(detectLanguage('ජලය நீர் நீர்நிலை')).toBe('tamil');
    expect(detectLanguage('ජලය චක්‍රය நீர்')).toBe('sinhala');
  });
});
