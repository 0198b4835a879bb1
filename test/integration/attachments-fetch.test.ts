import { beforeAll, describe, expect, test } from '@jest/globals';
import type { TLSSocket } from 'node:tls';
import { isPublicAddress, UnsafeUrlError } from '../../src/domain/attachments/address-policy.js';
import { downloadAll } from '../../src/domain/attachments/download.js';
import {
  AttachmentFetchError,
  AttachmentTooLargeError,
  safeFetch,
  type FetchOptions,
  type Resolver,
} from '../../src/domain/attachments/safe-fetch.js';
import {
  file,
  lyingLength,
  makeCertificate,
  redirect,
  stall,
  startHttpsFileServer,
  status,
  stream,
  type Certificate,
  type HttpsFileServer,
} from './support/https-file-server.js';

// Real HTTPS on loopback only. The test resolver maps the test names to 127.0.0.1 (no real DNS),
// and only those names may reach loopback, as a public host would be reached in production.

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const MAX = 10_485_760;

const testResolver: Resolver = (hostname) =>
  Promise.resolve(hostname === 'files.test' || hostname === 'redirect.test' ? ['127.0.0.1'] : []);
const allowTestHosts = (ip: string, hostname: string): boolean =>
  (ip === '127.0.0.1' && hostname.endsWith('.test')) || isPublicAddress(ip);

let certificate: Certificate;
let server: HttpsFileServer;
let options: FetchOptions;

beforeAll(async () => {
  certificate = makeCertificate();
  server = await startHttpsFileServer({ certificate });
  options = { resolver: testResolver, isAllowedAddress: allowTestHosts, ca: server.ca };
});

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the download to fail');
}

