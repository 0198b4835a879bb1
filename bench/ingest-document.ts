// The service's ingestion of one file, in its own process so that its time and memory are its own:
//   node dist/bench/ingest-document.js <file.pdf> <store> <owner account id>
// Prints {"seconds", "pages", "chunks"} on stdout: the time of ingestDocument (read the PDF in the
// worker pool, chunk, analyse, write to the index, record the document), with connections made before.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../src/config.js';
import { connect } from '../src/db/orm.js';
import { ingestDocument } from '../src/domain/ingestion/ingest.js';
import { createServices } from '../src/services.js';

const [file, store, owner] = process.argv.slice(2);
if (!file || !store || !owner) {
  console.error('usage: ingest-document.js <file.pdf> <store> <owner account id>');
  process.exit(2);
}
const config = loadConfig();
const services = createServices(config);
const orm = await connect(config.DATABASE_URL);
try {
  await services.index.prepare();
  const bytes = new Uint8Array(readFileSync(file));
  const start = performance.now();
  const result = await ingestDocument(orm.em.fork(), services.index, null, {
    store,
    name: basename(file),
    bytes,
    metadata: { subject: 'Science', grade: '10', category: 'textbook', language: 'english' },
    owner,
    work: services.work,
  });
  const seconds = (performance.now() - start) / 1000;
  console.log(JSON.stringify({ seconds, pages: result.pages, chunks: result.chunks }));
} finally {
  await orm.close();
  await services.index.close();
  await services.work.close();
}
