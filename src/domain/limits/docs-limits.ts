import type { EntityManager } from '@mikro-orm/postgresql';
import { admitInWindow, purgeWindow } from '../../db/sliding-window.js';
import { ServiceError } from '../errors.js';
import { addressBlock } from './address-block.js';
import { secondsUntil, type WindowHeaders } from './window.js';

// The documentation site's limits (specification, "Documentation-site limits"): 100 requests an
// hour per client address without a key, 1,000 an hour per key with a valid one. The hour is an
// exact sliding window, like the API's minute, kept in PostgreSQL so that it holds across server
// processes. A key's docs requests are only counted here: they never touch its API limits or usage.

export const DOCS_WINDOW_MS = 3_600_000;
export const DOCS_LIMITS = { address: 100, key: 1000 } as const;

export type DocsClient = { kind: 'address'; address: string } | { kind: 'key'; keyId: string };

export type DocsAdmission = { admitted: true; window: WindowHeaders } | { admitted: false; window: WindowHeaders; error: ServiceError };

/** Rows older than the window are never read; each process deletes them at most this often. */
const PURGE_EVERY_MS = 10 * 60_000;
let lastPurge = 0;

export async function admitDocs(em: EntityManager, client: DocsClient, now: Date): Promise<DocsAdmission> {
  const limit = DOCS_LIMITS[client.kind];
  const id = client.kind === 'key' ? `key:${client.keyId}` : `address:${addressBlock(client.address)}`;
  const since = new Date(now.getTime() - DOCS_WINDOW_MS);
  if (now.getTime() - lastPurge >= PURGE_EVERY_MS) {
    lastPurge = now.getTime();
    await purgeWindow(em, 'docs_request', since);
  }
  const result = await admitInWindow(em, 'docs_request', id, limit, since, now);
  // the oldest request leaves the window first: then one more is admitted
  const frees = new Date((result.oldest ?? now).getTime() + DOCS_WINDOW_MS);
  const window: WindowHeaders = { limit, remaining: Math.max(0, limit - result.count), reset: Math.ceil(frees.getTime() / 1000) };
  if (result.admitted) return { admitted: true, window };
  const who = client.kind === 'key' ? 'with an API key' : 'from one address without an API key';
  const retryAfter = secondsUntil(frees, now);
  return {
    admitted: false,
    window,
    error: new ServiceError(
      'rate_limit_exceeded',
      `Rate limit exceeded: the documentation site allows ${limit} requests per hour ${who}. Retry after ${retryAfter} seconds.`,
      { retryAfterSeconds: retryAfter },
    ),
  };
}
