import { beforeAll, describe, expect, test } from '@jest/globals';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Store } from '../../src/db/entities.js';
import { UpstreamError } from '../../src/domain/errors.js';
import { indexDocumentRun } from '../../src/domain/ingestion/ingest.js';
import { setSubscription } from '../../src/domain/accounts/accounts.js';
import { markDocumentReady, removeChunksLeft } from '../../src/domain/knowledge-bases/document-states.js';
import { maxPagesOf } from '../../src/domain/knowledge-bases/documents.js';
import { INGESTION_QUEUE, ingestionJobId, runIngestionJob } from '../../src/domain/knowledge-bases/ingestion-job.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { sendRaw, type Schemas } from './support/contract.js';
import { waitsForLock } from './support/locks.js';
import { call, createKb, NOTES_METADATA, settled, storagePlan, upload, uploadForm } from './support/knowledge-bases.js';
import { directChunkCollection, startServer, testServices, type TestServer } from './support/server.js';
import { sharedStreamPdf } from '../support/pdf.js';

// Knowledge-base requests that meet another one, or the ingestion job, half-way. The server runs
// no ingestion worker: the tests run the job's steps themselves, with a delete between them (the
// last test starts a second server that runs one, for its sweep).

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

/** Whether the search index holds the store (a tenant), asked of Weaviate itself. */
async function indexExists(storeId: string): Promise<boolean> {
  return (await (await directChunkCollection()).tenants.getByName(storeId)) !== null;
}

async function citations(storeId: string): Promise<Schemas['Citation'][]> {
  const res = await sendRaw(url(), 'query', { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'What protects the coast?', store_id: storeId }) });
  expect(res.status).toBe(200);
  return (res.body as Schemas['QueryResponse']).citations;
}

/** The job's steps up to writing the chunks (runIngestionJob without the final markDocumentReady); `meanwhile` runs once the file was read. */
function writeRun(storeId: string, documentId: string, meanwhile: () => Promise<unknown>) {
  return indexDocumentRun(services.index, null, {
    store: storeId,
    documentId,
    name: 'mangroves.md',
    fileName: 'mangroves.md',
    bytes: new TextEncoder().encode(notes().bytes),
    metadata: NOTES_METADATA,
    work: services.ingestionWork,
    owner: 'test',
    beforeWrite: meanwhile,
  });
}

const markReady = (storeId: string, documentId: string, run: Awaited<ReturnType<typeof writeRun>>) =>
  markDocumentReady(server.orm.em.fork(), services.index, { documentId, store: storeId, revision: 1, ...run }, () => Promise.resolve(100_000), new Date());

describe('a delete during the ingestion job', () => {
  test('a document deleted while its job runs leaves none of the chunks the job writes after in the index', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    // deleted while the job is under way: its chunks arrive after the delete removed the document's
    const run = await writeRun(kb.id, doc.id, async () => {
      expect((await call(url(), 'deleteDocument', key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(204);
    });
    expect(await markReady(kb.id, doc.id, run)).toBe('stale');
    expect(await citations(kb.id)).toEqual([]);
    const hits = await services.index.search(kb.id, { terms: 'mangroves coast', stems: 'mangrov coast', filters: {}, limit: 10 });
    expect(hits).toEqual([]);
  });

  test("a document deleted while its file is read stops the job at once: the account's next file is read without waiting for the rest", async () => {
    const kb = await createKb(url(), key);
    // read whole, this file would take the reader most of a minute
    const doc = await upload(url(), key, kb.id, uploadForm({ name: 'atlas.pdf', bytes: sharedStreamPdf(2000, 1 << 20) }));
    const em = () => server.orm.em.fork();
    const job = runIngestionJob({ em, index: services.index, embedder: null, work: services.ingestionWork, now: () => new Date() }, { documentId: doc.id, revision: 1 }, false).then(() => 'ended');
    for (let waited = 0; !(await em().execute<{ started: boolean }[]>('select processing_started_at is not null as started from document where id = ?', [doc.id]))[0]!.started; waited += 50) {
      if (waited > 30_000) throw new Error('the job did not start reading');
      await sleep(50);
    }
    expect((await call(url(), 'deleteDocument', key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(204);
    const late = (what: string) => sleep(15_000).then(() => what);
    expect(await Promise.race([job, late('still reading')])).toBe('ended');
    // the account's share of the readers (one file at a time) is free
    const [{ account_id: account }] = (await em().execute<{ account_id: string }[]>('select account_id from store where id = ?', [kb.id])) as [{ account_id: string }];
    const next = services.ingestionWork.run('markedText', new TextEncoder().encode('Mangroves.'), `account:${account}`).then(() => 'read');
    expect(await Promise.race([next, late('waiting')])).toBe('read');
  });

  test('a knowledge base deleted while its job writes keeps nothing in the index, though the write made its store again', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    const run = await writeRun(kb.id, doc.id, async () => {
      expect((await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } })).status).toBe(204);
    });
    expect(await markReady(kb.id, doc.id, run)).toBe('stale');
    const left: string[] = [];
    for await (const chunk of services.index.unembeddedChunks(kb.id)) left.push(chunk.chunkText);
    expect(left).toEqual([]);
  });
  test('a knowledge base deleted while its job writes, whose write then fails, leaves no index behind', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    const index = services.index;
    const write = index.writeChunks.bind(index);
    // the delete commits, then the job's write makes the store's index again and fails half-way
    index.writeChunks = async (store, chunks, vectors) => {
      expect((await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } })).status).toBe(204);
      await write(store, chunks, vectors);
      throw new UpstreamError('search index');
    };
    try {
      const deps = { em: () => server.orm.em.fork(), index, embedder: null, work: services.ingestionWork, now: () => new Date() };
      await expect(runIngestionJob(deps, { documentId: doc.id, revision: 1 }, false)).rejects.toBeInstanceOf(UpstreamError);
    } finally {
      index.writeChunks = write;
    }
    expect(await indexExists(kb.id)).toBe(false);
  });
});

