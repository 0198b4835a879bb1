import { beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pdfWithPages } from '../support/pdf.js';
import { newKey } from './support/accounts.js';
import { detailOf, sendRaw, type Schemas } from './support/contract.js';
import { call, createKb, documentEvents, NOTES_METADATA, settled, storagePlan, upload, uploadForm, type KbDocument, type KnowledgeBase } from './support/knowledge-bases.js';
import { rawMultipart } from './support/raw-multipart.js';
import { startServer, type TestServer } from './support/server.js';

// Knowledge bases over the API, against the real server with its ingestion worker, PostgreSQL
// and Weaviate: every answer is checked against the contract by sendRaw.

let server: TestServer;
let owner: { key: string; accountId: string };
let readOnly: string;
let stranger: string;
let pro: string;

beforeAll(async () => {
  server = await startServer({ ingestion: true });
  // custom knowledge bases as on Enterprise, with room for the many requests of this file
  const plan = await storagePlan(server.orm, { documents: 1000, pages: 100_000, bytes: 1_000_000_000 });
  owner = await newKey(server.orm, { plan });
  readOnly = (await newKey(server.orm, { plan, accountId: owner.accountId, readOnly: true })).key;
  stranger = (await newKey(server.orm, { plan })).key;
  pro = (await newKey(server.orm, { plan: 'pro' })).key;
});

const url = () => server.url;

/** A question's answer from a store, as a customer asks it. */
async function ask(key: string, storeId: string, question: string): Promise<{ status: number; body: Schemas['QueryResponse'] }> {
  const res = await sendRaw(url(), 'query', { key, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: question, store_id: storeId }) });
  return { status: res.status, body: res.body as Schemas['QueryResponse'] };
}

const notes = (text: string) => ({ name: 'notes.md', bytes: `--- PAGE 1 ---\n${text}` });

