import ipaddr from 'ipaddr.js';
import { ForbiddenError, InvalidRequestError } from '../errors.js';
import type { Principal } from './principal.js';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a read-only key may make a request with this method. */
export function isReadMethod(method: string): boolean {
  return READ_METHODS.has(method.toUpperCase());
}

/** The client's address as the allow-lists are matched against it (an IPv4 client seen through IPv6 unwrapped), or null when unreadable. */
export function parsedAddress(ip: string): string | null {
  return ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : null;
}

/** Enforces the key's own options: read-only keys may only read; allow-listed keys only from their addresses. */
export function checkKeyRestrictions(principal: Pick<Principal, 'readOnly' | 'allowedIps'>, method: string, clientIp: string): void {
  if (principal.readOnly && !isReadMethod(method)) {
    throw new ForbiddenError('This API key does not have permission to access this resource: the key is read-only.');
  }
  if (principal.allowedIps.length > 0 && !ipAllowed(clientIp, principal.allowedIps)) {
    // only a parsed address is echoed: behind a proxy the value comes from a client-supplied header
    const shown = parsedAddress(clientIp) ?? 'an unreadable client address';
    throw new ForbiddenError(`This API key does not have permission to access this resource: requests from ${shown} are not allowed for this key.`);
  }
}

/** True when `ip` lies in one of the allow-list's CIDR ranges (as stored by normaliseAllowEntry). */
export function ipAllowed(ip: string, allowList: string[]): boolean {
  if (!ipaddr.isValid(ip)) return false;
  // process() unwraps an IPv4 client seen through an IPv6 socket (::ffff:a.b.c.d)
  const address = ipaddr.process(ip);
  return allowList.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === address.kind() && address.match(network, bits);
  });
}

/** Canonical CIDR for an address or range given by an operator; throws on anything else. */
export function normaliseAllowEntry(entry: string): string {
  const text = entry.trim();
  if (text.includes('/')) {
    if (!ipaddr.isValidCIDR(text)) throw notAnAddress(entry);
    const [network, bits] = ipaddr.parseCIDR(text);
    return `${network.toString()}/${bits}`;
  }
  if (!ipaddr.isValid(text)) throw notAnAddress(entry);
  const address = ipaddr.process(text);
  return `${address.toString()}/${address.kind() === 'ipv4' ? 32 : 128}`;
}

function notAnAddress(entry: string): InvalidRequestError {
  const message = `'${entry}' is not a valid IP address or CIDR range`;
  return new InvalidRequestError(`Field 'allowed_ips': ${message} (for example 203.0.113.7 or 203.0.113.0/24).`, [{ path: '/allowed_ips', message }]);
}
