import { describe, expect, test } from '@jest/globals';
import type { MetadataFilters } from '../../src/domain/ports/search-index.js';
import { testServices } from './support/server.js';

// The index adapter's promise to the domain: no failure of Weaviate reaches callers raw.
const services = testServices();

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
      message: 'The search index failed to answer the query. The request was counted; please retry.',
    });
    await expect(failure.catch((error: Error) => String(error.cause))).resolves.toMatch(/colour/);
  });
});