describe('knowledge bases', () => {
  test('are created with a generated id, listed, read, renamed and deleted; names are unique per account', async () => {
    const name = `Biology ${randomUUID()}`;
    const kb = await createKb(url(), owner.key, name);
    expect(kb).toMatchObject({ name, shared: false, documents: 0, pages: 0, bytes: 0 });
    expect(kb.id).toMatch(/^kb_[A-Za-z0-9]{20}$/);

    const listed = await call(url(), 'listKnowledgeBases', owner.key);
    expect((listed.body as Schemas['KnowledgeBaseList']).knowledge_bases.map((k) => k.id)).toContain(kb.id);
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).body).toMatchObject({ id: kb.id, name });

    expect((await call(url(), 'createKnowledgeBase', owner.key, { json: { name } })).status).toBe(409);
    // another account may use the same name
    expect((await call(url(), 'createKnowledgeBase', stranger, { json: { name } })).status).toBe(201);

    const renamed = await call(url(), 'renameKnowledgeBase', owner.key, { path: { kb_id: kb.id }, json: { name: `${name} (2026)` } });
    expect(renamed).toMatchObject({ status: 200, body: { id: kb.id, name: `${name} (2026)` } });
    const other = await createKb(url(), owner.key);
    expect((await call(url(), 'renameKnowledgeBase', owner.key, { path: { kb_id: other.id }, json: { name: `${name} (2026)` } })).status).toBe(409);

    expect((await call(url(), 'deleteKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).status).toBe(204);
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).status).toBe(404);
    expect((await ask(owner.key, kb.id, 'anything')).status).toBe(404);
  });

  test('default is readable and shared, and nobody may change it', async () => {
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: 'default' } })).body).toMatchObject({ id: 'default', shared: true });
    for (const res of [
      await call(url(), 'renameKnowledgeBase', owner.key, { path: { kb_id: 'default' }, json: { name: 'mine' } }),
      await call(url(), 'deleteKnowledgeBase', owner.key, { path: { kb_id: 'default' } }),
      await call(url(), 'uploadDocument', owner.key, { path: { kb_id: 'default' }, form: uploadForm(notes('Mine now.')) }),
    ]) {
      expect(res).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    }
  });

  test('bad requests answer 400 naming the problem', async () => {
    const kb = await createKb(url(), owner.key);
    const badMetadata = await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: uploadForm(notes('x'), { ...NOTES_METADATA, category: 'novel' }) });
    expect(badMetadata.status).toBe(400);
    expect((badMetadata.body as Schemas['Detail']).detail).toMatch(/category/);
    const noFile = new FormData();
    noFile.append('metadata', JSON.stringify(NOTES_METADATA));
    expect((await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: noFile })).status).toBe(400);
    // text that cannot be stored or shown: control characters (a NUL byte)
    expect((await call(url(), 'createKnowledgeBase', owner.key, { json: { name: 'a\u0000b' } })).status).toBe(400);
    expect((await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: uploadForm({ name: 'a\u0001.md', bytes: 'x' }) })).status).toBe(400);
    // a file name is the name by default, held to the name's 200 characters (the columns hold 255)
    const longFile = { name: `${'n'.repeat(297)}.md`, bytes: '--- PAGE 1 ---\nx' };
    const tooLong = "The file name of part 'file' has 300 characters, more than the 200 allowed; rename the file and upload it again.";
    const shortFile = { name: `${'n'.repeat(197)}.md`, bytes: '--- PAGE 1 ---\nx' };
    const named = await createKb(url(), owner.key);
    const kept = await call(url(), 'uploadDocument', owner.key, { path: { kb_id: named.id }, form: uploadForm(shortFile) });
    expect(kept).toMatchObject({ status: 202, body: { name: shortFile.name } });
    const keptId = (kept.body as { id: string }).id;
    for (const [operationId, path] of [
      ['uploadDocument', { kb_id: named.id }],
      ['replaceDocument', { kb_id: named.id, document_id: keptId }],
    ] as const) {
      for (const form of [uploadForm(longFile), uploadForm(longFile, NOTES_METADATA, 'Short name')]) {
        const res = await call(url(), operationId, owner.key, { path, form });
        expect([res.status, (res.body as Schemas['Detail']).detail]).toEqual([400, tooLong]);
      }
    }
    // a pattern's rule in words, not as its regular expression
    const detail = async (operationId: string, options: Parameters<typeof call>[3]) => {
      const res = await call(url(), operationId, owner.key, options);
      return [res.status, (res.body as Schemas['Detail']).detail];
    };
    expect(await detail('createKnowledgeBase', { json: { name: ' x' } })).toEqual([400, "Field 'name' must not contain control characters, nor start or end with a space."]);
    const nameRule = "Field 'name' must not contain control characters, nor start or end with a space.";
    expect(await detail('uploadDocument', { path: { kb_id: kb.id }, form: uploadForm(notes('x'), NOTES_METADATA, 'a\u0001b') })).toEqual([400, nameRule]);
    // a blank or padded name would show as none in citations, or as another document's
    for (const name of ['   ', ' lead', 'lead ']) expect(await detail('uploadDocument', { path: { kb_id: kb.id }, form: uploadForm(notes('x'), NOTES_METADATA, name) })).toEqual([400, nameRule]);
    expect(await detail('uploadDocument', { path: { kb_id: kb.id }, form: uploadForm({ name: '   ', bytes: 'x' }) })).toEqual([400, "The file name of part 'file' is blank; rename the file and upload it again."]);
    expect(await detail('uploadDocument', { path: { kb_id: kb.id }, form: uploadForm(notes('x'), { ...NOTES_METADATA, subject: 'Bio\u0001' }) })).toEqual([400, "Field 'metadata.subject' must not contain control characters, nor start or end with a space."]);
    expect((await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: uploadForm(notes('x'), { ...NOTES_METADATA, subject: 'Bio\u0000' }) })).status).toBe(400);
    expect((await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { subject: 'Bio\u0000' } })).status).toBe(400);
    // a blank or padded value, which no filter could match, is refused at once rather than failing the indexing later
    for (const subject of ['   ', ' Biology ']) {
      expect(await detail('uploadDocument', { path: { kb_id: kb.id }, form: uploadForm(notes('x'), { ...NOTES_METADATA, subject }) })).toEqual([400, "Field 'metadata.subject' must not contain control characters, nor start or end with a space."]);
    }
    expect((await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { year: '2022 ' } })).status).toBe(400);
    // bytes that are not UTF-8 in a text part: refused, not stored with U+FFFD in their place
    const notUtf8 = Buffer.concat([Buffer.from('Bio'), Buffer.from([0xff]), Buffer.from('logy')]);
    for (const [part, bytes] of [
      ['metadata', Buffer.concat([Buffer.from('{"subject":"'), notUtf8, Buffer.from('","grade":"12","category":"short-notes","language":"english"}')])],
      ['name', notUtf8],
    ] as const) {
      const parts = [{ name: 'file', filename: 'notes.md', bytes: '--- PAGE 1 ---\nx' }, { name: 'metadata', bytes: JSON.stringify(NOTES_METADATA) }];
      const { body, contentType } = rawMultipart([...parts.filter((p) => p.name !== part), { name: part, bytes }]);
      const res = await sendRaw(url(), 'uploadDocument', { key: owner.key, method: 'POST', path: { kb_id: kb.id }, headers: { 'Content-Type': contentType }, body });
      expect(res.status).toBe(400);
      expect(detailOf(res.body)).toBe(`Part '${part}' is not valid UTF-8 text: send it encoded as UTF-8.`);
    }
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).body).toMatchObject({ documents: 0 });
    expect((await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { limit: '0' } })).status).toBe(400);
    const badCursor = await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { cursor: 'bm90LWEtY3Vyc29y' } });
    expect([badCursor.status, (badCursor.body as Schemas['ValidationError']).errors]).toEqual([400, [{ path: '/cursor', message: 'unknown cursor' }]]);
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: 'no/such' } })).status).toBe(400);
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: 'kb_doesNotExist' } })).status).toBe(404);
  });
});

