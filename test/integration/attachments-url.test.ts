import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { isPublicAddress } from '../../src/domain/attachments/address-policy.js';
import { safeFetch } from '../../src/domain/attachments/safe-fetch.js';
import { newKey } from './support/accounts.js';
import { apiClient, detailOf, type Schemas } from './support/contract.js';
import { file, redirect, stall, startHttpsFileServer, stream, type HttpsFileServer } from './support/https-file-server.js';
import { startServer, testServices, type TestServer } from './support/server.js';

// URL attachments through POST /query. The file server is a real HTTPS server on loopback; the
// service reaches it through a fetcher built here with a test-only resolver and trust anchor
// (production builds its fetcher with the strict defaults and no way to change them).
let files: HttpsFileServer;
let server: TestServer;
let key: string;

const ask = (attachments: Schemas['Attachment'][], query = 'What does the attached page say about osmosis?') =>
  apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query, attachments } });

beforeAll(async () => {
  files = await startHttpsFileServer();
  const resolver = (host: string) => Promise.resolve(host.endsWith('.test') ? ['127.0.0.1'] : []);
  const fetchAttachment = (url: string) =>
    safeFetch(url, {
      resolver,
      ca: files.ca,
      // Short only for the stalled download; the 11 MB stream needs longer on a busy machine.
      timeoutMs: url.endsWith('/slow.pdf') ? 1_500 : 20_000,
      isAllowedAddress: (ip, host) => (ip === '127.0.0.1' && host.endsWith('.test')) || isPublicAddress(ip),
    });
  server = await startServer({ services: testServices({ fetchAttachment }) });
  key = (await newKey(server.orm, { plan: 'enterprise' })).key;

  files.route('/notes/osmosis.txt', file(new TextEncoder().encode('Osmosis is the movement of water through a partially permeable membrane.'), 'text/plain; charset=utf-8'));
  files.route('/papers/photosynthesis.pdf', file(await readFile('samples/curriculum/pdf/grade10-science-photosynthesis.pdf'), 'application/pdf'));
  files.route('/download/42', file(new TextEncoder().encode('Diffusion moves particles from high to low concentration.'), 'application/octet-stream'));
  files.route('/page.png', file(await readFile('test/fixtures/small.png'), 'image/png'));
  files.route('/fake.png', file(new TextEncoder().encode('%PDF-1.4 not an image'), 'image/png'));
  files.route('/archive.zip', file(Buffer.from('UEsDBBQAAAAIAAAAIQAAAAAAAAAAAAAAAAAAAAAACAAAAGEudHh0', 'base64'), 'application/zip'));
  files.route('/lessons/osmosis', file(new TextEncoder().encode('<!doctype html><title>Osmosis</title><p>Water moves through a membrane.</p>'), 'text/html; charset=utf-8'));
  files.route('/huge.txt', stream(11_000_000));
  files.route('/slow.pdf', stall());
  files.route('/to-internal', redirect(`https://127.0.0.1:${files.port}/notes/osmosis.txt`));
  files.route('/to-notes', redirect(files.url('/notes/osmosis.txt', 'files.test')));
});

