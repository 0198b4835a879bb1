import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { Orm } from '../../src/db/orm.js';
import { extractiveAnswer } from '../../src/domain/answering/extractive.js';
import { fromHit } from '../../src/domain/answering/passage.js';
import { ingestDocument } from '../../src/domain/ingestion/ingest.js';
import { retrieve } from '../../src/domain/retrieval/retrieve.js';
import { ensureStore } from '../../src/domain/stores/stores.js';
import type { Services } from '../../src/services.js';
import { connectDatabase, testServices } from './support/server.js';

// The offline answerer on public QA sets it has never seen (../shared/eval-data, read in place:
// their licences allow evaluation, not redistribution): every passage is indexed, each question
// is answered from its top five chunks, and the answer must contain the expected answer while
// staying short. SciQ is English science; the Sinhala set is SQuAD-style extractive.

interface Item {
  question: string;
  answer: string;
  passage: string;
}

const EVAL = '../shared/eval-data';
const STORE = `answer-quality-${Math.random().toString(36).slice(2, 8)}`;
let orm: Orm;
let services: Services;
const sets: Record<'english' | 'sinhala', Item[]> = { english: [], sinhala: [] };

async function lines(file: string): Promise<Record<string, string>[]> {
  return (await readFile(`${EVAL}/${file}`, 'utf8')).split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, string>);
}

beforeAll(async () => {
  orm = await connectDatabase();
  services = testServices();
  sets.english = (await lines('sciq-test.jsonl')).map((r) => ({ question: r.question!, answer: r.answer!, passage: r.support! }));
  sets.sinhala = (await lines('sinhala-qa.jsonl')).map((r) => ({ question: r.question!, answer: r.answer!, passage: r.context! }));
  await ensureStore(orm.em.fork(), STORE, { shared: true });
  for (const [language, items] of Object.entries(sets)) {
    for (const [i, item] of items.entries()) {
      await ingestDocument(orm.em.fork(), services.index, null, {
        store: STORE,
        name: `${language}-${i}.txt`,
        bytes: new TextEncoder().encode(item.passage),
        metadata: { subject: 'General', grade: '10', category: 'reference', language },
        work: services.work,
      });
    }
  }
}, 600_000);

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const normal = (text: string) => text.normalize('NFC').toLowerCase();

describe('offline answers on held-out QA sets', () => {
  // Floors just under today's figures (0.893 and 0.857), so a change that makes answers worse
  // fails; the product's aim is 0.93 and 0.90 (README "Answer quality"). A few expected answers
  // cannot match any quote (SciQ's own typos, "photosynthesis" for "photosynthesize"), and some
  // questions miss their passage in retrieval.
  test.each([
    ['english', 0.88],
    ['sinhala', 0.85],
  ] as const)('%s: the answer contains the expected answer (at least %d of the time), in at most 35 words at the median', async (language, target) => {
    const lengths: number[] = [];
    const misses: string[] = [];
    for (const item of sets[language]) {
      const { hits } = await retrieve(services.index, null, { store: STORE, question: item.question, filters: { language }, limit: 5 });
      const { answer } = extractiveAnswer(item.question, hits.map(fromHit));
      lengths.push(words(answer));
      if (!normal(answer).includes(normal(item.answer))) misses.push(`${item.question} -> expected '${item.answer}', got: ${answer.slice(0, 160)}`);
    }
    const contains = 1 - misses.length / sets[language].length;
    console.log(
      `${language}: answer contains the expected answer ${contains.toFixed(3)} (${sets[language].length - misses.length}/${sets[language].length}); ` +
        `median ${median(lengths)} words\n  first misses:\n  ${misses.slice(0, 8).join('\n  ')}`,
    );
    expect(contains).toBeGreaterThanOrEqual(target);
    expect(median(lengths)).toBeLessThanOrEqual(35);
  });
});
