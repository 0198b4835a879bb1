import { describe, expect, jest, test } from '@jest/globals';
import { checkUrl, isPublicAddress, UnsafeUrlError } from '../../src/domain/attachments/address-policy.js';
import {
  AttachmentFetchError,
  AttachmentTooLargeError,
  resolveAndCheck,
  safeFetch,
  type Resolver,
} from '../../src/domain/attachments/safe-fetch.js';

// No test here can open a connection to anything but loopback: the check-stage tests never
// connect, and the safeFetch tests only ever resolve to or name 127.0.0.0/8 and ::1.

const ANSWERS = new Map<string, string[]>([
  ['example.org', ['93.184.216.34']],
  ['public.example', ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']],
  ['mixed.example', ['93.184.216.34', '10.0.0.5']],
  ['private.example', ['192.168.0.10']],
  ['mapped.example', ['::ffff:169.254.169.254']],
  ['empty.example', []],
  ['name.example', ['files.test']],
]);

function fakeResolver(): jest.Mock<Resolver> {
  return jest.fn<Resolver>((hostname) => {
    const answer = ANSWERS.get(hostname);
    return answer ? Promise.resolve(answer) : Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
  });
}

/** Step a of a download: the URL check, then the one lookup and the address check. */
async function check(raw: string, resolver = fakeResolver()): Promise<string> {
  return resolveAndCheck(checkUrl(raw), resolver, isPublicAddress);
}

describe('the check stage', () => {
  test.each([
    'http://example.org/a.pdf',
    'file:///etc/passwd',
    'ftp://example.org/a',
    'https://localhost/',
    'https://127.0.0.1/',
    'https://127.1/',
    'https://0/',
    'https://0.0.0.0/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f000001/',
    'https://10.1.2.3/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/',
    'https://[::]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[fd00:ec2::254]/',
    'https://[fc00::1]/',
    'https://[fe80::1]/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://mixed.example/a.pdf',
    'https://private.example/a.pdf',
    'https://mapped.example/a.pdf',
    'https://empty.example/a.pdf',
    'https://name.example/a.pdf',
    'https://user:pass@example.org/',
    'https://example.org@127.0.0.1/',
  ])('%s is refused', async (raw) => {
    await expect(check(raw)).rejects.toThrow(UnsafeUrlError);
  });

  test('a public IP literal passes without a lookup', async () => {
    const resolver = fakeResolver();
    await expect(check('https://93.184.216.34/x.pdf', resolver)).resolves.toBe('93.184.216.34');
    expect(resolver).not.toHaveBeenCalled();
  });

  test('a host whose every address is public passes, once resolved, with its first address', async () => {
    const resolver = fakeResolver();
    await expect(check('https://public.example/a.pdf', resolver)).resolves.toBe('93.184.216.34');
    expect(resolver.mock.calls).toEqual([['public.example']]);
  });

  test('with a backslash before @, the host checked is the one before it, never 127.0.0.1', async () => {
    const resolver = fakeResolver();
    await expect(check('https://example.org\\@127.0.0.1/', resolver)).resolves.toBe('93.184.216.34');
    expect(resolver.mock.calls).toEqual([['example.org']]);
  });

  test('every answer is put to the address check together with the host name', async () => {
    const isAllowed = jest.fn((ip: string) => isPublicAddress(ip));
    await resolveAndCheck(new URL('https://public.example/'), fakeResolver(), isAllowed);
    expect(isAllowed.mock.calls).toEqual([
      ['93.184.216.34', 'public.example'],
      ['2606:2800:220:1:248:1893:25c8:1946', 'public.example'],
    ]);
  });
});

describe('safeFetch refusals', () => {
  const loopback = (): jest.Mock<Resolver> => jest.fn<Resolver>(() => Promise.resolve(['127.0.0.1']));

  test.each(['https://user:pass@files.test/', 'http://files.test/a.pdf', 'https://localhost/', 'https://a.localhost/'])(
    '%s is refused before any lookup',
    async (raw) => {
      const resolver = loopback();
      await expect(safeFetch(raw, { resolver, isAllowedAddress: () => true })).rejects.toThrow(UnsafeUrlError);
      expect(resolver).not.toHaveBeenCalled();
    },
  );

  test.each(['https://127.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/'])(
    'the loopback literal %s is refused even when the address check would allow it',
    async (raw) => {
      await expect(safeFetch(raw, { resolver: loopback(), isAllowedAddress: () => true })).rejects.toThrow(UnsafeUrlError);
    },
  );

  test('one disallowed answer refuses the host, after a single lookup; the message names the URL as sent', async () => {
    const resolver = jest.fn<Resolver>(() => Promise.resolve(['127.0.0.1', '127.0.0.2']));
    const raw = 'https://Files.Test/Report.pdf';
    const error = await safeFetch(raw, { resolver, isAllowedAddress: (ip) => ip === '127.0.0.1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as Error).message).toBe(
      `Attachment URL '${raw}' is unsafe or invalid: only HTTPS URLs to public domains are allowed.`,
    );
    expect(resolver.mock.calls.map(([host]) => host)).toEqual(['files.test']);
  });

  test('a host without addresses is refused', async () => {
    const resolver = jest.fn<Resolver>(() => Promise.resolve([]));
    await expect(safeFetch('https://files.test/a.pdf', { resolver })).rejects.toThrow(UnsafeUrlError);
  });

  test('a name that does not resolve fails without internals in the message', async () => {
    await expect(safeFetch('https://nowhere.example/a.pdf', { resolver: fakeResolver() })).rejects.toThrow(
      new AttachmentFetchError("Attachment 'https://nowhere.example/a.pdf' could not be downloaded: the host name could not be resolved."),
    );
  });

  test('the deadline also covers a lookup that never answers', async () => {
    const resolver: Resolver = () => new Promise<string[]>(() => undefined);
    const started = Date.now();
    const error = await safeFetch('https://files.test/a.pdf', { resolver, timeoutMs: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect((error as Error).message).toBe("Attachment 'https://files.test/a.pdf' could not be downloaded within 0.05 seconds.");
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('attachment errors', () => {
  test('too large names the file, its size and the maximum', () => {
    const error = new AttachmentTooLargeError('notes.pdf', 10_485_761, 10_485_760);
    expect(error).toMatchObject({ fileName: 'notes.pdf', size: 10_485_761, max: 10_485_760 });
    expect(error.message).toBe("File 'notes.pdf' is 10485761 bytes, larger than the maximum of 10485760 bytes.");
  });
});
