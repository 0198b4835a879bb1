import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { InvalidRequestError } from '../errors.js';

// Idempotency-Key for creating operations, as Stripe has it: the first request with a key is
// carried out and its answer kept for 24 hours; the same key with the same request gets that
// answer again (nothing done twice); the same key with another request is refused; a request
// that fails keeps nothing, so retrying it tries again. Any operation can use it: wrap what it
// writes in `idempotent` and give it a fingerprint of the request.

/** How long an answer is kept for its key. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotentRequest {
  accountId: string;
  /** the Idempotency-Key header; without one the operation simply runs */
  key: string | undefined;
  /** what the request was, see requestFingerprint */
  fingerprint: string;
  now: Date;
}

/** A success answer of the operation, as it is kept and replayed. */
export interface KeptAnswer {
  status: number;
  body: unknown;
}

/**
 * A stable digest of a request: its method, path and body (uploaded files by their bytes, name
 * and type), so that a retry of the same request matches and any difference does not.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  const hash = createHash('sha256').update(`${method.toUpperCase()} ${path}\n`);
  hash.update(JSON.stringify(body ?? null, (_key, value: unknown) => (value instanceof Uint8Array ? `sha256:${createHash('sha256').update(value).digest('hex')}` : value)));
  return hash.digest('hex');
}

/**
 * Runs `perform` in a transaction, keyed by the request's Idempotency-Key: the key's row is
 * claimed first (a concurrent request with the same key waits on it until the first commits or
 * rolls back), and the answer is written in the same transaction as the operation's changes, so
 * an answer is kept exactly when the changes happened. `replayed` is true for a kept answer.
 */
export async function idempotent<T extends KeptAnswer>(
  em: EntityManager,
  request: IdempotentRequest,
  perform: (tx: EntityManager) => Promise<T>,
): Promise<T & { replayed: boolean }> {
  if (request.key === undefined) return { ...(await em.transactional(perform)), replayed: false };
  const key = request.key;
  const expired = new Date(request.now.getTime() - IDEMPOTENCY_TTL_MS);
  return em.transactional(async (tx) => {
    // the account's answers that no retry can ask for any more go first (the key's own among them)
    await tx.execute('delete from idempotency_key where account_id = ? and created_at <= ?', [request.accountId, expired]);
    const claimed = await tx.execute<{ key: string }[]>(
      `insert into idempotency_key (account_id, key, fingerprint, response_status, response_body, created_at) values (?, ?, ?, 0, 'null', ?)
       on conflict do nothing returning key`,
      [request.accountId, key, request.fingerprint, request.now],
    );
    if (claimed.length === 0) {
      const [kept] = await tx.execute<{ fingerprint: string; response_status: number; response_body: unknown }[]>(
        'select fingerprint, response_status, response_body from idempotency_key where account_id = ? and key = ? for update',
        [request.accountId, key],
      );
      if (kept) {
        if (kept.fingerprint !== request.fingerprint) {
          throw new InvalidRequestError(
            `Idempotency-Key '${key}' was already used with a different request in the last 24 hours; use a new key for a new request.`,
          );
        }
        return { status: kept.response_status, body: kept.response_body, replayed: true } as T & { replayed: boolean };
      }
    }
    const answer = await perform(tx);
    await tx.execute('update idempotency_key set response_status = ?, response_body = ? where account_id = ? and key = ?', [
      answer.status,
      JSON.stringify(answer.body ?? null),
      request.accountId,
      key,
    ]);
    return { ...answer, replayed: false };
  });
}
