import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { newAddress, startDocsServer, TEST_URLS, type DocsServer } from './support/docs-server.js';

// The documentation site through its real HTTP server: every route, content type, negotiation
// case, ETag and 404. Each test is its own client address (X-Forwarded-For), so the site's hourly
// limit of 100 per address never mixes tests.
let docs: DocsServer;
const manifest = JSON.parse(readFileSync('docs/site.json', 'utf8')) as {
  sections: { name: string; pages: { path: string; title: string; summary: string }[] }[];
};
const pages = manifest.sections.flatMap((s) => s.pages);

beforeAll(async () => {
  docs = await startDocsServer();
});

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(docs.url + path, { method, headers: { 'X-Forwarded-For': newAddress(), ...headers } });
}

describe('guide pages', () => {
  test.each(pages.map((p) => [p.path, p] as const))('%s: HTML with navigation, heading anchors, search and no inline script', async (path, page) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Accept');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain(`<h1 id="`);
    expect(html).toContain(`${page.title}</h1>`);
    expect(html).toMatch(/<h2 id="[^"]+"><a class="anchor" href="#[^"]+"/);
    for (const other of pages) expect(html).toContain(`<a href="${other.path}"`);
    expect(html).toContain('<input id="search-input" type="search"');
    expect(html).toContain('<script src="/assets/search.js" defer></script>');
    // every script is a file of the site: nothing inline for the CSP to allow
    expect(html.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    expect(html).not.toContain('{base_url}');
    expect(html).not.toContain('{docs_url}');
  });

  test.each(pages.flatMap((p) => [[`${p.path}.md`, p] as const, [`${p.path}.mdx`, p] as const]))(
    '%s: the page as Markdown, placeholders filled',
    async (path, page) => {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(res.headers.get('vary')).toBe('Accept');
      const text = await res.text();
      expect(text.startsWith(`# ${page.title}\n\n> ${page.summary}\n\n`)).toBe(true);
      expect(text).not.toMatch(/\{(base|docs)_url\}/);
    },
  );

  test('curl examples use the configured API address, links the configured docs address', async () => {
    const text = await (await get('/guides/getting-started.md')).text();
    expect(text).toContain(`curl -s ${TEST_URLS.apiBaseUrl}/api/v1/dev/query`);
    expect(text).toContain(`(${TEST_URLS.docsBaseUrl}/guides/keys)`);
  });

  test('the home page lists every page with its summary', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    for (const page of pages) expect(html).toContain(`<a href="${page.path}">${page.title.replaceAll("'", '&#39;')}</a>: `);
  });

  test('the home page and the reference have Markdown versions too (they were HTML only)', async () => {
    const home = await get('/', { Accept: 'text/markdown' });
    expect([home.status, home.headers.get('content-type'), home.headers.get('vary')]).toEqual([200, 'text/markdown; charset=utf-8', 'Accept']);
    expect(await home.text()).toBe(await (await get('/llms.txt')).text());
    const contract = JSON.parse(readFileSync('src/generated/openapi.json', 'utf8')) as { paths: Record<string, Record<string, { summary: string; operationId: string }>> };
    for (const reference of [await get('/reference', { Accept: 'text/markdown' }), await get('/reference.md')]) {
      expect([reference.status, reference.headers.get('content-type')]).toEqual([200, 'text/markdown; charset=utf-8']);
      const text = await reference.text();
      expect(text).toMatch(/^# API reference\n/);
      for (const [path, item] of Object.entries(contract.paths)) {
        for (const [method, op] of Object.entries(item)) expect(text).toContain(`## ${method.toUpperCase()} ${path}\n\n**${op.summary}** (\`${op.operationId}\`)`);
      }
    }
  });
});

describe('content negotiation on a page path', () => {
  const path = '/guides/errors';
  test.each([
    ['text/markdown', 'text/markdown; charset=utf-8'],
    ['text/plain', 'text/plain; charset=utf-8'],
    ['text/html;q=0.5, text/markdown', 'text/markdown; charset=utf-8'],
    ['text/markdown;q=0.4, text/html', 'text/html; charset=utf-8'],
    ['text/plain;q=0.9, text/markdown;q=0.8', 'text/plain; charset=utf-8'],
    ['text/markdown;q=0, */*', 'text/html; charset=utf-8'],
    ['*/*', 'text/html; charset=utf-8'],
    ['text/*', 'text/html; charset=utf-8'],
    ['application/json', 'text/html; charset=utf-8'],
    ['', 'text/html; charset=utf-8'],
  ])('Accept: %p answers %s, with Vary: Accept', async (accept, type) => {
    const res = await get(path, accept ? { Accept: accept } : {});
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('vary')).toBe('Accept');
    const body = await res.text();
    if (type.startsWith('text/html')) expect(body).toMatch(/^<!doctype html>/);
    else expect(body).toBe(await (await get(`${path}.md`)).text());
  });
});

describe('llms.txt and llms-full.txt', () => {
  test('/llms.txt: H1, blockquote summary, H2 sections of - [Title](url): summary', async () => {
    const res = await get('/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines[2]).toMatch(/^> \S/);
    for (const section of manifest.sections) {
      const at = lines.indexOf(`## ${section.name}`);
      expect(at).toBeGreaterThan(2);
      section.pages.forEach((page, i) => expect(lines[at + 2 + i]).toBe(`- [${page.title}](${TEST_URLS.docsBaseUrl}${page.path}.md): ${page.summary}`));
    }
    expect(text).toContain(`(${TEST_URLS.docsBaseUrl}/openapi.yaml)`);
    // every link of the index is an absolute URL of this site that answers
    const links = [...text.matchAll(/\]\((https:\/\/docs\.example\.test[^)]*)\)/g)].map((m) => m[1]!.slice(TEST_URLS.docsBaseUrl.length));
    expect(links.length).toBe(pages.length + 3);
    for (const link of links) expect((await get(link)).status).toBe(200);
  });

  test('/llms-full.txt: every page in order, each starting with # Title and Source: <absolute URL>', async () => {
    const res = await get('/llms-full.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    const starts = pages.map((p) => text.indexOf(`# ${p.title}\n\nSource: ${TEST_URLS.docsBaseUrl}${p.path}\n\n> ${p.summary}\n`));
    expect(starts[0]).toBe(0);
    for (const [i, at] of starts.entries()) if (i > 0) expect(at).toBeGreaterThan(starts[i - 1]!);
    expect(text.match(/^Source: /gm)).toHaveLength(pages.length);
  });
});

