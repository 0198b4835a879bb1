import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { systemClock, type Clock } from '../../../src/clock.js';
import { connect, type Orm } from '../../../src/db/orm.js';
import { createDocsApp } from '../../../src/docs/app.js';
import { loadDocsContent } from '../../../src/docs/resources.js';
import { createHttpServer, listen } from '../../../src/http/server.js';
import { closeServer, onCleanup } from './cleanup.js';
import { HASH_SECRET, databaseUrl } from './server.js';

export interface DocsServer {
  url: string;
  orm: Orm;
  close(): Promise<void>;
}

/** The public addresses the guides' placeholders are filled with in tests. */
export const TEST_URLS = { apiBaseUrl: 'https://api.example.test', docsBaseUrl: 'https://docs.example.test' };

/**
 * The real documentation site on a real port of 127.0.0.1, with the guides of docs/ and the reference
 * built into dist/docs/ (`npm run build`). It trusts X-Forwarded-For (one proxy), so that each test
 * can be its own client address; stopped after the test file at the latest.
 */
export async function startDocsServer(options: { clock?: Clock } = {}): Promise<DocsServer> {
  let orm: Orm | undefined;
  let server: Server | undefined;
  const close = onCleanup(async () => {
    if (server) await closeServer(server);
    await orm?.close();
  });
  try {
    orm = await connect(databaseUrl(), 30);
    const log = pino({ level: 'silent' });
    const app = createDocsApp({
      content: loadDocsContent(process.cwd(), TEST_URLS),
      orm,
      log,
      clock: options.clock ?? systemClock,
      auth: { hashSecret: HASH_SECRET, environment: 'live', failuresPerMinute: 60 },
      trustProxy: true,
    });
    server = await listen(createHttpServer(app, log), 0, '127.0.0.1');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, orm, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A client address of the documentation range 198.18.0.0/15 no other test uses. */
export function newAddress(): string {
  const n = Math.floor(Math.random() * 2 ** 17);
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
}
