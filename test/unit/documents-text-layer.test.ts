import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { splitMarkedText } from '../../src/domain/documents/pages.js';
import { textLayerProblem } from '../../src/domain/documents/text-layer.js';

const FIXTURES = new URL('../fixtures/pdf-producers/', import.meta.url);
const ownText = (language: string) => splitMarkedText(readFileSync(new URL(`${language}.txt`, FIXTURES), 'utf8')).map((p) => p.text);
const times = (text: string, n: number) => Array.from({ length: n }, () => text).join(' ');

describe('textLayerProblem', () => {
  test.each(['sinhala', 'tamil', 'english'])('finds none in correct %s text', (language) => {
    expect(textLayerProblem(ownText(language), 'Skia/PDF m120')).toBeUndefined();
  });

  test('finds none in text with a few accented names, symbols and mixed scripts', () => {
    const text = `${times('Café Müller © 2024 ✓ → ශ්‍රී ලංකා DNAවල இலங்கை 25°C', 10)} ${ownText('sinhala').join(' ')}`;
    expect(textLayerProblem([text], undefined)).toBeUndefined();
  });

  test('Sinhala and Tamil words with letters of other scripts inside: what Ghostscript leaves of a font', () => {
    const problem = textLayerProblem([times('ශ쇓 ලංකÏවෙ샊 Ðම룊 ස쏔Òං ශ්‍රී', 10)], 'GPL Ghostscript 10.00.0');
    expect(problem).toBe(
      "its text layer does not match what its pages show: 40 of its 50 Sinhala and Tamil words have letters of other scripts inside (for example 'ශ쇓', 'ලංකÏවෙ샊', 'Ðම룊'), " +
        'which happens when a tool rewrites a file\'s fonts (this file was made by GPL Ghostscript 10.00.0). ' +
        'Export or print it again from the original document (for example with a browser or LibreOffice) and upload it again',
    );
  });

  test('accented Latin letters throughout: a legacy 8-bit font such as TSCII', () => {
    expect(textLayerProblem([times('þÄí¨¸Â¢ý ¿£÷ ÅÇõ: ¯º¡ò¾¨½ì ÌÈ¢ôÒ¸û', 5)], 'Skia/PDF m120')).toMatch(
      /^its text comes out as accented Latin letters \(for example 'þÄí¨¸Â¢ý', '¿£÷', 'ÅÇõ:'\): it is typed in a legacy 8-bit font .* Save it again with a Unicode font/,
    );
  });

  test('symbols instead of letters: what pdf2ps leaves of a font', () => {
    expect(textLayerProblem([times('✁ ✂✄☎✆✝✞ ✝✟✠✡☛ ☞✌✄', 10)], undefined)).toMatch(/^its text layer holds symbols instead of letters \(for example '✁', '✂✄☎✆✝✞', '✝✟✠✡☛'\)\. Export or print it again/);
  });

  test('a short text says too little to be refused', () => {
    expect(textLayerProblem(['ශ쇓 ලංකÏවෙ샊 þÄí¨¸Â¢ý ✁✂'], undefined)).toBeUndefined();
  });
});