describe('an upload meeting the delete of its knowledge base', () => {
  test('answers 404 with the documented body once the delete commits, never 500', async () => {
    const kb = await createKb(url(), key);
    const em = server.orm.em.fork();
    let uploaded: Promise<Awaited<ReturnType<typeof call>>> | undefined;
    // the delete's transaction, held open until the upload waits on it
    await em.transactional(async (tx) => {
      await tx.execute('select id from store where id = ? for update', [kb.id]);
      uploaded = call(url(), 'uploadDocument', key, { path: { kb_id: kb.id }, form: uploadForm(notes()) });
      await waitsForLock(server.orm, '%', 'the upload');
      await tx.nativeDelete(Store, { id: kb.id });
    });
    const res = await uploaded!;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `Knowledge base '${kb.id}' was not found.` });
  });
});

describe('an index that answers a delete with an error', () => {
  test('deleting a document or a knowledge base answers 502 as the contract documents, and keeps it for a retry', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    indexFails = true;
    try {
      const documentDelete = await call(url(), 'deleteDocument', key, { path: { kb_id: kb.id, document_id: doc.id } });
      expect(documentDelete).toMatchObject({ status: 502, body: { detail: 'The search index answered with an error. The request was counted; please retry.' } });
      const kbDelete = await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } });
      expect(kbDelete).toMatchObject({ status: 502, body: { detail: 'The search index answered with an error. The request was counted; please retry.' } });
    } finally {
      indexFails = false;
    }
    expect((await call(url(), 'getDocument', key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(200);
    expect((await call(url(), 'deleteKnowledgeBase', key, { path: { kb_id: kb.id } })).status).toBe(204);
  });
});

describe('the knowledge bases one account may have', () => {
  test('at most 100, also when the last places are asked for at once; deleting one frees its place', async () => {
    const plan = await storagePlan(server.orm, { documents: 10, pages: 10, bytes: 1_000_000 });
    const { key: own, accountId } = await newKey(server.orm, { plan });
    // 97 made beforehand, as the API makes them
    await server.orm.em
      .fork()
      .execute(`insert into store (id, account_id, shared, name, created_at) select 'kb_cap' || n || ?, ?, false, 'made before ' || n, now() from generate_series(1, 97) n`, [accountId.slice(0, 8), accountId]);
    // half of them with an Idempotency-Key of their own (its row holds a lock on the account: two such deadlocked)
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call(url(), 'createKnowledgeBase', own, { json: { name: `last ${i}` }, headers: i % 2 ? { 'Idempotency-Key': `cap-${i}-${accountId}` } : {} })),
    );
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 409, 409, 409]);
    for (const refused of answers.filter((res) => res.status === 409)) {
      expect((refused.body as Schemas['Detail']).detail).toBe('This account has 100 knowledge bases, the most one account may have: delete one it no longer needs first.');
    }
    const listed = await call(url(), 'listKnowledgeBases', own);
    const all = (listed.body as Schemas['KnowledgeBaseList']).knowledge_bases;
    expect(all).toHaveLength(100);
    expect((await call(url(), 'deleteKnowledgeBase', own, { path: { kb_id: all[0]!.id } })).status).toBe(204);
    expect((await call(url(), 'createKnowledgeBase', own, { json: { name: 'in its place' } })).status).toBe(201);
  });
});

