import { beforeAll, describe, expect, test } from '@jest/globals';
import { UpstreamError } from '../../src/domain/errors.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { call, createKb, storagePlan, upload, uploadForm } from './support/knowledge-bases.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// Knowledge-base requests that meet another one, or the ingestion job, half-way. The server runs
// no ingestion worker: the tests run the job's steps themselves, with a delete between them.

let server: TestServer;
let services: Services;
let key: string;
/** while set, the search index answers deletes with an error (not an outage) */
let indexFails = false;

beforeAll(async () => {
  services = testServices();
  const index = services.index;
  const deleteChunks = index.deleteChunks.bind(index);
  const dropStore = index.dropStore.bind(index);
  index.deleteChunks = (store, which) => (indexFails ? Promise.reject(new UpstreamError('search index')) : deleteChunks(store, which));
  index.dropStore = (store) => (indexFails ? Promise.reject(new UpstreamError('search index')) : dropStore(store));
  server = await startServer({ services });
  const plan = await storagePlan(server.orm, { documents: 1000, pages: 100_000, bytes: 1_000_000_000 });
  key = (await newKey(server.orm, { plan })).key;
});

const url = () => server.url;
const TEXT = 'Mangroves protect the coast from storm surges.';
const notes = () => ({ name: 'mangroves.md', bytes: `--- PAGE 1 ---\n${TEXT}` });

describe('an index that answers a delete with an error', () => {
  test('deleting a document or a knowledge base answers 502 as the contract documents, and keeps it for a retry', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    indexFails = true;
    try {
      const documentDelete = await call(url(), 'deleteDocument', key, { path: { kb_id: kb.id, document_id: doc.id } });
      expect(documentDelete).toMatchObject({ status: 502, body: { detail: 'The search index failed to answer the query. The request was counted; please retry.' } });
      const kbDelete = await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } });
      expect(kbDelete).toMatchObject({ status: 502, body: { detail: 'The search index failed to answer the query. The request was counted; please retry.' } });
    } finally {
      indexFails = false;
    }
    expect((await call(url(), 'getDocument', key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(200);
    expect((await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } })).status).toBe(204);
  });
});
