import { startOfNextUtcDay, startOfNextUtcMonth } from './periods.js';
import type { LimitKind } from '../errors.js';

export const WINDOW_MS = 60_000;

export interface Limits {
  perMinute: number;
  perDay: number;
  perMonth: number;
}

/** Counts of admitted requests before the current one. */
export interface Counts {
  /** Requests in the last 60 s (up to the per-minute limit: more decide nothing else). */
  inWindow: number;
  /** When the oldest of them was made (null when none): it leaves the window first (X-RateLimit-Reset). */
  oldestInWindow: Date | null;
  /**
   * When the oldest of the newest requests up to the per-minute limit was made: a place frees when
   * it leaves, which sets Retry-After. The oldest request itself unless the window holds more than
   * the limit (after a downgrade).
   */
  limitThNewest: Date | null;
  today: number;
  thisMonth: number;
}

export type Decision =
  | { admitted: true }
  | { admitted: false; kind: LimitKind; retryAfterSeconds: number };

/**
 * Decides whether one more request fits. The month is checked first because it is the longest
 * wait, so the caller learns the limit that really stops them.
 */
export function decide(limits: Limits, counts: Counts, now: Date): Decision {
  if (counts.thisMonth >= limits.perMonth) {
    return { admitted: false, kind: 'month', retryAfterSeconds: secondsUntil(startOfNextUtcMonth(now), now) };
  }
  if (counts.today >= limits.perDay) {
    return { admitted: false, kind: 'day', retryAfterSeconds: secondsUntil(startOfNextUtcDay(now), now) };
  }
  if (counts.inWindow >= limits.perMinute) {
    const frees = windowExit(counts.limitThNewest ?? now);
    return { admitted: false, kind: 'minute', retryAfterSeconds: secondsUntil(frees, now) };
  }
  return { admitted: true };
}

/** When a request made at `t` leaves the sliding window. */
export function windowExit(t: Date): Date {
  return new Date(t.getTime() + WINDOW_MS);
}

/** Whole seconds to wait, at least 1 so that a client never retries immediately into a 429. */
export function secondsUntil(then: Date, now: Date): number {
  return Math.max(1, Math.ceil((then.getTime() - now.getTime()) / 1000));
}

export interface WindowHeaders {
  limit: number;
  remaining: number;
  /** Unix seconds when the oldest request in the window leaves it. */
  reset: number;
}

/** The X-RateLimit-* values for the per-minute window. */
export function windowHeaders(perMinute: number, inWindow: number, oldest: Date | null, now: Date): WindowHeaders {
  return {
    limit: perMinute,
    remaining: Math.max(0, perMinute - inWindow),
    // an empty window frees nothing later: it is reset already
    reset: Math.ceil((oldest ? windowExit(oldest) : now).getTime() / 1000),
  };
}
