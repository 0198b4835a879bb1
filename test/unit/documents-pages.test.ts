import { describe, expect, test } from '@jest/globals';
import { joinPages, pageMarker, splitMarkedText, type Page } from '../../src/domain/documents/pages.js';

describe('page markers', () => {
  test('a marker is its own exact line format', () => {
    expect(pageMarker(3)).toBe('--- PAGE 3 ---');
  });

  test('joinPages puts each page after its marker line, pages separated by a newline', () => {
    expect(joinPages([{ page: 1, text: 'ජලය' }, { page: 2, text: 'நீர்\nவானிலை' }])).toBe(
      '--- PAGE 1 ---\nජලය\n--- PAGE 2 ---\nநீர்\nவானிலை',
    );
  });

  test('splitMarkedText gives back what joinPages joined, empty and multi-line pages included', () => {
    const pages: Page[] = [
      { page: 1, text: '# භාග\n\nභාගයක් යනු කොටසකි.' },
      { page: 2, text: '' },
      { page: 3, text: 'ஒளித்தொகுப்பு\n' },
      { page: 4, text: '\nLast page.' },
    ];
    expect(splitMarkedText(joinPages(pages))).toEqual(pages);
  });

  test('text without markers is all page 1', () => {
    expect(splitMarkedText('Plants make food.\nThey need light.')).toEqual([{ page: 1, text: 'Plants make food.\nThey need light.' }]);
    expect(splitMarkedText('')).toEqual([{ page: 1, text: '' }]);
  });

  test('pages keep their numbers as written', () => {
    expect(splitMarkedText('--- PAGE 5 ---\nfive\n--- PAGE 7 ---\nseven\n--- PAGE 6 ---\nsix')).toEqual([
      { page: 5, text: 'five' },
      { page: 7, text: 'seven' },
      { page: 6, text: 'six' },
    ]);
  });

  test('text before the first marker is page 1', () => {
    expect(splitMarkedText('Title page\n--- PAGE 2 ---\ntwo')).toEqual([
      { page: 1, text: 'Title page' },
      { page: 2, text: 'two' },
    ]);
    expect(splitMarkedText('Title\n--- PAGE 1 ---\none')).toEqual([{ page: 1, text: 'Title\none' }]);
  });

  test('blank text before the first marker is dropped', () => {
    expect(splitMarkedText('\n  \n--- PAGE 2 ---\ntwo')).toEqual([{ page: 2, text: 'two' }]);
  });

  test.each([
    ' --- PAGE 2 ---',
    '--- PAGE 2 --- ',
    '--- page 2 ---',
    '--- PAGE two ---',
    '--- PAGE -2 ---',
    '---PAGE 2---',
    'See --- PAGE 2 ---',
    '--- PAGE 2 --- continued',
  ])('%j is not a marker line', (line) => {
    expect(splitMarkedText(`--- PAGE 1 ---\nbefore\n${line}\nafter`)).toEqual([{ page: 1, text: `before\n${line}\nafter` }]);
  });
});
