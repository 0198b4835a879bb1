import { describe, expect, test } from '@jest/globals';
import { chunkPages, type Chunk } from '../../src/domain/documents/chunker.js';
import { joinPages, splitMarkedText, type Page } from '../../src/domain/documents/pages.js';

const SINHALA = [
  'සම්පූර්ණ වස්තුවක් සමාන කොටස්වලට බෙදූ විට එයින් කොටසක් දැක්වීමට භාගයක් භාවිත කරයි.',
  'රොටියක් සමාන කොටස් හතරකට කපා එයින් කොටස් තුනක් ගත් විට, අප ගත්තේ රොටියෙන් හතරෙන් තුනකි.',
  'එය 3/4 ලෙස ලියනු ලැබේ.',
  'භාගයක ඉරට පහළින් ඇති සංඛ්‍යාව හරය ලෙස හැඳින්වේ.',
  'ඉරට ඉහළින් ඇති සංඛ්‍යාව ලවය වේ.',
];
const TAMIL = [
  'பச்சைத் தாவரங்கள் தமக்குத் தேவையான உணவைத் தாமே தயாரிக்கின்றன.',
  'இச்செயன்முறையின்போது ஒட்சிசன் வளிமண்டலத்திற்கு விடுவிக்கப்படுகிறது.',
  'இலைகளின் பச்சை நிறத்திற்குக் காரணம் பச்சையம் எனும் நிறப்பொருளாகும்.',
  'பச்சையம் சூரிய ஒளியை உறிஞ்சி, அதனை இரசாயனச் சக்தியாக மாற்றுகிறது.',
];
const ENGLISH = [
  'Water evaporates from seas and lakes when the sun heats them.',
  'The vapour rises, cools and condenses into tiny droplets that form clouds.',
  'When the droplets grow heavy they fall as rain.',
  'Rain water flows back to the sea in rivers.',
];

const PAGES: Page[] = [
  { page: 1, text: `# භාග\n\n${SINHALA.join(' ')}` },
  { page: 2, text: TAMIL.join('\n') },
  { page: 3, text: ENGLISH.join(' ') },
];
const SENTENCES = [...SINHALA, ...TAMIL, ...ENGLISH];
const OPTIONS = { targetChars: 300, overlapChars: 80 };

const withoutMarkers = (text: string) => text.replace(/^--- PAGE \d+ ---$/gm, '');

/** The length of the longest end of `a` that `b` starts with. */
function overlap(a: string, b: string): number {
  for (let k = Math.min(a.length, b.length); k > 0; k--) if (a.endsWith(b.slice(0, k))) return k;
  return 0;
}

function pageOf(sentence: string): number {
  return PAGES.find((p) => p.text.includes(sentence))!.page;
}