describe('documents', () => {
  test('an upload answers 202 at once, ends ready, and a query of its knowledge base finds its passage with citations', async () => {
    const kb = await createKb(url(), owner.key);
    const accepted = await upload(url(), owner.key, kb.id, uploadForm(notes('Mitochondria are the powerhouse of the cell: they make ATP by respiration.'), NOTES_METADATA, 'Cell notes'));
    expect(accepted).toMatchObject({ knowledge_base_id: kb.id, name: 'Cell notes', state: 'processing', pages: null, chunks: null, failure_reason: null, metadata: NOTES_METADATA });
    expect(accepted.id).toMatch(/^doc_[A-Za-z0-9]{24}$/);

    const ready = await settled(url(), owner.key, kb.id, accepted.id);
    expect(ready).toMatchObject({ state: 'ready', pages: 1, chunks: 1, failure_reason: null });
    expect(ready.processing_started_at).not.toBeNull();
    expect(ready.finished_at).not.toBeNull();
    // the webhook event was written with the ending, once
    expect(await documentEvents(server.orm, accepted.id)).toEqual([
      { account_id: owner.accountId, type: 'knowledge_base.document.ready', data: { store_id: kb.id, document_id: accepted.id, name: 'Cell notes', reason: null } },
    ]);

    const answer = await ask(owner.key, kb.id, 'What makes ATP in the cell?');
    expect(answer.status).toBe(200);
    expect(answer.body.citations[0]).toMatchObject({ document_id: accepted.id, document_name: 'Cell notes', pages: [1] });
    expect(answer.body.citations[0]!.chunk_text).toContain('Mitochondria');

    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).body).toMatchObject({ documents: 1, pages: 1 });
  });

  test('a Tamil PDF that Chromium printed in Noto Serif Tamil is indexed word for word, and its citation quotes the words whole', async () => {
    // pdftotext alone reads its words broken after each pulli: நீர் த்துளிகள் for நீர்த்துளிகள்
    const kb = await createKb(url(), owner.key);
    const bytes = new Uint8Array(readFileSync('test/fixtures/pdf-producers/chromium-serif-tamil.pdf'));
    const metadata = { subject: 'Geography', grade: '6', category: 'short-notes', language: 'tamil' };
    const accepted = await upload(url(), owner.key, kb.id, uploadForm({ name: 'rivers.pdf', bytes }, metadata));
    expect(await settled(url(), owner.key, kb.id, accepted.id)).toMatchObject({ state: 'ready', pages: 3, failure_reason: null });

    const answer = await ask(owner.key, kb.id, 'முகில்களிலுள்ள நீர்த்துளிகள் பெரிதாகி என்ன ஆகின்றன?');
    expect(answer.status).toBe(200);
    const cited = answer.body.citations[0]!;
    expect(cited).toMatchObject({ document_id: accepted.id, pages: [1] });
    expect(cited.chunk_text).toContain('முகில்களிலுள்ள நீர்த்துளிகள் பெரிதாகிப் பாரமானதும்');
    expect(cited.chunk_text).not.toMatch(/நீர் த்துளிகள்|இலங் கை/u);
  });

  test('uploads count as their own endpoint in the usage figures', async () => {
    const key = await newKey(server.orm, { plan: 'enterprise' });
    const kb = await createKb(url(), key.key);
    await upload(url(), key.key, kb.id, uploadForm(notes('Counted.')));
    await call(url(), 'listDocuments', key.key, { path: { kb_id: kb.id } });
    const usage = (await call(url(), 'getUsage', key.key)).body as Schemas['Usage'];
    expect(usage.by_endpoint).toEqual({
      'POST /api/v1/dev/knowledge-bases': 1,
      'POST /api/v1/dev/knowledge-bases/{kb_id}/documents': 1,
      'GET /api/v1/dev/knowledge-bases/{kb_id}/documents': 1,
      '/api/v1/dev/usage': 1,
    });
  });

  test('a file that cannot be read ends failed with a reason a person can act on, and nothing of it is indexed', async () => {
    const kb = await createKb(url(), owner.key);
    const garbage = await upload(url(), owner.key, kb.id, uploadForm({ name: 'scan.pdf', bytes: new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3]) }));
    const docx = await upload(url(), owner.key, kb.id, uploadForm({ name: 'notes.docx', bytes: 'Not a PDF nor text' }));
    const failed = await settled(url(), owner.key, kb.id, garbage.id);
    expect(failed).toMatchObject({ state: 'failed', pages: null, chunks: null });
    expect(failed.failure_reason).toMatch(/scan\.pdf is not a readable PDF/);
    expect((await settled(url(), owner.key, kb.id, docx.id)).failure_reason).toMatch(/unsupported file type; use PDF, \.txt or \.md/);
    expect(await documentEvents(server.orm, garbage.id)).toEqual([
      { account_id: owner.accountId, type: 'knowledge_base.document.failed', data: { store_id: kb.id, document_id: garbage.id, name: 'scan.pdf', reason: failed.failure_reason } },
    ]);
    const listed = await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { state: 'failed' } });
    expect((listed.body as Schemas['KnowledgeBaseDocumentList']).documents.map((d) => d.id).sort()).toEqual([garbage.id, docx.id].sort());
  });

  test('are listed newest first, a page at a time, filtered by state and metadata', async () => {
    const kb = await createKb(url(), owner.key);
    const ids: string[] = [];
    for (const [i, subject] of ['Biology', 'Physics', 'Biology'].entries()) {
      ids.push((await upload(url(), owner.key, kb.id, uploadForm({ name: `n${i}.md`, bytes: `Page ${i} text.` }, { ...NOTES_METADATA, subject }))).id);
    }
    const first = (await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { limit: '2' } })).body as Schemas['KnowledgeBaseDocumentList'];
    expect(first.documents.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.next_cursor).not.toBeNull();
    const second = (await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { limit: '2', cursor: first.next_cursor! } })).body as Schemas['KnowledgeBaseDocumentList'];
    expect(second).toEqual({ documents: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    const biology = (await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id }, query: { subject: 'Biology', language: 'english' } })).body as Schemas['KnowledgeBaseDocumentList'];
    expect(biology.documents.map((d) => d.id)).toEqual([ids[2], ids[0]]);
  });

  test('a replaced document is read again under the same id; its new passage replaces the old one', async () => {
    const kb = await createKb(url(), owner.key);
    const first = await upload(url(), owner.key, kb.id, uploadForm(notes('Osmosis moves water across a membrane.')));
    await settled(url(), owner.key, kb.id, first.id);
    const replaced = await call(url(), 'replaceDocument', owner.key, {
      path: { kb_id: kb.id, document_id: first.id },
      form: uploadForm(notes('Diffusion spreads particles from high to low concentration.'), { ...NOTES_METADATA, year: '2026' }),
    });
    expect(replaced).toMatchObject({ status: 202, body: { id: first.id, state: 'processing', metadata: { year: '2026' } } });
    expect(await settled(url(), owner.key, kb.id, first.id)).toMatchObject({ state: 'ready', chunks: 1 });
    const answer = await ask(owner.key, kb.id, 'What does diffusion do? What moves water, osmosis?');
    expect(answer.body.citations.map((c) => c.chunk_text).join(' ')).toContain('Diffusion');
    expect(answer.body.citations.map((c) => c.chunk_text).join(' ')).not.toContain('Osmosis');

    // a name that was the file's follows the new file (citations named the old edition); one given stays
    const renamed = await call(url(), 'replaceDocument', owner.key, { path: { kb_id: kb.id, document_id: first.id }, form: uploadForm({ name: 'edition-2.md', bytes: notes('Diffusion.').bytes }) });
    expect(renamed.body).toMatchObject({ name: 'edition-2.md' });
    await call(url(), 'replaceDocument', owner.key, { path: { kb_id: kb.id, document_id: first.id }, form: uploadForm({ name: 'edition-3.md', bytes: notes('Diffusion.').bytes }, NOTES_METADATA, 'Cell transport') });
    const named = await call(url(), 'replaceDocument', owner.key, { path: { kb_id: kb.id, document_id: first.id }, form: uploadForm({ name: 'edition-4.md', bytes: notes('Diffusion.').bytes }) });
    expect(named.body).toMatchObject({ name: 'Cell transport' });
  });

  test('a replacement that cannot be read ends the document failed, its earlier passages leaving the index with it', async () => {
    const kb = await createKb(url(), owner.key);
    const doc = await upload(url(), owner.key, kb.id, uploadForm(notes('Xylem vessels carry water up the stem.')));
    expect(await settled(url(), owner.key, kb.id, doc.id)).toMatchObject({ state: 'ready', pages: 1 });
    expect((await ask(owner.key, kb.id, 'What do xylem vessels carry?')).body.citations.length).toBeGreaterThan(0);
    const broken = await call(url(), 'replaceDocument', owner.key, { path: { kb_id: kb.id, document_id: doc.id }, form: uploadForm({ name: 'scan.pdf', bytes: new Uint8Array([0x25, 0x50, 0x44, 0x46, 1, 2]) }) });
    expect(broken.status).toBe(202);
    const failed = await settled(url(), owner.key, kb.id, doc.id);
    expect(failed).toMatchObject({ state: 'failed', pages: null, chunks: null });
    expect(failed.failure_reason).toMatch(/scan\.pdf is not a readable PDF/);
    expect((await ask(owner.key, kb.id, 'What do xylem vessels carry?')).body.citations).toEqual([]);
  });

  test('a deleted document is out of the index when the call returns', async () => {
    const kb = await createKb(url(), owner.key);
    const doc = await upload(url(), owner.key, kb.id, uploadForm(notes('Chlorophyll absorbs red and blue light.')));
    await settled(url(), owner.key, kb.id, doc.id);
    expect((await ask(owner.key, kb.id, 'What does chlorophyll absorb?')).body.citations.length).toBeGreaterThan(0);
    expect((await call(url(), 'deleteDocument', owner.key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(204);
    expect((await ask(owner.key, kb.id, 'What does chlorophyll absorb?')).body.citations).toEqual([]);
    expect((await call(url(), 'getDocument', owner.key, { path: { kb_id: kb.id, document_id: doc.id } })).status).toBe(404);
  });

  test("one account's documents are read one at a time, and another account's upload does not wait behind them", async () => {
    // INGEST_PER_ACCOUNT 1 and INGEST_CONCURRENCY 2 (the defaults): the busy account holds one slot
    const busy = await newKey(server.orm, { plan: 'enterprise' });
    const other = await newKey(server.orm, { plan: 'enterprise' });
    const busyKb = await createKb(url(), busy.key);
    const otherKb = await createKb(url(), other.key);
    const pages = (n: number) => Array.from({ length: 150 }, (_, i) => `Book ${n}, page ${i + 1}: rivers carry water from the hills to the sea.`);
    const queued: KbDocument[] = [];
    for (let n = 1; n <= 4; n++) queued.push(await upload(url(), busy.key, busyKb.id, uploadForm({ name: `book-${n}.pdf`, bytes: pdfWithPages(pages(n)) })));
    const late = await upload(url(), other.key, otherKb.id, uploadForm({ name: 'late.pdf', bytes: pdfWithPages(pages(5)) }));
    const done = await Promise.all(queued.map((d) => settled(url(), busy.key, busyKb.id, d.id, 300_000)));
    const lateDone = await settled(url(), other.key, otherKb.id, late.id, 300_000);
    expect([...done, lateDone].map((d) => d.state)).toEqual(['ready', 'ready', 'ready', 'ready', 'ready']);
    const spans = done.map((d) => [Date.parse(d.processing_started_at!), Date.parse(d.finished_at!)] as const).sort((a, b) => a[0] - b[0]);
    // never two of the busy account's documents at once
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
    // the other account's upload, queued last, started before the busy account's last one
    expect(Date.parse(lateDone.processing_started_at!)).toBeLessThan(spans[spans.length - 1]![0]);
  }, 400_000);

  test('a file over 50 MiB is refused with 400, a body over 51 MiB with 413, and nothing is stored', async () => {
    const kb = await createKb(url(), owner.key);
    const file = (bytes: number) => uploadForm({ name: 'huge.md', bytes: new Uint8Array(bytes).fill(0x61) });
    const overFile = await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: file(50 * 1024 * 1024 + 1) });
    expect(overFile.status).toBe(400);
    expect((overFile.body as Schemas['Detail']).detail).toMatch(/52428800 bytes/);
    const overBody = await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: file(52 * 1024 * 1024) });
    expect(overBody.status).toBe(413);
    expect((await call(url(), 'getKnowledgeBase', owner.key, { path: { kb_id: kb.id } })).body).toMatchObject({ documents: 0 });
  });

  test('a PDF of 2,000 pages is taken and indexed', async () => {
    const kb = await createKb(url(), owner.key);
    const lines = Array.from({ length: 2000 }, (_, i) => `Page ${i + 1} of the long textbook about ecosystems number ${i + 1}.`);
    const doc = await upload(url(), owner.key, kb.id, uploadForm({ name: 'textbook.pdf', bytes: pdfWithPages(lines) }, { ...NOTES_METADATA, category: 'textbook' }));
    const ready = await settled(url(), owner.key, kb.id, doc.id, 300_000);
    expect(ready).toMatchObject({ state: 'ready', pages: 2000 });
    expect(ready.chunks).toBeGreaterThan(0);
  }, 400_000);
});

