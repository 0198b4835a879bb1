import { ConnectionException } from '@mikro-orm/core';

// Codes that mean "the database cannot be reached now" (network errors and PostgreSQL's
// connection-exception and operator-intervention classes), as opposed to a bad query.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
]);

// PostgreSQL ended a transaction that met a concurrent one: a deadlock, or a serialisation failure
const CONFLICT_CODES = new Set(['40P01', '40001']);

/** Whether the error, or one it was caused by (a few levels down), passes `test`. */
function anyCause(error: unknown, test: (e: unknown) => boolean): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (test(e)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => anyCause(inner, test))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return anyCause(error, (e) => {
    if (e instanceof ConnectionException) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    return (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) || (typeof message === 'string' && /Connection terminated|connection timeout|the database system is (starting up|shutting down)/i.test(message));
  });
}

/** Whether the database ended the request's transaction because it met another one (nothing of it was kept). */
export function isTransactionConflict(error: unknown): boolean {
  return anyCause(error, (e) => CONFLICT_CODES.has(String((e as { code?: unknown }).code)));
}

const CONFLICT_ATTEMPTS = 3;

/**
 * Runs `work`, and again (up to three times in all) when the database ends it as a conflict with
 * another transaction: a deadlock victim kept nothing, and running it again is what PostgreSQL
 * asks of it. `work` must be one statement or its own transaction.
 */
export async function againOnConflict<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
    }
  }
}
