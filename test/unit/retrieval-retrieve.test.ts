import { describe, expect, test } from '@jest/globals';
import { EMBEDDED_QUESTION_CHARS, retrieve } from '../../src/domain/retrieval/retrieve.js';
import type { Embedder } from '../../src/domain/ports/embedder.js';
import type { SearchIndex } from '../../src/domain/ports/search-index.js';

// What retrieval sends to the embeddings endpoint and to the index, with both stood in for.
function recording() {
  const embedded: string[] = [];
  const searched: { terms: string }[] = [];
  const embedder: Embedder = { embed: (texts) => (embedded.push(...texts), Promise.resolve(texts.map(() => [1, 0]))) };
  const index = { search: (_store: string, query: { terms: string }) => (searched.push(query), Promise.resolve([])) } as unknown as SearchIndex;
  return { embedded, searched, embedder, index };
}

describe('retrieve', () => {
  test('embeds a question as it is', async () => {
    const { embedded, embedder, index } = recording();
    const question = 'What do plants need for photosynthesis?';
    expect((await retrieve(index, embedder, { store: 'default', question, filters: {}, limit: 5 })).mode).toBe('hybrid');
    expect(embedded).toEqual([question]);
  });

  test("embeds only a long question's beginning, cut between grapheme clusters, while BM25 reads all of it", async () => {
    const { embedded, searched, embedder, index } = recording();
    // a Sinhala word whose clusters (ප්‍ර, භා, ...) span several code units, then a last word BM25 must still see
    const question = `${'ප්‍රභාසංශ්ලේෂණය '.repeat(120)}chlorophyll`;
    await retrieve(index, embedder, { store: 'default', question, filters: {}, limit: 5 });
    expect(embedded[0]!.length).toBeLessThanOrEqual(EMBEDDED_QUESTION_CHARS);
    expect(embedded[0]!.length).toBeGreaterThan(EMBEDDED_QUESTION_CHARS - 10);
    expect(question.startsWith(embedded[0]!)).toBe(true);
    // the cut leaves no virama or joiner dangling: the next character starts a cluster
    expect(question[embedded[0]!.length]).toMatch(/[\u0D85-\u0DC6 ]/u);
    expect(searched[0]!.terms).toContain('chlorophyll');
  });

  test('a first grapheme cluster longer than the limit (marks stacked on one letter) is cut, never sent empty', async () => {
    const { embedded, embedder, index } = recording();
    await retrieve(index, embedder, { store: 'default', question: `a${'\u0301'.repeat(800)} photosynthesis`, filters: {}, limit: 5 });
    expect(embedded[0]!.length).toBe(EMBEDDED_QUESTION_CHARS);
  });
});
