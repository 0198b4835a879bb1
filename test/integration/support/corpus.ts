import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Orm } from '../../../src/db/orm.js';
import { ingestDocument } from '../../../src/domain/ingestion/ingest.js';
import type { Services } from '../../../src/services.js';

export const MANIFEST = resolve('samples/curriculum/manifest.json');

export interface ManifestItem {
  file: string;
  name: string;
  metadata: Record<string, string>;
}

export async function manifest(): Promise<ManifestItem[]> {
  const items = JSON.parse(await readFile(MANIFEST, 'utf8')) as ManifestItem[];
  return items.map((item) => ({ ...item, file: resolve(dirname(MANIFEST), item.file) }));
}

/** Indexes the whole sample curriculum into a store, as `npm run ingest -- --manifest` does. */
export async function ingestSamples(orm: Orm, services: Services, store: string): Promise<void> {
  for (const item of await manifest()) {
    await ingestDocument(orm.em.fork(), services.index, services.embedder, {
      store,
      name: item.name,
      bytes: new Uint8Array(await readFile(item.file)),
      metadata: item.metadata,
      work: services.work,
    });
  }
}
