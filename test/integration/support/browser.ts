import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { onCleanup } from './cleanup.js';

// Debian's Chromium (installed by scripts/setup.sh --browser), driven by playwright-core, which
// downloads no browser of its own. Every request a page makes is watched: one to an origin the
// test did not allow is refused and recorded, and so are console errors, Content-Security-Policy
// violations among them. Screenshots go to .data/test-artifacts/.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), '.data', 'test-artifacts');

/** Chromium, closed after the test file at the latest. */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  onCleanup(() => browser.close());
  mkdirSync(ARTIFACTS, { recursive: true });
  return browser;
}

export interface WatchedPage {
  page: Page;
  /** Requests to origins not allowed (refused). */
  outside: string[];
  /** Console errors, Content-Security-Policy violations among them. */
  errors: string[];
}

/** A page in a context of its own that may reach `allowed` origins only. */
export async function watchedPage(browser: Browser, allowed: string[], options: { javaScript?: boolean; width?: number } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: 900 }, javaScriptEnabled: options.javaScript ?? true });
  onCleanup(() => context.close());
  const outside: string[] = [];
  const errors: string[] = [];
  const origins = new Set(allowed);
  await context.route('**/*', async (route) => {
    if (origins.has(new URL(route.request().url()).origin)) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, outside, errors };
}
