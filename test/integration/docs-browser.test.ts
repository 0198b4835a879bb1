import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { ARTIFACTS, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { startDocsServer, type DocsServer } from './support/docs-server.js';

// The documentation site in a real browser (support/browser.ts): a request that would leave this
// machine is refused and fails the test, and so does a Content-Security-Policy violation.
// Screenshots are kept in .data/test-artifacts/.
let docs: DocsServer;
let browser: Browser;

beforeAll(async () => {
  docs = await startDocsServer();
  browser = await launchBrowser();
});

async function visit(path: string): Promise<WatchedPage> {
  const { page, outside, errors } = await watchedPage(browser, [docs.url]);
  const response = await page.goto(docs.url + path, { waitUntil: 'networkidle' });
  expect(response?.status()).toBe(200);
  return { page, outside, errors };
}

describe('the documentation site in Chromium', () => {
  test('the reference shows every operation under its tag, loads nothing from elsewhere and breaks no CSP rule', async () => {
    const { page, outside, errors } = await visit('/reference');
    const contract = JSON.parse(readFileSync('src/generated/openapi.json', 'utf8')) as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { summary: string; tags: string[] }>>;
    };
    const operations = Object.values(contract.paths).flatMap((item) => Object.values(item));
    expect(operations).toHaveLength(44);
    expect(await page.getByRole('heading', { name: 'Quick start' }).first().isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-reference.png') });
    // Redoc lists a tag's operations in its navigation once the tag is opened (a hash route), and
    // shows them on the page (the first at least: the rest render as the reader scrolls)
    for (const { name } of contract.tags) {
      await page.getByRole('link', { name, exact: true }).first().click();
      const tagged = operations.filter((op) => op.tags.includes(name));
      for (const operation of tagged) {
        const listed = page.getByText(operation.summary, { exact: true }).filter({ visible: true }).first();
        await listed.waitFor();
        expect(await listed.isVisible()).toBe(true);
      }
      const shown = page.getByRole('heading', { name: tagged[0]!.summary }).filter({ visible: true }).first();
      await shown.waitFor();
      expect(await shown.isVisible()).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `docs-reference-${name.toLowerCase()}.png`) });
    }
    expect(page.url()).toContain('/reference#');
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  test.each([
    ['/guides/getting-started', 'Getting started', ['1. Get an API key', '2. Ask a question with curl', 'Next steps']],
    ['/guides/errors', 'Errors', ['Shapes', 'Codes', 'Examples of messages']],
  ])('%s shows its headings and navigation, with nothing from elsewhere', async (path, title, headings) => {
    const { page, outside, errors } = await visit(path);
    expect(await page.getByRole('heading', { level: 1, name: title }).isVisible()).toBe(true);
    for (const heading of headings) expect(await page.getByRole('heading', { level: 2, name: heading }).isVisible()).toBe(true);
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Rate-limit headers and retrying' }).isVisible()).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, `docs${path.replaceAll('/', '-')}.png`), fullPage: true });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('the search box finds pages offline, from the site\'s own index', async () => {
    const { page, outside, errors } = await visit('/guides/keys');
    await page.getByRole('searchbox').fill('retry after');
    const first = page.locator('#search-results li a').first();
    await first.waitFor();
    expect(await first.textContent()).toBe('Rate-limit headers and retrying');
    await page.getByRole('searchbox').press('Enter');
    await page.waitForURL(`${docs.url}/guides/rate-limits`);
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  });
});