describe('URL attachments on POST /api/v1/dev/query', () => {
  test('a downloaded text file joins the context and is cited as the attachment', async () => {
    const res = await ask([{ url: files.url('/notes/osmosis.txt', 'files.test') }]);
    expect(res.response.status).toBe(200);
    expect(res.data?.answer).toContain('Osmosis is the movement of water through a partially permeable membrane.');
    expect(res.data?.citations[0]).toMatchObject({ document_id: '', document_name: 'osmosis.txt', metadata: null });
  });

  test('a downloaded PDF and an image together; redirects between allowed hosts are followed', async () => {
    const res = await ask([
      { url: files.url('/papers/photosynthesis.pdf', 'files.test') },
      { url: files.url('/page.png', 'files.test') },
      { url: files.url('/to-notes', 'redirect.test') },
    ], 'What is the word equation of photosynthesis?');
    expect(res.response.status).toBe(200);
    expect(res.data?.citations.some((c) => c.document_name === 'photosynthesis.pdf')).toBe(true);
    expect(res.data?.answer).toContain("The attached image 'page.png' could not be read");
  });

  test('media_type is used when the URL and the Content-Type say nothing', async () => {
    const res = await ask([{ url: files.url('/download/42', 'files.test'), media_type: 'text/plain' }], 'How does diffusion move particles?');
    expect(res.response.status).toBe(200);
    expect(res.data?.answer).toContain('Diffusion moves particles from high to low concentration.');
  });

  test.each([
    ['http://files.test/notes/osmosis.txt'],
    ['https://127.0.0.1/notes/osmosis.txt'],
    ['https://localhost/notes/osmosis.txt'],
    ['https://169.254.169.254/latest/meta-data/'],
    ['https://[::1]/x.txt'],
    ['https://168.63.129.16/x.txt'],
    ['https://user:pass@files.test/notes/osmosis.txt', ', without a user name or password: remove them'],
    ['https://files.test:0/notes/osmosis.txt', ', on a port a server listens on (not 0)'],
  ])('%s is refused as unsafe', async (url, what = '') => {
    const res = await ask([{ url }]);
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toBe(`Attachment URL '${url}' is unsafe or invalid: only HTTPS URLs to public domains are allowed${what}.`);
  });

  test('a redirect from an allowed host to a private address is refused and never followed', async () => {
    const before = files.hits.length;
    const res = await ask([{ url: files.url('/to-internal', 'redirect.test') }]);
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toMatch(/is unsafe or invalid: only HTTPS URLs to public domains are allowed\.$/);
    expect(files.hits.slice(before)).toEqual(['/to-internal']);
  });

  test('a file over 10 MiB is 400 naming it, its size and the maximum', async () => {
    const res = await ask([{ url: files.url('/huge.txt', 'files.test') }]);
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toMatch(/^File 'huge.txt' is \d+ bytes, larger than the maximum of 10485760 bytes\.$/);
  });

  test('wrong and spoofed types are 400', async () => {
    const zip = await ask([{ url: files.url('/archive.zip', 'files.test') }]);
    expect(zip.response.status).toBe(400);
    expect(detailOf(zip.error)).toContain("Unsupported media type 'application/zip'");
    const spoofed = await ask([{ url: files.url('/fake.png', 'files.test') }]);
    expect(spoofed.response.status).toBe(400);
    expect(detailOf(spoofed.error)).toBe("Attachment 'fake.png' is declared as image/png, but its content is application/pdf.");
    // a web page is refused as what its server says it is, not read as text
    const page = await ask([{ url: files.url('/lessons/osmosis', 'files.test') }]);
    expect(page.response.status).toBe(400);
    expect(detailOf(page.error)).toContain("Unsupported media type 'text/html'");
  });

  test('a download that does not finish in time is 400', async () => {
    const started = Date.now();
    const res = await ask([{ url: files.url('/slow.pdf', 'files.test') }]);
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toMatch(/could not be downloaded within/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test('a model outside the plan or a store the key may not read is refused before anything is downloaded', async () => {
    const before = files.hits.length;
    const attachments = [{ url: files.url('/notes/osmosis.txt', 'files.test') }, { url: files.url('/papers/photosynthesis.pdf', 'files.test') }];
    const free = apiClient(server.url, (await newKey(server.orm, { plan: 'free' })).key);
    const model = await free.POST('/api/v1/dev/query', { body: { query: 'What is osmosis?', model: 'svcai-thinking', attachments } });
    expect(model.response.status).toBe(403);
    expect(model.error).toEqual({ error: { code: 'forbidden', message: "Model 'svcai-thinking' is not allowed on the Free plan. Allowed models: svcai-fast." } });
    const store = await ask(attachments.map((a) => ({ ...a })), 'What is osmosis?');
    expect(store.response.status).toBe(200);
    const elsewhere = await apiClient(server.url, key).POST('/api/v1/dev/query', { body: { query: 'What is osmosis?', store_id: 'kb_not_this_accounts', attachments } });
    expect(elsewhere.response.status).toBe(404);
    // only the answered request fetched its two files
    expect(files.hits.length).toBe(before + 2);
  });

  test('more than 5 attachments is 400 before anything is downloaded', async () => {
    const before = files.hits.length;
    const res = await ask(Array.from({ length: 6 }, () => ({ url: files.url('/notes/osmosis.txt', 'files.test') })));
    expect(res.response.status).toBe(400);
    expect(detailOf(res.error)).toBe('Too many attachments: 6 were sent, at most 5 are allowed.');
    expect(files.hits.length).toBe(before);
  });
});
