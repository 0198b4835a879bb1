import { beforeAll, describe, expect, test } from '@jest/globals';
import { resolve } from 'node:path';
import { WeaviateSearchIndex } from '../../src/search-index/weaviate.js';
import { chunkRecord } from './support/chunks.js';
import { onCleanup } from './support/cleanup.js';
import { SCRIPT_DEADLINE_MS, serviceScript, STARTUP_DEADLINE_MS } from './support/processes.js';

// Weaviate removes at most QUERY_MAXIMUM_RESULTS objects per batch delete (10,000 by default).
// This file starts its own Weaviate with a limit of 50, so a document of a few hundred chunks
// crosses it. Its ports are 21 above the test services' Weaviate ports (it also takes the four
// above its HTTP port): clear of outage.test.ts's (+5 to +9) and of the ports the test scripts
// give the other services, which sit 10, 11, 20 and 30 above Weaviate's HTTP port.
const LIMIT = 50;
const ports = {
  weaviateHttp: Number(process.env.WEAVIATE_HTTP_PORT ?? 18090) + 21,
  weaviateGrpc: Number(process.env.WEAVIATE_GRPC_PORT ?? 15061) + 21,
};
const env = {
  ...process.env,
  DATA_DIR: resolve(process.env.DATA_DIR ?? '.data/test', 'delete-limit'),
  WEAVIATE_HTTP_PORT: String(ports.weaviateHttp),
  WEAVIATE_GRPC_PORT: String(ports.weaviateGrpc),
  WEAVIATE_START_TIMEOUT: String(STARTUP_DEADLINE_MS / 1000),
  WEAVIATE_URL: '',
  QUERY_MAXIMUM_RESULTS: String(LIMIT),
};
const weaviate = (command: 'start' | 'stop') => serviceScript('weaviate', command, env);

let index: WeaviateSearchIndex;

beforeAll(async () => {
  onCleanup(() => weaviate('stop'));
  await weaviate('start');
  index = new WeaviateSearchIndex({ url: `http://127.0.0.1:${ports.weaviateHttp}`, grpcPort: ports.weaviateGrpc });
  onCleanup(() => index.close());
}, SCRIPT_DEADLINE_MS + STARTUP_DEADLINE_MS);

const record = (documentId: string, i: number, run: string) =>
  chunkRecord(i, run, { documentId, topic: 'photosynthesis', terms: 'photosynthesis leaf', stems: 'photosynthes leaf' });
/** Every chunk left that the query matches: all of them, as long as fewer than LIMIT are left. */
const left = (store: string) => index.search(store, { terms: 'photosynthesis', stems: 'photosynthes', filters: {}, limit: LIMIT });
const records = (documentId: string, count: number, run: string) => Array.from({ length: count }, (_, i) => record(documentId, i, run));

describe('deleting chunks past the index batch-delete limit', () => {
  test('a document of more chunks than the limit is deleted whole; other documents keep theirs', async () => {
    const store = 'delete-limit-whole';
    await index.writeChunks(store, records('doc_big', 4 * LIMIT + 7, 'run-1'));
    await index.writeChunks(store, records('doc_other', 3, 'run-1'));
    await index.deleteChunks(store, { documentId: 'doc_big' });
    expect((await left(store)).map((hit) => hit.chunk.documentId).sort()).toEqual(['doc_other', 'doc_other', 'doc_other']);
  });

  test('a re-ingestion removes every chunk of the earlier run, past the limit too', async () => {
    const store = 'delete-limit-run';
    await index.writeChunks(store, records('doc_big', 3 * LIMIT + 1, 'run-old'));
    await index.writeChunks(store, records('doc_big', 2, 'run-new'));
    await index.deleteChunks(store, { documentId: 'doc_big', exceptRun: 'run-new' });
    expect((await left(store)).map((hit) => hit.chunk.chunkText).sort()).toEqual(['Chunk 0 about photosynthesis.', 'Chunk 1 about photosynthesis.']);
  });
});
