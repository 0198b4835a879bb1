/** The header that tells a replayed answer (Idempotency-Key) from a new one. */
export function replayHeaders(replayed: boolean): Record<string, string> | undefined {
  return replayed ? { 'Idempotent-Replayed': 'true' } : undefined;
}
