import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../src/config.js';
import type { ChunkRecord, MetadataFilters } from '../../src/domain/ports/search-index.js';
import { analysedQuestion, analysedText, stemText } from '../../src/domain/text/analyse.js';
import { WeaviateSearchIndex } from '../../src/search-index/weaviate.js';
import { chunkRecord } from './support/chunks.js';
import { onCleanup } from './support/cleanup.js';
import { testServices } from './support/server.js';

// The index adapter's promise to the domain: no failure of Weaviate reaches callers raw.
const services = testServices();

const record = (i: number, run: string) =>
  chunkRecord(i, run, { documentId: 'doc_search_index_writes', topic: 'the cell membrane', terms: 'cell membrane', stems: 'cel membran' });

async function stored(store: string): Promise<number> {
  const ids: string[] = [];
  for await (const chunk of services.index.unembeddedChunks(store)) ids.push(chunk.id);
  return ids.length;
}

describe('WeaviateSearchIndex failures', () => {
  test('an error the index answers with (not an outage) becomes upstream_failed (502), with the cause kept', async () => {
    const chunk = {
      textTerms: 'osmosis water',
      textStems: 'osm wat',
      chunkText: 'Osmosis moves water.',
      documentId: 'doc_search_index_test',
      documentName: 'osmosis.md',
      subject: 'Science',
      grade: '9',
      category: 'textbook',
      language: 'english',
      year: '',
      pages: [1],
      chunkIndex: 0,
      ingestRun: 'run-1',
    };
    await services.index.writeChunks('search-index-test', [chunk]);
    // a filter on a property the collection does not have: Weaviate refuses the query
    const filters = { colour: 'red' } as unknown as MetadataFilters;
    const failure = services.index.search('search-index-test', { terms: 'osmosis', stems: 'osm', filters, limit: 5 });
    await expect(failure).rejects.toMatchObject({
      code: 'upstream_failed',
      message: 'The search index answered with an error. The request was counted; please retry.',
    });
    await expect(failure.catch((error: Error) => String(error.cause))).resolves.toMatch(/colour/);
  });
});

describe('WeaviateSearchIndex writes', () => {

  test('a write of several batches at once stores every chunk once, reading the records once as it goes', async () => {
    let read = 0;
    function* records(): Iterable<ChunkRecord> {
      for (let i = 0; i < 730; i++) {
        read++;
        yield record(i, 'run-many');
      }
    }
    await services.index.writeChunks('search-index-writes', records());
    expect(read).toBe(730);
    expect(await stored('search-index-writes')).toBe(730);
  });

  test('chunks given with fewer vectors than chunks are refused, never indexed without one', async () => {
    const store = 'search-index-unvectored';
    const vector = Array.from({ length: 384 }, (_, i) => Math.sin(i));
    const failure = services.index.writeChunks(store, [record(0, 'run-vectors'), record(1, 'run-vectors')], [vector]);
    await expect(failure).rejects.toMatchObject({ code: 'upstream_failed' });
    await expect(failure.catch((error: Error) => String(error.cause))).resolves.toMatch(/chunk 2 has no vector \(1 given\)/);
    expect(await stored(store)).toBe(0);
  });

  test('a refused chunk fails the write only after every batch under way has settled, so removing the run leaves nothing', async () => {
    const store = 'search-index-refused';
    // an int property given text: Weaviate refuses that chunk, in the third of eight batches
    const records = Array.from({ length: 800 }, (_, i) => (i === 250 ? { ...record(i, 'run-bad'), chunkIndex: 'two hundred' as unknown as number } : record(i, 'run-bad')));
    const failure = services.index.writeChunks(store, records);
    await expect(failure).rejects.toMatchObject({ code: 'upstream_failed' });
    await expect(failure.catch((error: Error) => String(error.cause))).resolves.toMatch(/the search index refused a chunk/);
    expect(await stored(store)).toBeGreaterThan(0);
    await services.index.deleteChunks(store, { documentId: 'doc_search_index_writes', ingestRun: 'run-bad' });
    // nothing arrives after the removal: no write was still under way
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stored(store)).toBe(0);
  });
});

