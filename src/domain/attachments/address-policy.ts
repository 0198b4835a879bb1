import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InvalidAttachmentError } from '../errors.js';

// Decides which attachment URLs and addresses the service may reach: public HTTPS hosts only, so a
// caller cannot make us fetch from our own machine, our network or a cloud metadata service.

/** The caller's URL as error messages name it: cut, so that a huge URL cannot bloat the error body. */
export function shownUrl(rawUrl: string): string {
  return rawUrl.slice(0, 200);
}

export class UnsafeUrlError extends InvalidAttachmentError {
  /** `reason`: what is wrong, when the general policy (said without one) does not say it: control characters, credentials, port 0 */
  constructor(
    rawUrl: string,
    readonly reason?: string,
  ) {
    super(`Attachment URL '${shownUrl(rawUrl)}' is unsafe or invalid: ${reason ?? 'only HTTPS URLs to public domains are allowed'}.`);
  }
}

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\x00-\x1F\x7F-\x9F]/;

// Names that reach this machine or a cloud metadata service; refused before any lookup, since a
// resolver may answer them from local configuration rather than DNS.
const BLOCKED_HOSTNAMES = new Set(['localhost', 'metadata.google.internal', 'metadata', 'instance-data']);

// Currently allocated global unicast space (RFC 4291): IPv6 outside it, such as the deprecated
// IPv4-compatible ::a.b.c.d, is "unicast" to ipaddr.js but never a public server.
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

// A public address that a cloud platform answers from inside its own network: Azure's WireServer
// (agent and metadata traffic). Others' metadata addresses are link-local, private, shared or
// reserved, refused as such (169.254.169.254, fd00:ec2::254, Alibaba's 100.100.100.200, Oracle's 192.0.0.192).
const CLOUD_PLATFORM_ADDRESSES = new Set(['168.63.129.16']);

/** True only for a globally routable unicast address, given as a plain IPv4 or IPv6 literal. */
export function isPublicAddress(ip: string): boolean {
  // Strict literals only: ipaddr.js also accepts forms like '0x7f.1', and a zone id ('%eth0')
  // would pin the connection to a local interface.
  if (isIP(ip) === 0 || ip.includes('%')) return false;
  // process() unwraps IPv4-mapped IPv6 (::ffff:a.b.c.d) so the IPv4 ranges apply to it
  const address = ipaddr.process(ip);
  if (address.range() !== 'unicast' || CLOUD_PLATFORM_ADDRESSES.has(address.toString())) return false;
  return address.kind() === 'ipv4' || address.match(GLOBAL_UNICAST_V6);
}

function isBlockedHostname(hostname: string): boolean {
  const name = hostname.replace(/\.+$/, '');
  return BLOCKED_HOSTNAMES.has(name) || name.endsWith('.localhost');
}

/** The address a URL names directly ('[::1]' without brackets), or null when it names a host. */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

/**
 * Parses an attachment URL and refuses what is unsafe without resolving it: non-HTTPS schemes,
 * credentials, blocked names and non-public IP literals. Host names are checked after resolution.
 * WHATWG parsing has already turned '127.1', '2130706433', '0x7f000001' etc. into dotted IPv4.
 * Control characters are refused first: parsing would silently drop a tab or a line break (or
 * escape others), so the URL used would not be the one given.
 */
export function checkUrl(raw: string): URL {
  if (CONTROL.test(raw)) throw new UnsafeUrlError(raw, 'it contains control characters (such as a tab or a line break); remove them');
  const url = URL.parse(raw);
  if (url === null || url.protocol !== 'https:' || url.hostname === '' || isBlockedHostname(url.hostname)) throw new UnsafeUrlError(raw);
  if (url.username !== '' || url.password !== '') throw new UnsafeUrlError(raw, 'only HTTPS URLs to public domains are allowed, without a user name or password: remove them');
  // nothing listens on port 0: every connection to it fails
  if (url.port === '0') throw new UnsafeUrlError(raw, 'only HTTPS URLs to public domains are allowed, on a port a server listens on (not 0)');
  const literal = ipLiteralOf(url);
  if (literal !== null && !isPublicAddress(literal)) throw new UnsafeUrlError(raw);
  return url;
}
