// Measures retrieval: recall@1 and @5 of BM25 and of hybrid search under several alpha and fusion
// settings, per question set (the sample curriculum's questions per language, and the public QA
// sets of ../shared/eval-data, or EVAL_DATA_DIR). Needs the services (DATABASE_URL, WEAVIATE_URL,
// EMBEDDINGS_BASE_URL); indexes each corpus once into a store of its own (measure-*), kept for the
// next run. Prints a Markdown table; with --misses, also the questions the service's own setting
// (HYBRID) and BM25 did not find in the top five, per set.
//   npm run measure:retrieval [-- --misses]
import { configOrExit } from '../src/config.js';
import { HYBRID } from '../src/domain/retrieval/retrieve.js';
import { Document } from '../src/db/entities.js';
import { connect } from '../src/db/orm.js';
import type { HybridSearch } from '../src/domain/ports/search-index.js';
import { createServices } from '../src/services.js';
import { indexCorpus, recall, rememberingEmbedder, sampleSets, sharedSets, type EvalSet } from './lib/retrieval-eval.js';

const SETTINGS: Omit<HybridSearch, 'vector'>[] = (['ranked', 'relativeScore'] as const).flatMap((fusion) =>
  [0.25, 0.4, 0.5, 0.6, 0.75].map((alpha) => ({ alpha, fusion })),
);

const config = configOrExit();
const services = createServices(config);
if (!services.embedder) {
  console.error('measure-retrieval: EMBEDDINGS_BASE_URL is not set; hybrid retrieval cannot be measured');
  process.exit(1);
}
const embedder = rememberingEmbedder(services.embedder);
const orm = await connect(config.DATABASE_URL);
const storeOf = (set: EvalSet) => `measure-${set.corpus.replace(/[^A-Za-z0-9_-]/g, '-')}`;
const percent = (value: number) => value.toFixed(3);
const showMisses = process.argv.includes('--misses');
const missLines: string[] = [];
try {
  const sets = [...(await sampleSets()), ...(await sharedSets())];
  for (const set of sets) {
    const store = storeOf(set);
    if ((await orm.em.fork().count(Document, { store })) > 0) continue;
    console.error(`measure-retrieval: indexing ${set.documents.length} documents of ${set.corpus} into '${store}' (with vectors)`);
    await indexCorpus({ em: () => orm.em.fork(), index: services.index, embedder: services.embedder, work: services.work }, store, set.documents);
  }
  console.log(`| set | questions | BM25 @1 | BM25 @5 | ${SETTINGS.map((s) => `${s.fusion} α${s.alpha} @1 | @5`).join(' | ')} |`);
  console.log(`|---|---|---|---|${SETTINGS.map(() => '---|---').join('|')}|`);
  for (const set of sets) {
    const store = storeOf(set);
    const bm25 = await recall(services.index, null, store, set);
    const cells = [set.name, String(bm25.questions), percent(bm25.at1), percent(bm25.at5)];
    for (const settings of SETTINGS) {
      const hybrid = await recall(services.index, embedder, store, set, settings);
      if (hybrid.hybrid !== hybrid.questions) throw new Error(`${hybrid.questions - hybrid.hybrid} questions of ${set.name} fell back to BM25: is the embeddings endpoint up?`);
      cells.push(percent(hybrid.at1), percent(hybrid.at5));
      if (settings.alpha === HYBRID.alpha && settings.fusion === HYBRID.fusion) missLines.push(...hybrid.misses.map((q) => `${set.name}\thybrid\t${q}`));
    }
    missLines.push(...bm25.misses.map((q) => `${set.name}\tbm25\t${q}`));
    console.log(`| ${cells.join(' | ')} |`);
  }
  if (showMisses) console.log(['', 'set\tretrieval\tmissed question', ...missLines].join('\n'));
} finally {
  await orm.close();
  await services.index.close();
  await services.work.close();
}
