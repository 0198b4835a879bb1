import { describe, expect, test } from '@jest/globals';
import { checkUrl, isPublicAddress, UnsafeUrlError } from '../../src/domain/attachments/address-policy.js';

describe('public addresses', () => {
  test.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946', '2a00:1450:4001:82a::200e', '::ffff:93.184.216.34'])(
    '%s is public',
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );

  test.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['fd00:ec2::254', 'unique local (AWS metadata)'],
    ['168.63.129.16', "Azure's WireServer"],
    ['::ffff:168.63.129.16', "IPv4-mapped Azure's WireServer"],
    ['192.0.0.192', 'Oracle Cloud metadata'],
    ['fc00::1', 'unique local'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with a zone'],
    ['2606:2800:220:1::1%eth0', 'public IPv6 pinned to an interface'],
    ['ff02::1', 'IPv6 multicast'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'Teredo'],
    ['64:ff9b::7f00:1', 'NAT64'],
    ['2001:2::1', 'IPv6 benchmarking'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['::7f00:1', 'IPv4-compatible IPv6'],
    ['127.1', 'shorthand IPv4'],
    ['0x7f.1', 'hexadecimal IPv4'],
    ['example.org', 'a host name'],
    ['300.1.1.1', 'out of range'],
    ['', 'empty'],
  ])('%s (%s) is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});

describe('attachment URL check', () => {
  test.each([
    'http://example.org/a.pdf',
    'file:///etc/passwd',
    'ftp://example.org/a',
    'javascript:alert(1)',
    'not a url',
    'https://user:pass@example.org/',
    'https://user@example.org/',
    'https://example.org@127.0.0.1/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://metadata.google.internal./computeMetadata/v1/',
    'https://metadata/',
    'https://instance-data./latest/',
  ])('%s is refused by scheme, credentials or name', (raw) => {
    expect(() => checkUrl(raw)).toThrow(UnsafeUrlError);
  });

  // WHATWG parsing normalises every spelling of an address, so the literal check sees it
  test.each([
    ['https://127.1/', '127.0.0.1'],
    ['https://0/', '0.0.0.0'],
    ['https://2130706433/', '127.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://0x7f000001/', '127.0.0.1'],
    ['https://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('%s is refused as %s', (raw, hostname) => {
    expect(new URL(raw).hostname).toBe(hostname);
    expect(() => checkUrl(raw)).toThrow(UnsafeUrlError);
  });

  test.each([
    'https://10.1.2.3/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/',
    'https://[fd00:ec2::254]/',
  ])('the non-public literal %s is refused', (raw) => {
    expect(() => checkUrl(raw)).toThrow(UnsafeUrlError);
  });

  test.each([
    'https://93.184.216.34/x.pdf',
    'https://[2606:2800:220:1:248:1893:25c8:1946]/x.pdf',
    'https://example.org:8443/notes/a.pdf?v=2',
    'https://files.example.org./a.png',
  ])('%s passes the URL check', (raw) => {
    expect(checkUrl(raw).href).toBe(new URL(raw).href);
  });

  // parsing would drop a tab or line break (even inside the host name) and escape the others
  test.each(['https://example.org/a\tb.pdf', 'https://exam\nple.org/a.pdf', ' \u0000https://example.org/', 'https://example.org/a.pdf\u007f', 'https://example.org/\u009b'])(
    '%j is refused for its control characters',
    (raw) => {
      expect(() => checkUrl(raw)).toThrow(
        `Attachment URL '${raw}' is unsafe or invalid: it contains control characters (such as a tab or a line break); remove them.`,
      );
    },
  );

  test('a backslash before @ ends the host for https, so the address after it is only a path', () => {
    const url = checkUrl('https://example.org\\@127.0.0.1/');
    expect(url.hostname).toBe('example.org');
    expect(url.pathname).toBe('/@127.0.0.1/');
  });

  test('the message names the URL as given, cut to 200 characters', () => {
    const raw = `http://example.org/${'a'.repeat(300)}`;
    expect(() => checkUrl(raw)).toThrow(
      `Attachment URL '${raw.slice(0, 200)}' is unsafe or invalid: only HTTPS URLs to public domains are allowed.`,
    );
    expect(() => checkUrl('http://example.org/a.pdf')).toThrow(
      "Attachment URL 'http://example.org/a.pdf' is unsafe or invalid: only HTTPS URLs to public domains are allowed.",
    );
  });
});
