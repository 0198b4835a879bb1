import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Embedder } from '../src/domain/ports/embedder.js';

// The generated corpora's passage vectors, computed once and kept under the cache folder: the
// local embeddings server takes tens of milliseconds a chunk on one thread, so a corpus costs
// minutes to embed, and its chunks never change (bench/corpus.ts is deterministic).

const BATCH = 64;

/** One vector per text, from the cache when these texts were embedded before with this model. */
export async function cachedPassageVectors(embedder: Embedder, model: string, texts: string[], cacheDir: string, log: (m: string) => void): Promise<number[][]> {
  const key = createHash('sha256').update(model).update('\u0000').update(texts.join('\u0000')).digest('hex').slice(0, 32);
  const file = join(cacheDir, 'bench-vectors', `${texts.length}-${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as number[][];
  const start = performance.now();
  const vectors: number[][] = [];
  for (let from = 0; from < texts.length; from += BATCH) {
    vectors.push(...(await embedder.embed(texts.slice(from, from + BATCH), 'passage')));
    log(`  ${vectors.length} of ${texts.length} chunks embedded`);
  }
  log(`${texts.length} chunks embedded in ${((performance.now() - start) / 1000).toFixed(0)} s; cached in ${file}`);
  mkdirSync(join(cacheDir, 'bench-vectors'), { recursive: true });
  // written whole, then renamed: an interrupted run leaves no half file behind
  writeFileSync(`${file}.tmp`, JSON.stringify(vectors));
  renameSync(`${file}.tmp`, file);
  return vectors;
}