describe('Idempotency-Key', () => {
  test('a retried create gets the kept answer; the same key with another request is refused', async () => {
    const key = randomUUID();
    const name = `Idem ${key}`;
    const first = await call(url(), 'createKnowledgeBase', owner.key, { json: { name }, headers: { 'Idempotency-Key': key } });
    const again = await call(url(), 'createKnowledgeBase', owner.key, { json: { name }, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again).toMatchObject({ status: 201, body: first.body });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await call(url(), 'createKnowledgeBase', owner.key, { json: { name: `${name} other` }, headers: { 'Idempotency-Key': key } });
    expect(other.status).toBe(400);
    expect((other.body as Schemas['Detail']).detail).toMatch(/already used with a different request/);
    // keys are per account: another account's same key is its own
    expect((await call(url(), 'createKnowledgeBase', stranger, { json: { name }, headers: { 'Idempotency-Key': key } })).headers.get('idempotent-replayed')).toBeNull();
  });

  test('concurrent duplicates make one knowledge base; a retried upload never makes two documents', async () => {
    const key = randomUUID();
    const name = `Concurrent ${key}`;
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(url(), 'createKnowledgeBase', owner.key, { json: { name }, headers: { 'Idempotency-Key': key } })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(answers.map((a) => (a.body as KnowledgeBase).id)).size).toBe(1);
    const kb = answers[0]!.body as KnowledgeBase;

    const uploadKey = randomUUID();
    const form = () => uploadForm(notes('Retried uploads are kept once.'));
    const [a, b] = await Promise.all([upload(url(), owner.key, kb.id, form(), { 'Idempotency-Key': uploadKey }), upload(url(), owner.key, kb.id, form(), { 'Idempotency-Key': uploadKey })]);
    const c = await upload(url(), owner.key, kb.id, form(), { 'Idempotency-Key': uploadKey });
    expect(new Set([a.id, b.id, c.id]).size).toBe(1);
    const listed = (await call(url(), 'listDocuments', owner.key, { path: { kb_id: kb.id } })).body as Schemas['KnowledgeBaseDocumentList'];
    expect(listed.documents).toHaveLength(1);
    // another file under the same key is another request
    const changed = await call(url(), 'uploadDocument', owner.key, { path: { kb_id: kb.id }, form: uploadForm(notes('Another file.')), headers: { 'Idempotency-Key': uploadKey } });
    expect(changed.status).toBe(400);
  });
});

