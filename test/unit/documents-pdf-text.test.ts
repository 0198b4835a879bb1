import { readFileSync } from 'node:fs';
import { describe, expect, test } from '@jest/globals';
import { chooseReadingOrder, joinDetachedSigns, readingsDiffer, repairVisualOrder } from '../../src/domain/documents/pdf-text.js';
import { readPdfPages } from '../../src/worker-pool/poppler.js';

const LIMITS = { cpuMs: 10_000, memoryMb: 512 };

describe('repairVisualOrder', () => {
  test('recovers the Sinhala and Tamil words of the stack notes exactly', () => {
    expect(repairVisualOrder('සංශ්ෙල්ෂණය')).toBe('සංශ්ලේෂණය');
    expect(repairVisualOrder('ஒளிச்ேசர்க்ைக')).toBe('ஒளிச்சேர்க்கை');
  });

  test.each([
    ['Sinhala ො from ෙ + consonant + ා', 'ෙකාටස්', 'කොටස්'],
    ['Sinhala ෝ from ෙ + consonant + ා + ්', 'ෙහා්', 'හෝ'],
    ['Sinhala ෞ from ෙ + consonant + ෟ', 'ෙපෟද්ගලික', 'පෞද්ගලික'],
    ['Sinhala ෛ', 'ෛවද්‍ය', 'වෛද්‍ය'],
    ['Sinhala ෙ before a ZWJ conjunct', 'ෙෆ්‍රන්ච්', 'ෆ්‍රෙන්ච්'],
    ['Sinhala ේ whose virama came out inside the conjunct', 'ෙශ්්‍රණිය', 'ශ්‍රේණිය'],
    ['Sinhala vowel sign drawn on the first consonant of a conjunct', 'කි්‍රයාවලිය', 'ක්‍රියාවලිය'],
    ['Tamil ொ from ெ + consonant + ா', 'ஒளித்ெதாகுப்பு', 'ஒளித்தொகுப்பு'],
    ['Tamil ோ from ே + consonant + ா', 'இச்ெசயன்முைறயின்ேபாது', 'இச்செயன்முறையின்போது'],
    ['Tamil ௌ from ெ + consonant + ௗ', 'ெகௗரவம்', 'கௌரவம்'],
    ['Tamil ே before the conjunct க்ஷ', 'ேக்ஷத்திரம்', 'க்ஷேத்திரம்'],
  ])('%s', (_, visual, logical) => {
    expect(repairVisualOrder(visual)).toBe(logical);
  });

  test('in visual text a sign is moved even where it follows a consonant', () => {
    // உணைவ on its own could be read either way; beside the word-initial ே it is visual order
    expect(repairVisualOrder('பச்ைசத் தாவரங்கள் தமக்குத் ேதைவயான உணைவத் தாேம தயாரிக்கின்றன.')).toBe(
      'பச்சைத் தாவரங்கள் தமக்குத் தேவையான உணவைத் தாமே தயாரிக்கின்றன.',
    );
    expect(repairVisualOrder('සම්පූර්ණ වස්තුවක් සමාන ෙකාටස්වලට ෙබදූ විට')).toBe('සම්පූර්ණ වස්තුවක් සමාන කොටස්වලට බෙදූ විට');
  });

  test.each([
    ['Sinhala', 'ප්‍රභාසංශ්ලේෂණය ශ්‍රේණිය කොටස් හෝ පෞද්ගලික වෛද්‍ය ක්‍රියාවලිය'],
    ['Tamil', 'பச்சைத் தாவரங்கள் தமக்குத் தேவையான உணவைத் தாமே தயாரிக்கின்றன. ஒளிச்சேர்க்கை கௌரவம்'],
    ['English', 'Photosynthesis: 6CO2 + 6H2O -> C6H12O6 + 6O2 (in light).'],
    ['mixed', 'Grade 10 ජීව විද්‍යාව / தரம் 10 விஞ்ஞானம்'],
  ])('leaves correctly ordered %s text as it is', (_, text) => {
    expect(repairVisualOrder(text)).toBe(text);
  });

  test('is idempotent', () => {
    const visual = 'ෙකාටස් ෙශ්්‍රණිය කි්‍රයාවලිය ஒளித்ெதாகுப்பு ேதைவயான உணைவத்';
    const once = repairVisualOrder(visual);
    expect(once).not.toBe(visual);
    expect(repairVisualOrder(once)).toBe(once);
  });

  test('returns NFC', () => {
    expect(repairVisualOrder('\u0D9A\u0DD9\u0DCF')).toBe('\u0D9A\u0DDC');
  });
});

// Multi-page samples generated from samples/curriculum/src/<slug>.md (one PDF page per source
// page). Each Tamil word needs a repair (pdfkit's file gives it in visual order); the Sinhala
// file, printed by Chromium, is in logical order already, which the repair must leave as it is.
describe.each([
  ['grade6-mathematics-fractions-si', ['කොටස්', 'ශ්‍රේණිය', 'ලැබේ']],
  ['grade10-science-photosynthesis-ta', ['ஒளித்தொகுப்பு', 'தேவையான', 'இச்செயன்முறையின்போது']],
])('readPdfPages on the %s sample', (slug, words) => {
  const samples = new URL('../../samples/curriculum/', import.meta.url);
  const source = readFileSync(new URL(`src/${slug}.md`, samples), 'utf8');
  const bytes = readFileSync(new URL(`pdf/${slug}.pdf`, samples));

  test('gives one text per source page, with the source words in logical order', async () => {
    const pages = await readPdfPages(bytes, LIMITS);
    expect(pages).toHaveLength(source.match(/^--- PAGE \d+ ---$/gm)!.length);
    for (const word of words) {
      expect(source).toContain(word);
      expect(pages.join('\n')).toContain(word);
    }
  });

  test('leaves the caller’s bytes as they were', async () => {
    const copy = new Uint8Array(bytes);
    await readPdfPages(copy, LIMITS);
    expect(copy).toEqual(new Uint8Array(bytes));
  });
});

