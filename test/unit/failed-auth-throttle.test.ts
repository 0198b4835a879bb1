import { describe, expect, test } from '@jest/globals';
import { FailedAuthThrottle } from '../../src/domain/keys/failed-auth-throttle.js';

describe('FailedAuthThrottle', () => {
  test('refuses an address past its failures until its minute is over, with Retry-After', () => {
    const throttle = new FailedAuthThrottle(2);
    const t0 = Date.UTC(2026, 10, 23, 12, 0, 0);
    throttle.fail('203.0.113.7', t0);
    expect(() => throttle.check('203.0.113.7', 'k', t0 + 1000)).not.toThrow();
    throttle.fail('203.0.113.7', t0 + 1000);
    expect(() => throttle.check('203.0.113.7', 'k', t0 + 20_000)).toThrow(expect.objectContaining({ code: 'rate_limit_exceeded', data: { retryAfterSeconds: 40 } }));
    expect(throttle.headers('203.0.113.7', t0 + 20_000)).toEqual({ limit: 2, remaining: 0, reset: (t0 + 60_000) / 1000 });
    // other addresses are not affected; the window ends after a minute
    expect(() => throttle.check('203.0.113.8', 'k', t0 + 20_000)).not.toThrow();
    expect(() => throttle.check('203.0.113.7', 'k', t0 + 60_000)).not.toThrow();
  });

  test('an IPv6 client is counted by its /64, in which it may take a new address for every attempt; IPv4 seen through IPv6 by itself', () => {
    const throttle = new FailedAuthThrottle(2);
    throttle.fail('2001:db8:7:1::a', 0);
    throttle.fail('2001:db8:7:1:ffff:1:2:3', 1);
    expect(() => throttle.check('2001:db8:7:1::b', 'k', 2)).toThrow(/Too many failed authentication attempts/);
    expect(() => throttle.check('2001:db8:7:2::a', 'k', 2)).not.toThrow();
    throttle.fail('::ffff:203.0.113.9', 0);
    throttle.fail('203.0.113.9', 1);
    expect(() => throttle.check('203.0.113.9', 'k', 2)).toThrow(/Too many failed authentication attempts/);
    expect(() => throttle.check('203.0.113.10', 'k', 2)).not.toThrow();
  });

  test('a key that authenticated before passes a throttled address', () => {
    const throttle = new FailedAuthThrottle(1);
    throttle.succeeded('good');
    throttle.fail('198.51.100.1', 0);
    expect(() => throttle.check('198.51.100.1', 'good', 1)).not.toThrow();
    expect(() => throttle.check('198.51.100.1', 'guess', 1)).toThrow(/Too many failed authentication attempts/);
    // held() says the same without a refusal (the documentation site serves the address's allowance)
    expect(throttle.held('198.51.100.1', 'good', 1)).toBe(false);
    expect(throttle.held('198.51.100.1', 'guess', 1)).toBe(true);
    expect(throttle.held('198.51.100.2', 'guess', 1)).toBe(false);
  });

  test('memory stays bounded: the least recent addresses and keys are forgotten', () => {
    const throttle = new FailedAuthThrottle(1, 3);
    for (const address of ['a', 'b', 'c', 'd']) throttle.fail(address, 0);
    expect(() => throttle.check('a', 'k', 1)).not.toThrow();
    expect(() => throttle.check('d', 'k', 1)).toThrow();
    for (const key of ['k1', 'k2', 'k3', 'k4']) throttle.succeeded(key);
    expect(() => throttle.check('d', 'k1', 1)).toThrow();
    expect(() => throttle.check('d', 'k4', 1)).not.toThrow();
  });
});
