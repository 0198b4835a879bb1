import { describe, expect, test } from '@jest/globals';
import { displayPrefix, generateKey, hashKey, keyEnvironment } from '../../src/domain/keys/key-format.js';

describe('key format', () => {
  test('generated keys have the documented format and environment', () => {
    const live = generateKey('live');
    const test_ = generateKey('test');
    expect(live).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    expect(test_).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(keyEnvironment(live)).toBe('live');
    expect(keyEnvironment(test_)).toBe('test');
    expect(generateKey('live')).not.toBe(live);
  });

  test.each([
    ['', null],
    ['svc_', null],
    [`svc_${'a'.repeat(31)}`, null],
    [`svc_${'a'.repeat(32)}`, 'live'],
    [`sk_test_${'B9'.repeat(16)}`, 'test'],
    [`sk_live_${'a'.repeat(40)}`, null],
    [`SVC_${'a'.repeat(40)}`, null],
    [`svc_${'a'.repeat(31)}é`, null],
    [`svc_${'a'.repeat(31)} `, null],
    [`svc_${'a'.repeat(128)}`, 'live'],
    [`svc_${'a'.repeat(129)}`, null],
  ])('keyEnvironment(%j) is %j', (key, expected) => {
    expect(keyEnvironment(key)).toBe(expected);
  });

  test('the display prefix reveals only the prefix and six characters', () => {
    expect(displayPrefix('svc_AbCdEf123456789012345678901234567890')).toBe('svc_AbCdEf');
    expect(displayPrefix('sk_test_XyZ987654321098765432109876543210')).toBe('sk_test_XyZ987');
  });

  test('the stored hash depends on the server secret and never equals the key', () => {
    const key = generateKey('live');
    expect(hashKey(key, 's1'.repeat(16))).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key, 's1'.repeat(16))).toBe(hashKey(key, 's1'.repeat(16)));
    expect(hashKey(key, 's2'.repeat(16))).not.toBe(hashKey(key, 's1'.repeat(16)));
    expect(hashKey(key, 's1'.repeat(16))).not.toContain(key.slice(4, 12));
  });
});