describe('the contract and the reference', () => {
  test('/openapi.json is the bundled contract', async () => {
    const res = await get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // with this deployment's address as its server (a generated client called production)
    const deployment = [{ url: TEST_URLS.apiBaseUrl, description: 'This deployment' }];
    expect(await res.json()).toEqual({ ...(JSON.parse(readFileSync('src/generated/openapi.json', 'utf8')) as object), servers: deployment });
  });

  test('/openapi.yaml is the same contract as YAML', async () => {
    const res = await get('/openapi.yaml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/yaml; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(/^openapi: 3\.1\.0$/m);
    const contract = JSON.parse(readFileSync('src/generated/openapi.json', 'utf8')) as { paths: Record<string, unknown> };
    for (const path of Object.keys(contract.paths)) expect(text).toContain(`\n  ${path}:\n`);
    expect(text).toContain(`\nservers:\n  - url: ${TEST_URLS.apiBaseUrl}\n    description: This deployment\n`);
    expect(text).not.toContain('url: https://api.svcai.lk');
  });

  test('/reference is one self-contained Redoc page: every operation, nothing fetched from elsewhere', async () => {
    const res = await get('/reference');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy') ?? '';
    // the browser itself refuses to load anything from another origin
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    const html = await res.text();
    const contract = JSON.parse(readFileSync('src/generated/openapi.json', 'utf8')) as { paths: Record<string, Record<string, { summary: string }>> };
    for (const item of Object.values(contract.paths)) for (const op of Object.values(item)) expect(html).toContain(op.summary);
    // the operations' addresses are this deployment's
    expect(html).toContain(`"servers":[{"url":"${TEST_URLS.apiBaseUrl}","description":"This deployment"}]`);
    expect(html).not.toContain('>https://api.svcai.lk</div>');
    // no tag a browser would load from another origin
    expect(html.match(/<(script|img|iframe|source|video|audio)\b[^>]*\bsrc=["']?(https?:)?\/\//gi)).toBeNull();
    expect(html.match(/<link\b[^>]*\bhref=["']?(https?:)?\/\//gi)).toBeNull();
    expect(html.match(/url\(\s*["']?(https?:)?\/\//gi)).toBeNull();
    expect(html.match(/@import\s+["'](https?:)?\/\//gi)).toBeNull();
    // nor an address the page's scripts would load (Redoc's badge logo came from a CDN)
    expect(html.match(/https?:\/\/cdn\./gi)).toBeNull();
    expect(html.match(/\bsrc:\s*[`'"]https?:/g)).toBeNull();
  });
});

describe('assets, caching and errors', () => {
  test.each([
    ['/assets/search.js', 'text/javascript; charset=utf-8'],
    ['/assets/site.css', 'text/css; charset=utf-8'],
    ['/search-index.json', 'application/json; charset=utf-8'],
  ])('%s is served as %s', async (path, type) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
  });

  test('the search index covers every page with its headings', async () => {
    const index = (await (await get('/search-index.json')).json()) as { path: string; title: string; headings: string[]; text: string }[];
    expect(index.map((e) => e.path).sort()).toEqual(pages.map((p) => p.path).sort());
    expect(index.find((e) => e.path === '/guides/rate-limits')?.headings).toContain('Retrying');
  });

  test.each(['/', '/guides/keys', '/guides/keys.md', '/llms.txt', '/llms-full.txt', '/openapi.json', '/openapi.yaml', '/reference', '/assets/search.js'])(
    '%s: ETag and Cache-Control; If-None-Match gives 304 without a body',
    async (path) => {
      const first = await get(path);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers.get('cache-control')).toBe('public, max-age=300');
      await first.arrayBuffer();
      const again = await get(path, { 'If-None-Match': etag! });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
      // a list, and the weak form of the tag, match too (weak comparison)
      expect((await get(path, { 'If-None-Match': `"something-else", W/${etag!}` })).status).toBe(304);
      const changed = await get(path, { 'If-None-Match': '"something-else"' });
      expect(changed.status).toBe(200);
    },
  );

  test('each variant of a page has its own ETag', async () => {
    const etags = await Promise.all(['text/html', 'text/markdown', 'text/plain'].map(async (accept) => (await get('/guides/keys', { Accept: accept })).headers.get('etag')));
    expect(new Set(etags).size).toBe(3);
  });

  test.each(['/nowhere', '/guides/nope', '/guides/nope.md', '/guides/keys/', '/api/v1/dev/plans'])('%s: 404 with a page that links the guides', async (path) => {
    const res = await get(path);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const html = await res.text();
    expect(html).toContain('<h1>Page not found</h1>');
    for (const page of pages) expect(html).toContain(`<a href="${page.path}">`);
  });

  test('HEAD answers the headers of GET without a body', async () => {
    const res = await get('/guides/keys', {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  test('other methods answer 405 with Allow', async () => {
    const res = await get('/guides/keys', {}, 'POST');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await res.json()).toEqual({ detail: expect.stringContaining('GET and HEAD') });
  });
});
