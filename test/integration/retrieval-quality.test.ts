import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { Orm } from '../../src/db/orm.js';
import { retrieve } from '../../src/domain/retrieval/retrieve.js';
import type { MetadataFilters } from '../../src/domain/ports/search-index.js';
import { ensureStore } from '../../src/domain/stores/stores.js';
import type { Services } from '../../src/services.js';
import { ingestSamples } from './support/corpus.js';
import { connectDatabase, testServices } from './support/server.js';

interface Question {
  question: string;
  language: string;
  filters?: MetadataFilters;
  expect: { name: string; page: number };
}

// Every question of test/retrieval/questions.json must find the page that answers it among the
// top five chunks for at least 90% of the questions (recall@5), in each language taken together.
const STORE = 'retrieval-quality';
let orm: Orm;
let services: Services;

beforeAll(async () => {
  orm = await connectDatabase();
  services = testServices();
  await ensureStore(orm.em.fork(), STORE, { shared: true });
  await ingestSamples(orm, services, STORE);
}, 180_000);

describe('retrieval quality on the sample curriculum', () => {
  test('recall@5 is at least 0.9', async () => {
    const questions = JSON.parse(await readFile('test/retrieval/questions.json', 'utf8')) as Question[];
    expect(questions.length).toBeGreaterThanOrEqual(40);
    const misses: string[] = [];
    const byLanguage: Record<string, { hit: number; total: number }> = {};
    for (const q of questions) {
      const { hits } = await retrieve(services.index, null, { store: STORE, question: q.question, filters: q.filters ?? {}, limit: 5 });
      const found = hits.some((h) => h.chunk.documentName === q.expect.name && h.chunk.pages.includes(q.expect.page));
      const tally = (byLanguage[q.language] ??= { hit: 0, total: 0 });
      tally.total++;
      if (found) tally.hit++;
      else misses.push(`${q.language}: ${q.question} -> ${q.expect.name} p.${q.expect.page}`);
    }
    const recall = questions.length ? (questions.length - misses.length) / questions.length : 0;
    const perLanguage = Object.entries(byLanguage).map(([l, t]) => `${l} ${(t.hit / t.total).toFixed(3)} (${t.hit}/${t.total})`);
    console.log(`recall@5 = ${recall.toFixed(3)} over ${questions.length} questions; ${perLanguage.join(', ')}${misses.length ? `\nmissed:\n  ${misses.join('\n  ')}` : ''}`);
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });
});
