import { ConnectionException } from '@mikro-orm/core';

// Codes that mean "the database cannot be reached now" (network errors and PostgreSQL's
// connection-exception and operator-intervention classes), as opposed to a bad query.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH',
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof ConnectionException) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (typeof message === 'string' && /Connection terminated|connection timeout|the database system is (starting up|shutting down)/i.test(message)) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
