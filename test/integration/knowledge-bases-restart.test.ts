import { beforeAll, expect, test } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Orm } from '../../src/db/orm.js';
import { Document } from '../../src/db/entities.js';
import { pdfWithPages } from '../support/pdf.js';
import { newKey } from './support/accounts.js';
import { call, createKb, documentEvents, NOTES_METADATA, settled, upload, uploadForm, type KbDocument } from './support/knowledge-bases.js';
import { startServerProcess } from './support/server-process.js';
import { connectDatabase, directChunkCollection } from './support/server.js';

// The compiled service killed in the middle of reading a document: another process (here the
// restarted one) takes the job up again once the dead one's heartbeats stop, and the document
// ends ready once, with each of its chunks indexed once.

let orm: Orm;
let key: string;

beforeAll(async () => {
  orm = await connectDatabase();
  key = (await newKey(orm, { plan: 'enterprise' })).key;
});

/** The chunks the index holds for a document. */
async function indexedChunks(storeId: string, documentId: string): Promise<number> {
  const tenant = (await directChunkCollection()).withTenant(storeId);
  const result = await tenant.aggregate.overAll({ filters: tenant.filter.byProperty('documentId').equal(documentId) });
  return result.totalCount;
}

// no embeddings: the test is about the job, not the vectors
const ENV = { EMBEDDINGS_BASE_URL: '', INGEST_SWEEP_MS: '2000' };

test('a server killed mid-document: the document ends ready once, with the right chunks, after the restart', async () => {
  const first = await startServerProcess(ENV);
  const kb = await createKb(first.url, key);
  const lines = Array.from({ length: 2000 }, (_, i) => `Page ${i + 1}: the water cycle moves water through evaporation, condensation and rain, part ${i + 1}.`);
  const doc = await upload(first.url, key, kb.id, uploadForm({ name: 'water-cycle.pdf', bytes: pdfWithPages(lines) }, { ...NOTES_METADATA, subject: 'Geography' }));

  // killed as soon as its job began reading the file
  for (let waited = 0; ; waited += 50) {
    const row = await orm.em.fork().findOneOrFail(Document, { id: doc.id });
    if (row.processingStartedAt) break;
    if (waited > 60_000) throw new Error('the first process never began reading the document');
    await sleep(50);
  }
  first.child.kill('SIGKILL');
  await first.finished;
  expect((await orm.em.fork().findOneOrFail(Document, { id: doc.id })).state).toBe('processing');

  const second = await startServerProcess(ENV);
  const ready: KbDocument = await settled(second.url, key, kb.id, doc.id, 180_000);
  expect(ready).toMatchObject({ state: 'ready', pages: 2000, failure_reason: null });
  expect(ready.chunks).toBeGreaterThan(0);
  expect(await indexedChunks(kb.id, doc.id)).toBe(ready.chunks);
  // the file was dropped once read, and the job is not run again
  expect(await orm.em.fork().execute('select 1 from document_upload where document_id = ?', [doc.id])).toEqual([]);
  await sleep(3000);
  const again = await call(second.url, 'getDocument', key, { path: { kb_id: kb.id, document_id: doc.id } });
  expect(again.body).toMatchObject({ state: 'ready', chunks: ready.chunks, finished_at: ready.finished_at });
  // one knowledge_base.document.ready event, written with the one ending
  expect((await documentEvents(orm, doc.id)).map((e) => e.type)).toEqual(['knowledge_base.document.ready']);
  await second.stop();
}, 400_000);
