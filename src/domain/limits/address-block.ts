import ipaddr from 'ipaddr.js';

/**
 * Whom a per-address limit counts: an IPv4 client by its address (also seen through IPv6 as
 * ::ffff:a.b.c.d), an IPv6 client by its /64, the block a subscriber or a host is given and in
 * which it may take a new address for every request; anything unreadable as it is.
 */
export function addressBlock(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}