async function eventually(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('attachment downloads over real HTTPS', () => {
  test('a PDF and a PNG arrive with their bytes, content type and file name', async () => {
    server.route('/papers/doc.pdf', file(PDF, 'application/pdf'));
    server.route('/images/my%20diagram.png', file(PNG, 'image/png'));

    const pdf = await safeFetch(server.url('/papers/doc.pdf'), options);
    expect(pdf).toEqual({ url: server.url('/papers/doc.pdf'), bytes: PDF, contentType: 'application/pdf', fileName: 'doc.pdf' });

    const png = await safeFetch(server.url('/images/my%20diagram.png'), options);
    expect(Buffer.from(png.bytes).equals(PNG)).toBe(true);
    expect(png.contentType).toBe('image/png');
    expect(png.fileName).toBe('my diagram.png');
  });

  test('the connection carries the URL host name in Host and SNI', async () => {
    let seen: unknown;
    server.route('/who.txt', (req, res) => {
      seen = { host: req.headers.host, servername: (req.socket as TLSSocket).servername };
      res.end('ok');
    });
    await safeFetch(server.url('/who.txt'), options);
    expect(seen).toEqual({ host: `files.test:${server.port}`, servername: 'files.test' });
  });

  test.each([
    ['an IP literal', (port: number) => `https://127.0.0.1:${port}/secret`],
    ['localhost', (port: number) => `https://localhost:${port}/secret`],
    ['IPv6 loopback', (port: number) => `https://[::1]:${port}/secret`],
    ['plain HTTP', (port: number) => `http://files.test:${port}/secret`],
  ])('a redirect to %s is refused and never followed', async (_name, target) => {
    server.route('/to-secret', redirect(target(server.port)));
    const error = await failureOf(safeFetch(server.url('/to-secret'), options));
    expect(error).toBeInstanceOf(UnsafeUrlError);
    // the message names the URL the caller sent, not where the server pointed
    expect(error.message).toBe(
      `Attachment URL '${server.url('/to-secret')}' is unsafe or invalid: only HTTPS URLs to public domains are allowed.`,
    );
    expect(server.hits).not.toContain('/secret');
  });

  test('a chain of 3 redirects is followed, a 4th is refused', async () => {
    server.route('/hop1', redirect(server.url('/hop2', 'redirect.test'), 301));
    server.route('/hop2', redirect('/hop3', 307));
    server.route('/hop3', redirect(server.url('/hop4'), 308));
    server.route('/hop4', redirect(server.url('/end.pdf', 'redirect.test'), 303));
    server.route('/end.pdf', file(PDF, 'application/pdf'));

    const fetched = await safeFetch(server.url('/hop2', 'redirect.test'), options);
    expect(fetched.url).toBe(server.url('/end.pdf', 'redirect.test'));
    expect(fetched.fileName).toBe('end.pdf');

    const before = server.hits.length;
    const error = await failureOf(safeFetch(server.url('/hop1'), options));
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect(error.message).toBe(
      `Attachment '${server.url('/hop1')}' could not be downloaded: too many redirects (at most 3 are followed).`,
    );
    expect(server.hits.slice(before)).toEqual(['/hop1', '/hop2', '/hop3', '/hop4']);
  });

  test('a server that stalls after the headers runs into the deadline', async () => {
    server.route('/slow.pdf', stall());
    const started = Date.now();
    const error = await failureOf(safeFetch(server.url('/slow.pdf'), { ...options, timeoutMs: 1000 }));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect(error.message).toBe(`Attachment '${server.url('/slow.pdf')}' could not be downloaded within 1 second.`);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(3000);
    await eventually(() => server.unfinished.includes('/slow.pdf'));
    expect(server.unfinished).toContain('/slow.pdf');
  });

  test('a body over 10 MB is cut off while streaming and the server stops sending', async () => {
    // far more than the limit plus socket buffers, so finishing would show the client kept reading
    server.route('/big.txt', stream(64 * 1024 * 1024));
    const error = await failureOf(safeFetch(server.url('/big.txt'), options));
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    const tooLarge = error as AttachmentTooLargeError;
    expect(tooLarge.fileName).toBe('big.txt');
    expect(tooLarge.max).toBe(MAX);
    expect(tooLarge.size).toBeGreaterThan(MAX);
    expect(tooLarge.size).toBeLessThan(MAX + 1024 * 1024);
    expect(tooLarge.message).toBe(`File 'big.txt' is ${tooLarge.size} bytes, larger than the maximum of 10485760 bytes.`);
    await eventually(() => server.unfinished.includes('/big.txt'));
    expect(server.unfinished).toContain('/big.txt');
  });

  test('a Content-Length over the limit is refused before the body is read', async () => {
    server.route('/huge.pdf', lyingLength(50_000_000));
    const error = await failureOf(safeFetch(server.url('/huge.pdf'), options));
    expect(error).toBeInstanceOf(AttachmentTooLargeError);
    expect(error.message).toBe("File 'huge.pdf' is 50000000 bytes, larger than the maximum of 10485760 bytes.");
    await eventually(() => server.unfinished.includes('/huge.pdf'));
    expect(server.unfinished).toContain('/huge.pdf');
  });

  test('a 404 names the status', async () => {
    server.route('/gone.pdf', status(404));
    const error = await failureOf(safeFetch(server.url('/gone.pdf'), options));
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect(error.message).toBe(`Attachment '${server.url('/gone.pdf')}' could not be downloaded: the server answered HTTP 404.`);
  });

  test('an untrusted certificate is refused', async () => {
    server.route('/doc.pdf', file(PDF, 'application/pdf'));
    const error = await failureOf(safeFetch(server.url('/doc.pdf'), { ...options, ca: undefined }));
    expect(error).toBeInstanceOf(AttachmentFetchError);
    expect(error.message).toBe(
      `Attachment '${server.url('/doc.pdf')}' could not be downloaded: the server's TLS certificate could not be verified.`,
    );
  });

  test('DNS rebinding: the host is resolved once and the checked address is the one connected to', async () => {
    // Same port on 127.0.0.2: a second lookup answering there would reach this server.
    const rebound = await startHttpsFileServer({ certificate, host: '127.0.0.2', port: server.port });
    try {
      server.route('/doc.pdf', file(PDF, 'application/pdf'));
      rebound.route('/doc.pdf', file(Buffer.from('internal'), 'application/pdf'));
      const asked: string[] = [];
      const rebinding: Resolver = (hostname) => {
        asked.push(hostname);
        return Promise.resolve([asked.length === 1 ? '127.0.0.1' : '127.0.0.2']);
      };
      const before = server.hits.length;

      const fetched = await safeFetch(server.url('/doc.pdf'), { ...options, resolver: rebinding });

      expect(Buffer.from(fetched.bytes).equals(PDF)).toBe(true);
      expect(asked).toEqual(['files.test']);
      expect(server.hits.slice(before)).toEqual(['/doc.pdf']);
      expect(rebound.hits).toEqual([]);
    } finally {
      await rebound.close();
    }
  });
});

describe('the attachments of one request', () => {
  test('when one download fails, the others are stopped at once instead of running to their deadline', async () => {
    server.route('/sibling-slow.pdf', stall());
    server.route('/sibling-missing.pdf', status(404));
    const fetcher = (url: string, signal?: AbortSignal) => safeFetch(url, { ...options, signal });
    const started = Date.now();
    const error = await failureOf(downloadAll(fetcher, [{ url: server.url('/sibling-slow.pdf') }, { url: server.url('/sibling-missing.pdf') }]));
    expect(error.message).toMatch(/sibling-missing\.pdf' could not be downloaded/);
    // the stalled sibling's connection is closed long before its own 10 s deadline
    await eventually(() => server.unfinished.includes('/sibling-slow.pdf'));
    expect(server.unfinished).toContain('/sibling-slow.pdf');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('a download stopped by its request says why', async () => {
    server.route('/stopped.pdf', stall());
    const stop = new AbortController();
    const download = failureOf(safeFetch(server.url('/stopped.pdf'), { ...options, signal: stop.signal }));
    await eventually(() => server.hits.includes('/stopped.pdf'));
    stop.abort();
    expect((await download).message).toBe(`Attachment '${server.url('/stopped.pdf')}' was not downloaded: another attachment of the request failed.`);
  });
});
