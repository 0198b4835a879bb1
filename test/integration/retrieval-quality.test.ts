import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import type { Orm } from '../../src/db/orm.js';
import type { Services } from '../../src/services.js';
import { indexCorpus, recall, sampleSets, sharedSets, type EvalSet, type Recall } from '../../scripts/lib/retrieval-eval.js';
import { launchBrowser } from './support/browser.js';
import { connectDatabase, testServices } from './support/server.js';

// Retrieval through the service's own code, BM25 against hybrid (the test embeddings server of
// scripts/test.sh, EMBEDDINGS_BASE_URL), on the sample curriculum's questions
// (test/retrieval/questions.json) and on the Sinhala and Tamil public QA sets of
// ../shared/eval-data, which it has never seen. SciQ (300 English passages) is measured by
// `npm run measure:retrieval` only: embedding it takes minutes on a small machine. The Sinhala and
// Tamil sets are also printed to PDF by Debian's Chromium (HarfBuzz-shaped Noto fonts, the way
// many documents are made today), so that retrieval is measured through the PDF reader too.
//
// Floors sit a little under the figures measured when the hybrid settings were chosen (README
// "Hybrid retrieval"), so a change that makes either retrieval worse fails.
const FLOORS: Record<string, { bm25: [number, number]; hybrid: [number, number] }> = {
  // [recall@1, recall@5]; measured BM25 1.000/1.000 and hybrid 1.000/1.000
  'sample curriculum, english': { bm25: [0.97, 0.97], hybrid: [0.97, 0.97] },
  // measured 1.000/1.000 and 1.000/1.000
  'sample curriculum, sinhala': { bm25: [0.95, 0.95], hybrid: [0.95, 0.95] },
  // measured 0.955/1.000 and 0.955/1.000
  'sample curriculum, tamil': { bm25: [0.9, 0.95], hybrid: [0.9, 0.95] },
  // measured 0.857/0.976 and 0.952/1.000
  'Sinhala QA': { bm25: [0.83, 0.95], hybrid: [0.92, 0.97] },
  // measured 0.683/0.764 and 0.756/0.780
  'Tamil IndicQuest': { bm25: [0.66, 0.74], hybrid: [0.73, 0.76] },
  // measured as from text: 0.857/0.976 and 0.952/1.000
  'Sinhala QA, Chromium PDF': { bm25: [0.83, 0.95], hybrid: [0.92, 0.97] },
  // measured as from text: 0.683/0.764 and 0.756/0.780
  'Tamil IndicQuest, Chromium PDF': { bm25: [0.66, 0.74], hybrid: [0.73, 0.76] },
};

