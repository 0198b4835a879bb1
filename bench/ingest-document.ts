// The service's ingestion of one file, in its own process so that its time and memory are its own:
//   node dist/bench/ingest-document.js <file.pdf> <store> <owner account id> [runs]
// Prints {"seconds": [...], "pages", "chunks"} on stdout: the time of each of `runs` ingestions
// (default 1) by ingestDocument (read the PDF in the worker pool, chunk, analyse, write to the
// index, record the document), with connections made before; the first into <store>, the others
// into <store>-2, <store>-3..., each a new store as the first was.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { ingestDocument } from '../src/domain/ingestion/ingest.js';
import { createServices } from '../src/services.js';

const [file, store, owner, runArg] = process.argv.slice(2);
const runs = Number(runArg ?? 1);
if (!file || !store || !owner || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: ingest-document.js <file.pdf> <store> <owner account id> [runs]');
  process.exit(2);
}
const config = loadConfig();
const services = createServices(config);
const orm = await connect(config.DATABASE_URL);
try {
  await services.index.prepare();
  const bytes = new Uint8Array(readFileSync(file));
  const times: number[] = [];
  let result = { pages: 0, chunks: 0 };
  for (let run = 1; run <= runs; run++) {
    const start = performance.now();
    result = await ingestDocument(orm.em.fork(), services.index, null, {
      store: run === 1 ? store : `${store}-${run}`,
      name: basename(file),
      bytes,
      metadata: { subject: 'Science', grade: '10', category: 'textbook', language: 'english' },
      owner,
      work: services.work,
    });
    times.push((performance.now() - start) / 1000);
  }
  console.log(JSON.stringify({ seconds: times, pages: result.pages, chunks: result.chunks }));
} finally {
  await orm.close();
  await services.index.close();
  await services.work.close();
}