describe('two documents of an account ending at once', () => {
  test('only the one that fits the pages limit ends ready', async () => {
    const plan = await storagePlan(server.orm, { documents: 10, pages: 1, bytes: 1_000_000 });
    const tight = (await newKey(server.orm, { plan })).key;
    const kb = await createKb(url(), tight);
    const docs = [await upload(url(), tight, kb.id, uploadForm(notes())), await upload(url(), tight, kb.id, uploadForm(notes()))];
    const runs = await Promise.all(docs.map((doc) => writeRun(kb.id, doc.id, () => Promise.resolve())));
    // each job waits (up to a second) for the other to reach its pages check too, as two jobs
    // ending together do
    let arrived = 0;
    let bothArrived!: () => void;
    const together = new Promise<void>((resolve) => (bothArrived = resolve));
    const onePage = async () => {
      if (++arrived === 2) bothArrived();
      await Promise.race([together, sleep(1_000)]);
      return 1;
    };
    const outcomes = await Promise.all(
      docs.map((doc, i) => markDocumentReady(server.orm.em.fork(), services.index, { documentId: doc.id, store: kb.id, revision: 1, ...runs[i]! }, onePage, new Date())),
    );
    expect(outcomes.sort()).toEqual(['failed', 'ready']);
    const listed = await call(url(), 'listDocuments', tight, { path: { kb_id: kb.id } });
    expect((listed.body as Schemas['KnowledgeBaseDocumentList']).documents.map((d) => d.state).sort()).toEqual(['failed', 'ready']);
  });
});

describe('a plan without knowledge bases by the time a document is read', () => {
  test('the document ends failed saying the plan changed, not that 0 pages were left', async () => {
    const { key: own, accountId } = await newKey(server.orm, { plan: 'enterprise' });
    const kb = await createKb(url(), own);
    const doc = await upload(url(), own, kb.id, uploadForm(notes()));
    const run = await writeRun(kb.id, doc.id, () => Promise.resolve());
    await setSubscription(server.orm.em.fork(), accountId, { planCode: 'pro', state: 'active' }, new Date());
    const em = server.orm.em.fork();
    const outcome = await markDocumentReady(em, services.index, { documentId: doc.id, store: kb.id, revision: 1, ...run }, (id) => maxPagesOf(em, id, new Date()), new Date());
    expect(outcome).toBe('failed');
    const [row] = await server.orm.em.fork().execute<{ failure_reason: string }[]>('select failure_reason from document where id = ?', [doc.id]);
    expect(row!.failure_reason).toBe("The account's plan does not include custom knowledge bases (it changed while the document was read): on a plan with them, upload the document again.");
  });
});

/** A port nothing listens on: a search index stopped there refuses every connection. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('the search index down through the last attempt of the job', () => {
  test('the document still ends failed with the reason, and its chunks leave the index once the index is back', async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    expect(await markReady(kb.id, doc.id, await writeRun(kb.id, doc.id, () => Promise.resolve()))).toBe('ready');
    const replaced = await call(url(), 'replaceDocument', key, { path: { kb_id: kb.id, document_id: doc.id }, form: uploadForm({ name: 'mangroves.md', bytes: '--- PAGE 1 ---\nMangroves grow in salt water.' }) });
    expect(replaced).toMatchObject({ status: 202, body: { state: 'processing' } });

    const stopped = testServices({}, { WEAVIATE_URL: `http://127.0.0.1:${await closedPort()}`, WEAVIATE_GRPC_PORT: String(await closedPort()) });
    const deps = { em: () => server.orm.em.fork(), index: stopped.index, embedder: null, work: services.ingestionWork, now: () => new Date() };
    await runIngestionJob(deps, { documentId: doc.id, revision: 2 }, true);
    const failed = await call(url(), 'getDocument', key, { path: { kb_id: kb.id, document_id: doc.id } });
    expect(failed).toMatchObject({ status: 200, body: { state: 'failed' } });
    expect((failed.body as Schemas['KnowledgeBaseDocument']).failure_reason).toMatch(/^The service could not index the document after several attempts \(.+\)\. Upload it again later\.$/);

    // the first upload's chunks, which the failed document must not keep, go at the worker's sweep
    expect(await citations(kb.id)).not.toEqual([]);
    await removeChunksLeft(server.orm.em.fork(), stopped.index).catch(() => undefined);
    expect(await citations(kb.id)).not.toEqual([]);
    await removeChunksLeft(server.orm.em.fork(), services.index);
    expect(await citations(kb.id)).toEqual([]);
  });
});

describe('a job whose retries are spent while its document is still processing', () => {
  test("the worker's sweep queues the upload again and the document ends ready", async () => {
    const kb = await createKb(url(), key);
    const doc = await upload(url(), key, kb.id, uploadForm(notes()));
    // as pg-boss leaves a job whose last attempt threw (the database down as it tried to fail the document)
    await server.orm.em.fork().execute(`update pgboss.job set state = 'failed' where name = ? and id = ?`, [INGESTION_QUEUE, ingestionJobId(doc.id, 1)]);
    const [job] = await server.orm.em.fork().execute<{ state: string }[]>('select state from pgboss.job where name = ? and id = ?', [INGESTION_QUEUE, ingestionJobId(doc.id, 1)]);
    expect(job).toEqual({ state: 'failed' });
    await startServer({ ingestion: true });
    expect(await settled(url(), key, kb.id, doc.id, 30_000)).toMatchObject({ state: 'ready' });
  });
});