/** Weaviate's HTTP API through a local forwarder whose readiness check can be made to fail. */
async function readinessSwitch(target: URL): Promise<{ url: string; fail: () => void }> {
  let failing = false;
  const server: Server = createServer((incoming, outgoing) => {
    if (failing && incoming.url === '/v1/.well-known/ready') return void outgoing.writeHead(503).end();
    const forwarded = request({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, fail: () => (failing = true) };
}

describe('WeaviateSearchIndex writes when the index stops answering', () => {
  test('the write stops taking batches and fails (503) only once every batch under way has settled', async () => {
    const config = loadConfig(process.env);
    const gate = await readinessSwitch(new URL(config.WEAVIATE_URL));
    const index = new WeaviateSearchIndex({ url: gate.url, grpcPort: config.WEAVIATE_GRPC_PORT, apiKey: config.WEAVIATE_API_KEY });
    onCleanup(() => index.close());
    const store = 'search-index-halted';
    const total = 6_000;
    const text = 'the cell membrane controls what enters and leaves the cell '.repeat(20);
    const records = Array.from({ length: total }, (_, i) => ({ ...record(i, 'run-halted'), textTerms: text, textStems: text, chunkText: text, documentId: 'doc_search_index_halted' }));
    await index.writeChunks(store, records.slice(0, 1)); // the tenant exists and the index counts as healthy
    gate.fail();
    const failure = index.writeChunks(store, records.slice(1));
    await expect(failure).rejects.toMatchObject({ code: 'dependency_unavailable' });
    const atFailure = await stored(store);
    expect(atFailure).toBeLessThan(total);
    // no batch lands after the failure was reported, so a caller's clean-up removes everything
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await stored(store)).toBe(atFailure);
  });
});

describe('WeaviateSearchIndex search', () => {
  test('a hit carries what a citation needs, not the analysed copies of its text', async () => {
    const chunk: ChunkRecord = {
      textTerms: 'xylem carries water',
      textStems: 'xyl carri wat',
      chunkText: '--- PAGE 3 ---\nXylem carries water.',
      documentId: 'doc_search_index_hits',
      documentName: 'plants.pdf',
      subject: 'Science',
      grade: '10',
      category: 'textbook',
      language: 'english',
      year: '2024',
      pages: [3],
      chunkIndex: 0,
      ingestRun: 'run-1',
    };
    await services.index.writeChunks('search-index-hits', [chunk]);
    const hits = await services.index.search('search-index-hits', { terms: 'xylem', stems: 'xyl', filters: {}, limit: 5 });
    expect(hits.map((h) => h.chunk)).toEqual([
      { chunkText: chunk.chunkText, documentId: chunk.documentId, documentName: 'plants.pdf', pages: [3], subject: 'Science', grade: '10', category: 'textbook', language: 'english', year: '2024' },
    ]);
  });

  test("a gate's name in capitals is searched for: 'OR' is no stopword there", async () => {
    await services.index.writeChunks('search-index-gates', [
      gateChunk(0, 'An AND gate gives 1.'),
      gateChunk(1, 'An OR gate gives 1 when any one of its inputs is 1.'),
    ]);
    const hits = await services.index.search('search-index-gates', { ...analysedQuestion('What does an OR gate give?'), filters: {}, limit: 2 });
    expect(hits.map((h) => h.chunk.chunkText)).toEqual(['An OR gate gives 1 when any one of its inputs is 1.', 'An AND gate gives 1.']);
  });
});

function gateChunk(i: number, text: string): ChunkRecord {
  return { ...chunkRecord(i, 'run-gates', { documentId: `doc_gates_${i}`, topic: 'gates', terms: '', stems: '' }), textTerms: analysedText(text), textStems: stemText(text), chunkText: text };
}