const FONTS: Record<string, [string, string]> = {
  sinhala: ['Noto Sans Sinhala', '/usr/share/fonts/truetype/noto/NotoSansSinhala-Regular.ttf'],
  tamil: ['Noto Sans Tamil', '/usr/share/fonts/truetype/noto/NotoSansTamil-Regular.ttf'],
};
const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The set with each passage printed to PDF by Chromium (kept in memory only: the sets' licences allow evaluation, not redistribution). */
async function printed(browser: Browser, set: EvalSet): Promise<EvalSet> {
  const [font, file] = FONTS[set.language]!;
  if (!existsSync(file)) throw new Error(`${file} is missing: apt-get install fonts-noto-core (scripts/setup.sh --browser does)`);
  const page = await browser.newPage();
  const documents = [];
  for (const document of set.documents) {
    const text = new TextDecoder().decode(document.bytes);
    await page.setContent(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>body { font-family: '${font}'; font-size: 11pt }</style></head><body><p>${escapeHtml(text)}</p></body></html>`);
    const pdf = await page.pdf({ format: 'A4', margin: { top: '2cm', bottom: '2cm', left: '2cm', right: '2cm' } });
    documents.push({ ...document, name: document.name.replace(/\.txt$/, '.pdf'), bytes: new Uint8Array(pdf) });
  }
  await page.close();
  return {
    ...set,
    name: `${set.name}, Chromium PDF`,
    corpus: `${set.corpus}-chromium-pdf`,
    documents,
    // the same passage, read from its PDF
    questions: set.questions.map((q) => ({ ...q, answeredBy: (chunk) => q.answeredBy({ ...chunk, documentName: chunk.documentName.replace(/\.pdf$/, '.txt') }) })),
  };
}

const PREFIX = `retrieval-quality-${Math.random().toString(36).slice(2, 8)}`;
let orm: Orm;
let services: Services;
let sets: EvalSet[];
const storeOf = (set: EvalSet) => `${PREFIX}-${set.corpus.replace(/[^A-Za-z0-9_-]/g, '-')}`;
const measured: string[] = [];

beforeAll(async () => {
  const endpoint = process.env.EMBEDDINGS_BASE_URL;
  if (!endpoint) throw new Error('EMBEDDINGS_BASE_URL is not set: run the tests through scripts/test.sh, which starts the embeddings server');
  orm = await connectDatabase();
  services = testServices({}, { EMBEDDINGS_BASE_URL: endpoint });
  const shared = (await sharedSets()).filter((s) => s.name in FLOORS);
  const browser = await launchBrowser();
  const pdfs = [];
  for (const set of shared.filter((s) => `${s.name}, Chromium PDF` in FLOORS)) pdfs.push(await printed(browser, set));
  await browser.close();
  sets = [...(await sampleSets()), ...shared, ...pdfs];
  const indexed = new Set<string>();
  for (const set of sets) {
    if (indexed.has(set.corpus)) continue;
    indexed.add(set.corpus);
    await indexCorpus({ em: () => orm.em.fork(), index: services.index, embedder: services.embedder, work: services.work }, storeOf(set), set.documents);
  }
}, 900_000);

afterAll(() => {
  console.log(`| set | questions | BM25 @1 | BM25 @5 | hybrid @1 | hybrid @5 |\n|---|---|---|---|---|---|\n${measured.join('\n')}`);
});

const describeMiss = (r: Recall) => (r.misses.length ? `; missed: ${r.misses.slice(0, 5).join(' | ')}` : '');

describe('retrieval quality, BM25 and hybrid', () => {
  test('every set with a floor is measured, and the sample curriculum has at least 40 questions', () => {
    expect(sets.map((s) => s.name).sort()).toEqual(Object.keys(FLOORS).sort());
    expect(sets.filter((s) => s.corpus === 'samples').reduce((n, s) => n + s.questions.length, 0)).toBeGreaterThanOrEqual(40);
  });

  test.each(Object.keys(FLOORS))('%s: recall@1 and @5 of BM25 and of hybrid are at their floors; hybrid is never worse', async (name) => {
    const set = sets.find((s) => s.name === name)!;
    const floor = FLOORS[name]!;
    const bm25 = await recall(services.index, null, storeOf(set), set);
    const hybrid = await recall(services.index, services.embedder, storeOf(set), set);
    measured.push(`| ${name} | ${bm25.questions} | ${bm25.at1.toFixed(3)} | ${bm25.at5.toFixed(3)} | ${hybrid.at1.toFixed(3)} | ${hybrid.at5.toFixed(3)} |`);
    console.log(`${name}: BM25 ${bm25.at1.toFixed(3)}/${bm25.at5.toFixed(3)}${describeMiss(bm25)}\n${name}: hybrid ${hybrid.at1.toFixed(3)}/${hybrid.at5.toFixed(3)}${describeMiss(hybrid)}`);
    // every question went through the vectors, none fell back to BM25
    expect(hybrid.hybrid).toBe(hybrid.questions);
    expect(bm25.at1).toBeGreaterThanOrEqual(floor.bm25[0]);
    expect(bm25.at5).toBeGreaterThanOrEqual(floor.bm25[1]);
    expect(hybrid.at1).toBeGreaterThanOrEqual(floor.hybrid[0]);
    expect(hybrid.at5).toBeGreaterThanOrEqual(floor.hybrid[1]);
    expect(hybrid.at1).toBeGreaterThanOrEqual(bm25.at1);
    expect(hybrid.at5).toBeGreaterThanOrEqual(bm25.at5);
  });
});
