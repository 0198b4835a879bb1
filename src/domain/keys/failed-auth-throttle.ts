import { LimitExceededError } from '../errors.js';
import { addressBlock } from '../limits/address-block.js';
import type { WindowHeaders } from '../limits/window.js';

const WINDOW_MS = 60_000;

interface Window {
  start: number;
  failures: number;
}

/**
 * Failed authentications (unknown or revoked keys) per client address (an IPv6 client's /64:
 * addressBlock) in this process: past the
 * limit, an address's further attempts are refused before any database lookup until its minute
 * is over. A cheap brake on key guessing with no database write per failure; per process by
 * design (each instance brakes on its own, which is enough against guessing). Keys that
 * authenticated recently are let through even then, so the other users behind a shared address
 * (a school's NAT) keep working. Memory is bounded: past `maxEntries`, the oldest entry goes.
 */
export class FailedAuthThrottle {
  private readonly windows = new Map<string, Window>();
  /** Hashes of keys that authenticated in this process, most recent last. */
  private readonly knownGood = new Set<string>();

  constructor(
    private readonly perMinute: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** Whether the address is over its limit and the key not known good: the key is then not to be looked up. */
  held(address: string, keyHash: string, now: number): boolean {
    const window = this.current(addressBlock(address), now);
    return window !== undefined && window.failures >= this.perMinute && !this.knownGood.has(keyHash);
  }

  /** Refuses the address while it is held (429 with Retry-After). */
  check(address: string, keyHash: string, now: number): void {
    if (!this.held(address, keyHash, now)) return;
    const retryAfter = this.retryAfterSeconds(address, now);
    throw new LimitExceededError(
      'minute',
      retryAfter,
      `Too many failed authentication attempts from your address: at most ${this.perMinute} per minute. Check the API key and retry after ${retryAfter} seconds.`,
    );
  }

  fail(address: string, now: number): void {
    const block = addressBlock(address);
    const window = this.current(block, now) ?? { start: now, failures: 0 };
    window.failures++;
    // re-inserted, so the Map's order is least recently failed first
    this.windows.delete(block);
    this.windows.set(block, window);
    if (this.windows.size > this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
  }

  succeeded(keyHash: string): void {
    this.knownGood.delete(keyHash);
    this.knownGood.add(keyHash);
    if (this.knownGood.size > this.maxEntries) this.knownGood.delete(this.knownGood.values().next().value!);
  }

  /** Seconds until the address's window of failed attempts is over (at least 1). */
  retryAfterSeconds(address: string, now: number): number {
    const window = this.current(addressBlock(address), now);
    return Math.max(1, Math.ceil(((window?.start ?? now) + WINDOW_MS - now) / 1000));
  }

  /** The rate-limit headers of a refusal: the address's window of failed attempts. */
  headers(address: string, now: number): WindowHeaders {
    const window = this.current(addressBlock(address), now);
    return { limit: this.perMinute, remaining: 0, reset: Math.ceil(((window?.start ?? now) + WINDOW_MS) / 1000) };
  }

  /** The window of an address block (addressBlock), unless its minute is over. */
  private current(block: string, now: number): Window | undefined {
    const window = this.windows.get(block);
    if (window && now - window.start >= WINDOW_MS) {
      this.windows.delete(block);
      return undefined;
    }
    return window;
  }
}