describe('joinDetachedSigns', () => {
  test.each([
    ['a Tamil pulli after a gap', 'இலங ் கையின ்', 'இலங் கையின்'],
    ['a Tamil pulli put on the next line', 'இலங\n் கையின\n் நீர்', 'இலங் கையின் நீர்'],
    ['a Tamil vowel sign after a gap', 'தமிழ் க ா', 'தமிழ் கா'],
    ['a Sinhala conjunct broken at the line end', 'ප්‍\nරමාණයෙන්', 'ප්‍රමාණයෙන්'],
    ['a Sinhala al-lakuna after a gap', 'ලංකාවේ කොටස ්', 'ලංකාවේ කොටස්'],
  ])('%s', (_, read, joined) => {
    expect(joinDetachedSigns(read)).toBe(joined);
  });

  test.each([
    ['ordinary Sinhala and Tamil', 'ශ්‍රී ලංකාවේ ක්‍රියාවලිය. இலங்கையின் நீர் வளம்.'],
    ['signs drawn before their letter, as visual order starts words with them', 'ෙකාටස් ேதைவயான'],
    ['a ZWJ conjunct before a space that is not followed by a consonant', 'ර්‍ 1'],
  ])('leaves %s as it is', (_, text) => {
    expect(joinDetachedSigns(text)).toBe(text);
  });
});

describe('chooseReadingOrder', () => {
  const placed = 'Rivers\n\nThe Mahaweli is the longest\nriver of Sri Lanka.';

  test('keeps the reading order, with its blank lines, when the drawn order has the same words', () => {
    expect(chooseReadingOrder([placed], ['Rivers\nThe Mahaweli is the longest\nriver of Sri Lanka.'])).toEqual([placed]);
  });

  test('takes the drawn order when the words are the same but in another order, on no more lines', () => {
    const interleaved = 'left one\nright one\n\nleft two\nright two';
    const drawn = 'left one\nleft two\nright one\nright two';
    expect(chooseReadingOrder([interleaved, placed], [drawn, placed])).toEqual([drawn, placed]);
  });

  test('keeps the reading order when the drawn order has more words or more lines', () => {
    const columnsRead = 'a b c\nd e f';
    expect(chooseReadingOrder([columnsRead], ['a b\nc d e f'])).toEqual([columnsRead]); // another order, more lines
    expect(chooseReadingOrder([columnsRead], ['a b c d e f f'])).toEqual([columnsRead]); // a word drawn twice
    expect(chooseReadingOrder([columnsRead], ['d e f\na b c'])).toEqual(['d e f\na b c']);
  });

  test('takes the drawn order when it differs only by a dash alone that the reading order dropped at a line break', () => {
    // a heading wrapped at its dash, whose words the reading order no longer has side by side
    const interleaved = 'அறிவியல் - தரம் 10\nஇரண்டாம் தவணை\n\nவினா ஒன்று\nவினா இரண்டு';
    const drawn = 'அறிவியல் - தரம் 10 -\nஇரண்டாம் தவணை\nவினா ஒன்று\nவினா இரண்டு';
    expect(chooseReadingOrder([interleaved], [drawn])).toEqual([drawn]);
    // other words still decide: a dash and a word more is another text
    expect(chooseReadingOrder([interleaved], [`${drawn} மேலும்`])).toEqual([interleaved]);
  });

  test('keeps the reading order when the drawn order runs words together that it has apart', () => {
    // pdftotext -raw where a layout's spaces are narrow: නිසාඒවා for නිසා ඒවා
    expect(chooseReadingOrder(['a b c\nd e f'], ['d ef\na b c'])).toEqual(['a b c\nd e f']);
  });

  test('keeps the reading order when the drawn order has other letters, or lacks the page', () => {
    expect(chooseReadingOrder(['a b\nc'], ['c a'])).toEqual(['a b\nc']); // a word lost
    expect(chooseReadingOrder(['ab\ncd'], ['cx ab'])).toEqual(['ab\ncd']); // a letter read otherwise
    expect(chooseReadingOrder(['a', 'b'], ['a'])).toEqual(['a', 'b']);
  });
});

describe('readingsDiffer', () => {
  test('is true when one reading of a Sinhala or Tamil page breaks words the other has whole', () => {
    expect(readingsDiffer('ශ්‍රී ලංකාවේ මෝසම් සුළං', 'ශ්‍රී ලංකා\nවේ මෝසම් සුළං')).toBe(true);
    expect(readingsDiffer('ප්‍රශ් න', 'ප්‍රශ්න')).toBe(true);
  });

  test('is false for the same words in another order, and for a page without Sinhala or Tamil', () => {
    expect(readingsDiffer('මෝසම් සුළං\nශ්‍රී ලංකාවේ', 'ශ්‍රී ලංකාවේ\n\nමෝසම් සුළං')).toBe(false);
    expect(readingsDiffer('Sri Lanka', 'Sri\nLa nka')).toBe(false);
  });
});
