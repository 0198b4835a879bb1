import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import { loadSite } from '../../src/docs/content.js';
import { SEARCH_MARKUP, searchIndex } from '../../src/docs/llms.js';

// The search box of the documentation site: the real docs/assets/search.js, run over the real
// index of the guides (searchIndex), with just enough of a page around it (the box, the list).

const site = loadSite('docs', { apiBaseUrl: 'https://api.example.test', docsBaseUrl: 'https://docs.example.test' });
const index = searchIndex(site);
const script = readFileSync('docs/assets/search.js', 'utf8');

class FakeElement {
  value = '';
  href = '';
  textContent = '';
  hidden = true;
  children: FakeElement[] = [];
  form?: FakeElement;
  readonly listeners = new Map<string, () => unknown>();
  addEventListener(type: string, listener: () => unknown): void {
    this.listeners.set(type, listener);
  }
  append(...children: FakeElement[]): void {
    this.children.push(...children);
  }
  replaceChildren(...children: FakeElement[]): void {
    this.children = children;
  }
}

/** Types `query` into the box and returns the titles of the pages listed, best first. */
async function search(query: string): Promise<string[]> {
  const input = new FakeElement();
  input.form = new FakeElement();
  const list = new FakeElement();
  const document = {
    getElementById: (id: string) => ({ 'search-input': input, 'search-results': list })[id] ?? null,
    createElement: () => new FakeElement(),
  };
  const fetch = () => Promise.resolve({ json: () => Promise.resolve(JSON.parse(index) as unknown) });
  runInNewContext(script, { document, fetch, location: {} });
  input.value = query;
  await input.listeners.get('input')!();
  // each result is an item holding the page's link, then its summary
  return list.children.flatMap((item) => item.children.filter((child) => child.href).map((link) => link.textContent));
}

describe('the docs search box', () => {
  test.each([
    ['rate_limit_exceeded', 'Errors'],
    ['api_key_revoked', 'Errors'],
    ['api_key_revoked', 'API keys and key types'],
    ['storage_limit_exceeded', 'Errors'],
    ['storage_limit_exceeded', 'Knowledge bases'],
    ['X-API-Key', 'API keys and key types'],
    ['has_citations', 'Citations and page markers'],
    ['Retry-After', 'Rate-limit headers and retrying'],
    ['`quota_exceeded`', 'Errors'],
  ])('finds a page for %s, as typed: %s', async (query, title) => {
    expect(await search(query)).toContain(title);
  });

  test('several words must all occur; the title weighs most', async () => {
    expect((await search('retry after'))[0]).toBe('Rate-limit headers and retrying');
  });

  test('words that occur nowhere find nothing, and say so', async () => {
    expect(await search('rate_limit_exceeded zanzibar')).toEqual([]);
  });

  test('the index keeps words joined by _ or -, and drops the markup around them', () => {
    const errors = (JSON.parse(index) as { path: string; text: string }[]).find((page) => page.path === '/guides/errors')!;
    expect(errors.text).toContain('rate_limit_exceeded');
    expect(errors.text).toContain('X-API-Key');
    expect(errors.text).not.toMatch(/[`|#*]|(^| )-+( |$)/);
  });

  test('the query is cleaned of the same markup as the index (search.js and SEARCH_MARKUP agree)', () => {
    expect(script).toContain(`/${SEARCH_MARKUP.source}/${SEARCH_MARKUP.flags}`);
  });
});
