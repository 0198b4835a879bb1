import { describe, expect, test } from '@jest/globals';
import { checkKeyRestrictions, ipAllowed, normaliseAllowEntry } from '../../src/domain/keys/restrictions.js';
import { ForbiddenError } from '../../src/domain/errors.js';
import type { Principal } from '../../src/domain/keys/principal.js';

describe('IP allow-lists', () => {
  test.each([
    ['203.0.113.7', '203.0.113.7/32'],
    [' 203.0.113.0/24 ', '203.0.113.0/24'],
    ['2001:db8::1', '2001:db8::1/128'],
    ['::ffff:198.51.100.4', '198.51.100.4/32'],
  ])('%j is stored as %j', (entry, stored) => {
    expect(normaliseAllowEntry(entry)).toBe(stored);
  });

  test.each(['example.com', '300.1.1.1', '10.0.0.0/33', ''])('%j is refused', (entry) => {
    expect(() => normaliseAllowEntry(entry)).toThrow(/not a valid IP address/);
    // errors[].path of the 400: a JSON Pointer to the request's field
    expect(() => normaliseAllowEntry(entry)).toThrow(expect.objectContaining({ data: { problems: [{ path: '/allowed_ips', message: expect.any(String) }] } }));
  });

  test('matching covers ranges, IPv6 and IPv4 clients seen through IPv6 sockets', () => {
    const list = ['203.0.113.0/24', '2001:db8::/32'];
    expect(ipAllowed('203.0.113.200', list)).toBe(true);
    expect(ipAllowed('::ffff:203.0.113.9', list)).toBe(true);
    expect(ipAllowed('2001:db8:1::5', list)).toBe(true);
    expect(ipAllowed('203.0.114.1', list)).toBe(false);
    expect(ipAllowed('2001:db9::1', list)).toBe(false);
    expect(ipAllowed('not-an-ip', list)).toBe(false);
  });

  test('read-only keys may read but not write; allow-lists refuse other callers', () => {
    const principal = { readOnly: true, allowedIps: ['127.0.0.1/32'] } as Principal;
    expect(() => checkKeyRestrictions(principal, 'GET', '127.0.0.1')).not.toThrow();
    expect(() => checkKeyRestrictions(principal, 'POST', '127.0.0.1')).toThrow(ForbiddenError);
    expect(() => checkKeyRestrictions({ ...principal, readOnly: false }, 'POST', '127.0.0.2')).toThrow(/127\.0\.0\.2/);
  });

  test('the refusal echoes only a parsed address, never the raw header value', () => {
    const principal = { readOnly: false, allowedIps: ['127.0.0.1/32'] } as Principal;
    expect(() => checkKeyRestrictions(principal, 'GET', '::ffff:203.0.113.9')).toThrow('requests from 203.0.113.9 are not allowed');
    expect(() => checkKeyRestrictions(principal, 'GET', '1.2.3.4, <script>x</script>')).toThrow(
      'This API key does not have permission to access this resource: requests from an unreadable client address are not allowed for this key.',
    );
  });
});