describe('chunkPages', () => {
  const chunks = chunkPages(PAGES, OPTIONS);

  test('a short document is one chunk that starts with its page marker', () => {
    expect(chunkPages([{ page: 1, text: SINHALA[0]! }])).toEqual([
      { index: 0, text: `--- PAGE 1 ---\n${SINHALA[0]}`, pages: [1] },
    ]);
  });

  test('chunks are numbered from 0 and stay within the target size', () => {
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    for (const chunk of chunks) expect(chunk.text.length).toBeLessThanOrEqual(OPTIONS.targetChars);
  });

  test('a chunk spanning two pages lists both and holds the second page’s marker', () => {
    const spanning = chunks.find((c) => c.pages.join() === '1,2')!;
    expect(spanning).toBeDefined();
    const [before, after] = spanning.text.split('--- PAGE 2 ---\n');
    expect(SINHALA.some((s) => before!.includes(s))).toBe(true);
    expect(after!.startsWith(TAMIL[0]!)).toBe(true);
  });

  test('pages lists every page a chunk has content from', () => {
    for (const chunk of chunks) {
      const pages = SENTENCES.filter((s) => chunk.text.includes(s)).map(pageOf);
      expect(chunk.pages).toEqual([...new Set(pages)]);
    }
  });

  test('a chunk that starts inside a page starts with that page’s content', () => {
    const inside = chunks.filter((c) => !c.text.startsWith('--- PAGE'));
    expect(inside.length).toBeGreaterThan(0);
    for (const chunk of inside) {
      const first = SENTENCES.find((s) => chunk.text.startsWith(s))!;
      expect(first).toBeDefined();
      expect(chunk.pages[0]).toBe(pageOf(first));
    }
  });

  test('boundaries fall at sentence ends and every sentence is in some chunk', () => {
    for (const chunk of chunks) expect(chunk.text).toMatch(/\.$/);
    for (const sentence of SENTENCES) expect(chunks.some((c) => c.text.includes(sentence))).toBe(true);
  });

  test('consecutive chunks repeat about overlapChars of whole sentences', () => {
    for (let i = 1; i < chunks.length; i++) {
      const shared = chunks[i]!.text.slice(0, overlap(chunks[i - 1]!.text, chunks[i]!.text));
      expect(shared.length).toBeGreaterThan(OPTIONS.overlapChars / 2);
      expect(shared.length).toBeLessThan(OPTIONS.overlapChars * 2);
      expect(SENTENCES.some((s) => shared.startsWith(s))).toBe(true);
    }
  });

  test('the defaults are chunks of up to 900 characters overlapping by about 150', () => {
    const long = Array.from({ length: 40 }, (_, i) => `${ENGLISH[i % ENGLISH.length]} (${i})`);
    const result = chunkPages([{ page: 1, text: long.join(' ') }]);
    expect(result.length).toBeGreaterThan(2);
    for (const chunk of result) expect(chunk.text.length).toBeLessThanOrEqual(900);
    expect(result[0]!.text.length).toBeGreaterThan(800);
    const shared = overlap(result[0]!.text, result[1]!.text);
    expect(shared).toBeGreaterThan(75);
    expect(shared).toBeLessThan(225);
  });

  test('empty pages contribute nothing', () => {
    const result = chunkPages(
      [{ page: 1, text: ENGLISH.join(' ') }, { page: 2, text: ' \n ' }, { page: 3, text: TAMIL.join(' ') }],
      OPTIONS,
    );
    expect(result.flatMap((c) => c.pages)).not.toContain(2);
    expect(result.map((c) => c.text).join()).not.toContain('--- PAGE 2 ---');
    expect(result.some((c) => c.pages.join() === '1,3')).toBe(true);
  });

  test('no chunk is only markers or whitespace', () => {
    const sparse: Page[] = [
      { page: 1, text: 'One.' },
      { page: 2, text: '' },
      { page: 3, text: 'Two.' },
      { page: 4, text: '\n\n' },
    ];
    for (const options of [OPTIONS, { targetChars: 10, overlapChars: 0 }]) {
      const result = chunkPages(sparse, options);
      expect(result.length).toBeGreaterThan(0);
      for (const chunk of result) expect(withoutMarkers(chunk.text).trim()).not.toBe('');
    }
    expect(chunkPages([{ page: 1, text: '  ' }])).toEqual([]);
  });

  test('pages are listed ascending even when numbered out of order', () => {
    const [only] = chunkPages([{ page: 9, text: 'Nine.' }, { page: 4, text: 'Four.' }]);
    expect(only!.pages).toEqual([4, 9]);
  });

  test('the same pages always give the same chunks, also after a round trip through marked text', () => {
    expect(chunkPages(PAGES, OPTIONS)).toEqual(chunks);
    expect(chunkPages(splitMarkedText(joinPages(PAGES)), OPTIONS)).toEqual(chunks);
  });

  describe('a sentence longer than the target', () => {
    const words = Array.from({ length: 120 }, (_, i) => `${TAMIL[i % TAMIL.length]!.split(' ')[i % 3]}${i}`);
    const result: Chunk[] = chunkPages([{ page: 1, text: words.join(' ') }], { targetChars: 200, overlapChars: 50 });

    test('is cut at spaces, never inside a word', () => {
      expect(result.length).toBeGreaterThan(5);
      for (const chunk of result) {
        expect(chunk.text.length).toBeLessThanOrEqual(200);
        for (const word of withoutMarkers(chunk.text).split(/\s+/).filter(Boolean)) expect(words).toContain(word);
      }
    });

    test('and its pieces still overlap', () => {
      for (let i = 1; i < result.length; i++) expect(overlap(result[i - 1]!.text, result[i]!.text)).toBeGreaterThan(0);
    });
  });

  test('a single word longer than the target stays whole', () => {
    const word = 'ප්‍රභාසංශ්ලේෂණය'.repeat(10);
    const result = chunkPages([{ page: 1, text: `Short one. ${word} Another.` }], { targetChars: 50, overlapChars: 10 });
    expect(result.some((c) => c.text.includes(word))).toBe(true);
  });

  test.each([
    { targetChars: 0, overlapChars: 0 },
    { targetChars: 100, overlapChars: 100 },
    { targetChars: 100, overlapChars: -1 },
    { targetChars: Number.NaN, overlapChars: 10 },
  ])('refuses sizes %j', (options) => {
    expect(() => chunkPages(PAGES, options)).toThrow(RangeError);
  });
});
