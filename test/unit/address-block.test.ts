import { expect, test } from '@jest/globals';
import { addressBlock } from '../../src/domain/limits/address-block.js';

test('per-address limits count an IPv4 client by its address and an IPv6 one by its /64', () => {
  expect(addressBlock('203.0.113.7')).toBe('203.0.113.7');
  expect(addressBlock('::ffff:203.0.113.7')).toBe('203.0.113.7');
  expect(addressBlock('2001:db8:7:1::a')).toBe('2001:db8:7:1::/64');
  expect(addressBlock('2001:0DB8:0007:0001:ffff:1:2:3')).toBe('2001:db8:7:1::/64');
  expect(addressBlock('::1')).toBe('0:0:0:0::/64');
  // what no address parser reads (a proxy's header, say) is counted as it is
  expect(addressBlock('unknown')).toBe('unknown');
});
