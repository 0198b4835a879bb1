import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChunkRecord } from '../src/domain/ports/search-index.js';
import { analysedText, stemText } from '../src/domain/text/analyse.js';
import { CATEGORIES, LANGUAGES, type Language } from '../src/generated/contract-values.js';

// Deterministic benchmark data in the three languages: the words of the sample curriculum
// (samples/curriculum/src, `-si`/`-ta` files are Sinhala/Tamil), drawn by a seeded generator,
// so every run indexes and asks the same things.

const SOURCES = 'samples/curriculum/src';
const SUBJECTS = ['Science', 'Mathematics', 'History', 'Geography', 'Health'];
const CHUNK_CHARS = 900;

export interface Question {
  question: string;
  language: Language;
}

/** A small fast PRNG (mulberry32): the same seed gives the same sequence on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function languageOf(file: string): Language {
  if (file.endsWith('-si.md')) return 'sinhala';
  if (file.endsWith('-ta.md')) return 'tamil';
  return 'english';
}

let vocabularies: Record<Language, string[]> | undefined;

/** Each language's words in the sample sources, in a fixed order (repeats kept: frequent words stay frequent). */
function vocabulary(language: Language): string[] {
  if (!vocabularies) {
    vocabularies = { english: [], sinhala: [], tamil: [] };
    for (const file of readdirSync(SOURCES).filter((f) => f.endsWith('.md')).sort()) {
      const words = readFileSync(join(SOURCES, file), 'utf8')
        .split(/\s+/)
        .filter((w) => /\p{L}/u.test(w) && !w.startsWith('#'));
      vocabularies[languageOf(file)].push(...words);
    }
  }
  return vocabularies[language];
}

/** Text of about `chars` characters in one language, in sentences of 8 to 20 words. */
function text(language: Language, chars: number, next: () => number): string {
  const words = vocabulary(language);
  const sentences: string[] = [];
  let length = 0;
  while (length < chars) {
    const count = 8 + Math.floor(next() * 13);
    const sentence: string[] = [];
    for (let i = 0; i < count; i++) sentence.push(words[Math.floor(next() * words.length)]!.replace(/[.!?।]+$/u, ''));
    const line = `${sentence.join(' ')}.`;
    sentences.push(line);
    length += line.length + 1;
  }
  return sentences.join(' ');
}

/** Chunk `i` of a generated corpus: languages and metadata rotate, 50 chunks a document. */
export function chunk(i: number): ChunkRecord {
  const next = random(i + 1);
  const language = LANGUAGES[i % LANGUAGES.length]!;
  const body = text(language, CHUNK_CHARS, next);
  const document = Math.floor(i / 50);
  return {
    textTerms: analysedText(body),
    textStems: stemText(body),
    chunkText: body,
    documentId: `bench-doc-${document}`,
    documentName: `bench-${document}.pdf`,
    subject: SUBJECTS[document % SUBJECTS.length]!,
    grade: String(6 + (document % 8)),
    category: CATEGORIES[document % CATEGORIES.length]!,
    language,
    year: document % 2 ? '2022' : '',
    pages: [1 + Math.floor((i % 50) / 2)],
    chunkIndex: i % 50,
    ingestRun: 'bench',
  };
}

/** The 83 retrieval-quality questions (English, Sinhala, Tamil): real questions over the same words. */
export function questions(): Question[] {
  return (JSON.parse(readFileSync('test/retrieval/questions.json', 'utf8')) as Question[]).map(({ question, language }) => ({ question, language }));
}

/** The filter every filtered query uses: its own language and one subject (about a fifteenth of the corpus). */
export function filtersFor(question: Question): { language: Language; subject: string } {
  return { language: question.language, subject: 'Science' };
}

const FONT_DIRS = ['/usr/share/fonts/truetype/noto', '/usr/share/fonts/noto'];
const FONTS: Record<Language, string> = { english: 'NotoSans-Regular.ttf', sinhala: 'NotoSansSinhala-Regular.ttf', tamil: 'NotoSansTamil-Regular.ttf' };

/**
 * The pages of the generated PDF, with the font for each: the three languages in turn where the
 * Noto fonts are installed (as for scripts/build-sample-pdfs.mjs), else English in PDF's built-in Helvetica.
 */
export function pdfPages(count: number): { text: string; font: string | null }[] {
  const dir = FONT_DIRS.find((d) => LANGUAGES.every((l) => existsSync(join(d, FONTS[l]))));
  const languages: readonly Language[] = dir ? LANGUAGES : ['english'];
  const next = random(2026);
  return Array.from({ length: count }, (_, i) => {
    const language = languages[i % languages.length]!;
    return { text: text(language, 1_800, next), font: dir ? join(dir, FONTS[language]) : null };
  });
}
