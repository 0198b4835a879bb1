import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { systemClock, type Clock } from '../../../src/clock.js';
import { connect, type Orm } from '../../../src/db/orm.js';
import { createDocsApp } from '../../../src/docs/app.js';
import { loadDocsContent } from '../../../src/docs/resources.js';
import { createHttpServer, listen } from '../../../src/http/server.js';
import { closeServer, onCleanup } from './cleanup.js';
import { HASH_SECRET, databaseUrl, testConfig } from './server.js';

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
    server = await listen(createHttpServer(app, log, { bodyIdleMs: testConfig().BODY_IDLE_TIMEOUT_MS }), 0, '127.0.0.1');
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, orm, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A client address no other test uses: in a /64 of its own (per-address limits count an IPv6
 * client by its /64), random in the documentation prefix 2001:db8::/32 (32 random bits of the
 * /64, 16 of the host).
 */
export function newAddress(): string {
  const [a, b, host] = Array.from(randomBytes(6).toString('hex').match(/.{4}/g)!, (group) => group.replace(/^0+(?=.)/, ''));
  return `2001:db8:${a}:${b}::${host}`;
}
