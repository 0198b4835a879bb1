import { describe, expect, test } from '@jest/globals';
import { DEVICE_COOKIE_MAX_AGE_MS, deviceNonce, newDeviceToken } from '../../src/domain/sign-in/devices.js';

const SECRET = 'a secret of the service';
const owner = { id: '0b6f2c1e-4d55-4f0a-9a43-0a4f1c2b9e77', passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$first' };
const now = new Date('2026-11-29T10:00:00Z');
const later = (ms: number) => new Date(now.getTime() + ms);

describe('device tokens', () => {
  test("name their owner's browser, each with a nonce of its own, for 180 days", () => {
    const token = newDeviceToken(owner, SECRET, now);
    const nonce = deviceNonce(token, owner, SECRET, later(1_000));
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(deviceNonce(newDeviceToken(owner, SECRET, now), owner, SECRET, now)).not.toBe(nonce);
    expect(deviceNonce(token, owner, SECRET, later(DEVICE_COOKIE_MAX_AGE_MS - 1))).toBe(nonce);
    expect(deviceNonce(token, owner, SECRET, later(DEVICE_COOKIE_MAX_AGE_MS))).toBeNull();
  });

  test("are nobody else's, end with the password they were given under, and cannot be made without the secret", () => {
    const token = newDeviceToken(owner, SECRET, now);
    expect(deviceNonce(token, { ...owner, id: 'another person' }, SECRET, now)).toBeNull();
    expect(deviceNonce(token, { ...owner, passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$reset' }, SECRET, now)).toBeNull();
    expect(deviceNonce(token, owner, 'another secret', now)).toBeNull();
    const [id, issued, nonce, mac] = token.split('.') as [string, string, string, string];
    // a later issue time, a nonce of one's choosing, or a changed signature are all refused
    expect(deviceNonce([id, (now.getTime() + 5_000).toString(36), nonce, mac].join('.'), owner, SECRET, later(10_000))).toBeNull();
    expect(deviceNonce([id, issued, 'A'.repeat(22), mac].join('.'), owner, SECRET, now)).toBeNull();
    expect(deviceNonce([id, issued, nonce, `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`].join('.'), owner, SECRET, now)).toBeNull();
    // issued in the future (a clock set back) and malformed tokens
    expect(deviceNonce(token, owner, SECRET, later(-1_000))).toBeNull();
    for (const bad of [undefined, '', 'x', `${token}.extra`, token.replaceAll('.', '')]) expect(deviceNonce(bad, owner, SECRET, now)).toBeNull();
  });
});