describe('storage limits', () => {
  test('uploads past the plan\'s documents or bytes answer 403 storage_limit_exceeded; pages past it end failed', async () => {
    const plan = await storagePlan(server.orm, { documents: 2, pages: 3, bytes: 400 });
    const { key } = await newKey(server.orm, { plan });
    const kb = await createKb(url(), key);
    const big = await call(url(), 'uploadDocument', key, { path: { kb_id: kb.id }, form: uploadForm({ name: 'big.md', bytes: 'x'.repeat(401) }) });
    expect(big).toMatchObject({ status: 403, body: { error: { code: 'storage_limit_exceeded' } } });
    expect((big.body as Schemas['Error']).error.message).toMatch(/at most 400 bytes/);

    const fourPages = '--- PAGE 1 ---\nOne.\n--- PAGE 2 ---\nTwo.\n--- PAGE 3 ---\nThree.\n--- PAGE 4 ---\nFour.';
    const tooManyPages = await upload(url(), key, kb.id, uploadForm({ name: 'four.md', bytes: fourPages }));
    expect((await settled(url(), key, kb.id, tooManyPages.id)).failure_reason).toMatch(/has 4 pages, more than the 3 left of the plan's limit of 3 pages/);
    await upload(url(), key, kb.id, uploadForm(notes('Second document.')));
    const third = await call(url(), 'uploadDocument', key, { path: { kb_id: kb.id }, form: uploadForm(notes('Third document.')) });
    expect(third).toMatchObject({ status: 403, body: { error: { code: 'storage_limit_exceeded' } } });
    expect((third.body as Schemas['Error']).error.message).toMatch(/at most 2 documents per account/);
  });
});

describe('who may do what', () => {
  let kb: KnowledgeBase;
  let doc: KbDocument;
  beforeAll(async () => {
    kb = await createKb(url(), owner.key);
    doc = await upload(url(), owner.key, kb.id, uploadForm(notes('Only its owner reads this passage about enzymes.')));
    await settled(url(), owner.key, kb.id, doc.id);
  });

  const operations = () =>
    [
      ['listKnowledgeBases', {}],
      ['createKnowledgeBase', { json: { name: `x ${randomUUID()}` } }],
      ['getKnowledgeBase', { path: { kb_id: kb.id } }],
      ['renameKnowledgeBase', { path: { kb_id: kb.id }, json: { name: `y ${randomUUID()}` } }],
      ['deleteKnowledgeBase', { path: { kb_id: kb.id } }],
      ['listDocuments', { path: { kb_id: kb.id } }],
      ['uploadDocument', { path: { kb_id: kb.id }, form: uploadForm(notes('Intruder.')) }],
      ['getDocument', { path: { kb_id: kb.id, document_id: doc.id } }],
      ['replaceDocument', { path: { kb_id: kb.id, document_id: doc.id }, form: uploadForm(notes('Intruder.')) }],
      ['deleteDocument', { path: { kb_id: kb.id, document_id: doc.id } }],
    ] as const;

  test('another account can never list, read, change, query or delete a knowledge base or its documents: 404', async () => {
    for (const [operationId, options] of operations()) {
      const res = await call(url(), operationId, stranger, options);
      if (operationId === 'listKnowledgeBases') expect((res.body as Schemas['KnowledgeBaseList']).knowledge_bases.map((k) => k.id)).not.toContain(kb.id);
      else if (operationId === 'createKnowledgeBase') expect(res.status).toBe(201);
      else expect({ operationId, status: res.status }).toEqual({ operationId, status: 404 });
    }
    // nor its passages
    expect((await ask(stranger, kb.id, 'What about enzymes?')).status).toBe(404);
    // and all of it is still there for its owner
    expect(await settled(url(), owner.key, kb.id, doc.id)).toMatchObject({ state: 'ready', chunks: 1 });
    expect((await ask(owner.key, kb.id, 'What about enzymes?')).body.citations[0]).toMatchObject({ document_id: doc.id });
  });

  test('a plan without custom knowledge bases gets 403 forbidden naming the plan, for every operation', async () => {
    for (const [operationId, options] of operations()) {
      const res = await call(url(), operationId, pro, options);
      expect({ operationId, status: res.status, body: res.body }).toMatchObject({
        operationId,
        status: 403,
        body: { error: { code: 'forbidden', message: expect.stringMatching(/custom knowledge bases are not included in the Pro plan/) } },
      });
    }
  });

  test('a read-only key may read but not change anything: 403 forbidden', async () => {
    for (const [operationId, options] of operations()) {
      const res = await call(url(), operationId, readOnly, options);
      if (operationId.startsWith('get') || operationId.startsWith('list')) expect({ operationId, status: res.status }).toEqual({ operationId, status: 200 });
      else expect({ operationId, status: res.status, body: res.body }).toMatchObject({ operationId, status: 403, body: { error: { code: 'forbidden', message: expect.stringMatching(/read-only/) } } });
    }
    expect(await settled(url(), owner.key, kb.id, doc.id)).toMatchObject({ state: 'ready' });
  });
});
