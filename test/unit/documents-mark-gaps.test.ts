import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { breaksAfterMarks, joinWords, wordsJoinedByGlyphs, type GlyphRun, type WordBox } from '../../src/domain/documents/mark-gaps.js';

// The first line of chromium-serif-tamil.pdf as poppler's words and pdf.js's runs place it:
// "இலங்கையின் நீர் வளம்", which pdftotext reads "இலங் கையின் நீர் வளம்".
const box = (text: string, xMin: number, xMax: number, yMin = 68.5): WordBox => ({ text, xMin, xMax, yMin, yMax: yMin + 17.16 });
const run = (text: string, x: number, width: number, y = 80.25): GlyphRun => ({ text, x, y, width });
const LINE_WORDS = [box('இலங்', 63, 91.46), box('கையின்', 97.09, 141.61), box('நீர்', 151.54, 164.59), box('வளம்', 170.71, 202.73)];
const LINE_RUNS = [
  run('இல', 63, 22.83),
  run('ங்', 85.83, 11.26),
  run('ைக', 97.09, 23.62),
  run('யி', 120.71, 13.28),
  run('ன்', 133.99, 14.7),
  // pdf.js gives a space drawn with the glyph after it a width over both
  run(' நீ', 151.54, 0),
  run(' ', 148.69, 15.91),
  run('ர்', 160.62, 7.23),
  run(' ', 167.86, 3.81),
  run('வள', 170.71, 26.55),
];

describe('wordsJoinedByGlyphs', () => {
  test('joins a word broken where its cluster, ending in a pulli, reaches the next word; not words with a space between them', () => {
    expect(wordsJoinedByGlyphs(LINE_WORDS, LINE_RUNS)).toEqual(new Set(['இலங் கையின்']));
  });

  test('joins nothing where pdf.js places the glyphs elsewhere than poppler places the words', () => {
    // the same runs a little further along (a font whose widths are not the ones the file used)
    const shifted = LINE_RUNS.map((r) => ({ ...r, x: r.x + 1.5 }));
    expect(wordsJoinedByGlyphs(LINE_WORDS, shifted)).toEqual(new Set());
    // the cluster's run reaches the next word, but no run starts where poppler's next word does
    expect(wordsJoinedByGlyphs(LINE_WORDS, LINE_RUNS.filter((r) => r.text !== 'ைக'))).toEqual(new Set());
  });

  test('leaves out a pair that the page also shows apart, and a pair whose first word does not end in a mark', () => {
    // a second line: the same two words with a space glyph between them
    const second = [box('இலங்', 63, 91.46, 100), box('கையின்', 100.9, 145.42, 100)];
    const secondRuns = [run('இல', 63, 22.83, 111.75), run('ங்', 85.83, 11.26, 111.75), run(' ', 97.09, 3.81, 111.75), run('ைக', 100.9, 23.62, 111.75)];
    expect(wordsJoinedByGlyphs([...LINE_WORDS, ...second], [...LINE_RUNS, ...secondRuns])).toEqual(new Set());
    const noMark = [box('இல', 63, 85.83), box('ங்கையின்', 85.83 + 0.5, 141.61)];
    expect(wordsJoinedByGlyphs(noMark, [run('இல', 63, 23.33), run('ங்', 86.33, 11.26)])).toEqual(new Set());
  });

  test('does not join the last word of a line to the first of the next', () => {
    const words = [box('இலங்', 63, 91.46), box('கையின்', 97.09, 141.61, 96)];
    const runs = [run('ங்', 85.83, 11.26), run('ைக', 97.09, 23.62, 107.75)];
    expect(wordsJoinedByGlyphs(words, runs)).toEqual(new Set());
  });
});

describe('breaksAfterMarks', () => {
  const tamil = readFileSync(new URL('../fixtures/pdf-producers/tamil.txt', import.meta.url), 'utf8');

  test('is false for correct Tamil text, where about a third of pullis end a word', () => {
    for (const page of tamil.split(/^--- PAGE \d+ ---$/m).slice(1)) expect(breaksAfterMarks(page)).toBe(false);
  });

  test('is true for text broken after nearly every pulli, and false for a page with too few to tell', () => {
    expect(breaksAfterMarks('இலங் கையின் நீர் வளம் : உசாத் துணைக் குறிப் புகள் வட் டம் சுற் றிக் கொண் டிருக் கிறது')).toBe(true);
    expect(breaksAfterMarks('நீர் வட் டம்')).toBe(false);
  });
});

describe('joinWords', () => {
  test('joins each pair where one space parts it, a word broken in several places whole', () => {
    const joined = new Set(['சுற் றிக்', 'றிக் கொண்', 'கொண் டிருக்', 'டிருக் கிறது.']);
    expect(joinWords('நீர் சுற் றிக் கொண் டிருக் கிறது. நீர்', joined)).toBe('நீர் சுற்றிக்கொண்டிருக்கிறது. நீர்');
  });

  test('leaves a pair at a line break, and pairs not given, as they are', () => {
    expect(joinWords('இலங்\nகையின் இலங் கை', new Set(['இலங் கையின்']))).toBe('இலங்\nகையின் இலங் கை');
  });
});
