import { describe, expect, it } from '@jest/globals';
import type { Embedder, EmbeddingKind } from '../../src/domain/ports/embedder.js';
import { RecentVectors } from '../../src/providers/recent-vectors.js';

/** An embedder whose vector of a text is its length and kind, recording each call. */
function countingEmbedder() {
  const calls: { texts: string[]; kind: EmbeddingKind; urgent?: boolean }[] = [];
  const embedder: Embedder = {
    embed: (texts, kind, options) => {
      calls.push({ texts, kind, urgent: options?.urgent });
      return Promise.resolve(texts.map((text) => [text.length, kind === 'query' ? 1 : 0]));
    },
  };
  return { embedder, calls };
}

describe('recent vectors', () => {
  it('asks the endpoint once for a question asked again', async () => {
    const { embedder, calls } = countingEmbedder();
    const recent = new RecentVectors(embedder);
    expect(await recent.embed(['What is osmosis?'], 'query')).toEqual([[16, 1]]);
    expect(await recent.embed(['What is osmosis?'], 'query')).toEqual([[16, 1]]);
    expect(calls).toHaveLength(1);
  });

  it('asks only for the texts it does not know, and answers in the order asked', async () => {
    const { embedder, calls } = countingEmbedder();
    const recent = new RecentVectors(embedder);
    await recent.embed(['bb'], 'passage', { urgent: true });
    expect(await recent.embed(['a', 'bb', 'cccc'], 'passage', { urgent: true })).toEqual([[1, 0], [2, 0], [4, 0]]);
    expect(calls.map((c) => c.texts)).toEqual([['bb'], ['a', 'cccc']]);
    expect(calls[1]).toMatchObject({ kind: 'passage', urgent: true });
  });

  it('keeps a text asked as a question apart from the same text as a passage', async () => {
    const { embedder, calls } = countingEmbedder();
    const recent = new RecentVectors(embedder);
    await recent.embed(['tides'], 'query');
    expect(await recent.embed(['tides'], 'passage', { urgent: true })).toEqual([[5, 0]]);
    expect(calls).toHaveLength(2);
  });

  it('passes ingestion batches and very long texts through without keeping them', async () => {
    const { embedder, calls } = countingEmbedder();
    const recent = new RecentVectors(embedder);
    await recent.embed(['page one'], 'passage');
    await recent.embed(['page one'], 'passage');
    const long = 'x'.repeat(2_001);
    await recent.embed([long], 'query');
    await recent.embed([long], 'query');
    expect(calls).toHaveLength(4);
  });

  it('remembers nothing of a call that failed', async () => {
    let fail = true;
    const calls: string[][] = [];
    const recent = new RecentVectors({
      embed: (texts) => {
        calls.push(texts);
        return fail ? Promise.reject(new Error('endpoint down')) : Promise.resolve(texts.map(() => [1]));
      },
    });
    await expect(recent.embed(['q'], 'query')).rejects.toThrow('endpoint down');
    fail = false;
    expect(await recent.embed(['q'], 'query')).toEqual([[1]]);
    expect(calls).toEqual([['q'], ['q']]);
  });
});
