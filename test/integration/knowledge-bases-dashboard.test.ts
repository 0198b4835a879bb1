import { join } from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { pino } from 'pino';
import { freePort } from '../../scripts/lib/free-port.js';
import { systemClock } from '../../src/clock.js';
import { ingestionSettings } from '../../src/config.js';
import { Document } from '../../src/db/entities.js';
import { startIngestionWorker } from '../../src/jobs/ingestion-worker.js';
import type { Services } from '../../src/services.js';
import { newKey } from './support/accounts.js';
import { ARTIFACTS, launchBrowser, watchedPage } from './support/browser.js';
import { onCleanup } from './support/cleanup.js';
import { DashboardBrowser, uniqueEmail } from './support/dashboard.js';
import { startServer, testConfig, testServices, type TestServer } from './support/server.js';

// The dashboard's knowledge-base pages with the real server, its ingestion worker, PostgreSQL
// and Weaviate: first as a browser without JavaScript uses them (HTML and form posts with the
// session cookie and CSRF token), then in Chromium with JavaScript (a dropped file, the upload's
// progress bar, and document states that change without a reload). The ingestion worker starts
// once the browser has seen its upload processing (the test's first), so that the page is seen
// changing by itself.

let server: TestServer;
let services: Services;
let chromium: Browser;
let worker: Promise<unknown> | undefined;

beforeAll(async () => {
  const port = await freePort();
  services = testServices({}, { API_BASE_URL: `http://127.0.0.1:${port}`, SIGN_IN_ATTEMPTS_PER_ADDRESS: '1000' });
  server = await startServer({ port, services });
  chromium = await launchBrowser();
});

/** Starts the ingestion worker of uploaded documents, as a service process runs it (once). */
function ingesting(): Promise<unknown> {
  worker ??= (async () => {
    const config = testConfig();
    const stop = await startIngestionWorker(services.jobs, server.orm, services, systemClock, pino({ level: 'silent' }), { ...ingestionSettings(config), sweepMs: 2_000 });
    onCleanup(stop);
  })();
  return worker;
}

const NOTES = '--- PAGE 1 ---\nMitosis makes two identical daughter cells; meiosis makes four gametes.\n';

async function signedIn(plan: 'free' | 'enterprise'): Promise<DashboardBrowser> {
  const browser = new DashboardBrowser(server.url);
  const session = await browser.signUp(uniqueEmail(`kb-pages-${plan}`));
  await newKey(server.orm, { plan, accountId: session.account.id });
  return browser;
}

const METADATA = { subject: 'Biology', grade: '12', category: 'short-notes', language: 'english', year: '', name: '' };

/** The upload (or, with its action, a replace) form as a browser sends it (multipart, every field, an empty optional one included). */
async function uploadFile(browser: DashboardBrowser, kbId: string, fields: Record<string, string> = METADATA, file: { name: string; text: string } | null = { name: 'notes.md', text: NOTES }, csrf = browser.csrf!, action = 'documents') {
  const form = new FormData();
  form.append('csrf_token', csrf);
  if (file) form.append('file', new Blob([file.text], { type: 'text/markdown' }), file.name);
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const res = await fetch(`${server.url}/dashboard/knowledge-bases/${kbId}/${action}`, { method: 'POST', headers: { Cookie: `svc_session=${browser.cookie}`, Origin: server.url }, body: form, redirect: 'manual' });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

async function createKb(browser: DashboardBrowser, name: string): Promise<string> {
  const created = await browser.submit('/dashboard/knowledge-bases', { name });
  expect(created.status).toBe(303);
  return /\/dashboard\/knowledge-bases\/(kb_[A-Za-z0-9]{20})\?done=kb-created$/.exec(created.location!)![1]!;
}

describe('knowledge-base pages in Chromium', () => {
  test('a dropped file uploads with a progress bar, and its state changes to ready without a reload', async () => {
    const account = await signedIn('enterprise');
    const kbId = await createKb(account, 'In the browser');
    const { page: tab, outside, errors } = await watchedPage(chromium, [server.url]);
    await tab.context().addCookies([{ name: 'svc_session', value: account.cookie!, url: server.url }]);
    await tab.goto(`${server.url}/dashboard/knowledge-bases/${kbId}`);

    // the progress bar's values, kept in sessionStorage across the page the upload leads to (the
    // scripts run in the page: strings, as the test is compiled without the DOM's types)
    await tab.evaluate(`{
      const bar = document.getElementById('upload-progress');
      new MutationObserver(() => {
        const seen = JSON.parse(sessionStorage.getItem('progress') ?? '[]');
        sessionStorage.setItem('progress', JSON.stringify([...seen, (bar.hidden ? 'hidden' : 'shown') + ':' + bar.getAttribute('value')]));
      }).observe(bar, { attributes: true });
    }`);
    await tab.getByLabel('Subject').fill('Biology');
    await tab.getByLabel('Grade').fill('12');
    await tab.getByLabel('Category').selectOption('short-notes');
    // a file past the limit is refused before it is sent
    const big = await tab.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(52428801)], 'big.pdf', { type: 'application/pdf' }));
      return transfer;
    })()`);
    await tab.dispatchEvent('form[data-upload]', 'drop', { dataTransfer: big });
    await tab.getByRole('button', { name: 'Upload', exact: true }).click();
    expect(await tab.getByRole('alert').textContent()).toBe('big.pdf is 52428801 bytes, larger than the maximum of 52428800 bytes.');
    const dropped = await tab.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([${JSON.stringify(NOTES)}], 'dropped-notes.md', { type: 'text/markdown' }));
      return transfer;
    })()`);
    await tab.dispatchEvent('form[data-upload]', 'drop', { dataTransfer: dropped });
    expect(await tab.evaluate(`document.querySelector('input[type=file]').files[0]?.name`)).toBe('dropped-notes.md');
    await tab.getByRole('button', { name: 'Upload', exact: true }).click();
    await tab.waitForURL(`${server.url}/dashboard/knowledge-bases/${kbId}?done=document-uploaded`);
    const progress = JSON.parse((await tab.evaluate<string | null>(`sessionStorage.getItem('progress')`)) ?? '[]') as string[];
    expect(progress).toContain('shown:100');

    // the page is not reloaded: a marker on it survives until the state reads ready
    await tab.evaluate(`document.body.setAttribute('data-marker', 'same page')`);
    // the document is still being read when the page arrives (indexing takes longer than a redirect)
    expect(await tab.locator('#documents').getAttribute('data-live')).toBe('true');
    expect(await tab.locator('#knowledge-base-documents td.state').textContent()).toBe('processing');
    await ingesting();
    await tab.locator('td[data-state="ready"]').waitFor({ timeout: 120_000 });
    expect(await tab.evaluate(`document.body.getAttribute('data-marker')`)).toBe('same page');
    expect(await tab.locator('#kb-figures').textContent()).toContain('1 documents, 1 pages');
    await tab.screenshot({ path: join(ARTIFACTS, 'dashboard-knowledge-base.png'), fullPage: true });
    expect(outside).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);
});

describe('knowledge-base pages without JavaScript', () => {
  beforeAll(() => ingesting());

  test('create, list, rename, upload (processing, then ready), delete a document, delete the knowledge base', async () => {
    const browser = await signedIn('enterprise');
    expect((await browser.page('/dashboard/knowledge-bases')).html).toContain('Create a knowledge base');
    const kbId = await createKb(browser, 'Grade 12 biology');
    expect((await browser.submit('/dashboard/knowledge-bases', { name: 'Grade 12 biology' })).status).toBe(409);
    expect((await browser.submit('/dashboard/knowledge-bases', { name: '' })).status).toBe(400);

    const renamed = await browser.submit(`/dashboard/knowledge-bases/${kbId}/rename`, { name: 'Grade 12 biology notes' });
    expect(renamed.location).toBe(`/dashboard/knowledge-bases/${kbId}?done=kb-renamed`);

    const uploaded = await uploadFile(browser, kbId, { ...METADATA, year: '2024', name: 'Cell division' });
    expect([uploaded.status, uploaded.location]).toEqual([303, `/dashboard/knowledge-bases/${kbId}?done=document-uploaded`]);
    const first = await browser.page(`/dashboard/knowledge-bases/${kbId}?done=document-uploaded`);
    expect(first.html).toContain('Cell division');
    expect(first.html).toContain('Biology, grade 12, short-notes, english, 2024');
    const documentId = /id="(doc_[A-Za-z0-9]{24})"/.exec(first.html)![1]!;

    const ready = await browser.pageUntil(`/dashboard/knowledge-bases/${kbId}`, (html) => html.includes('data-state="ready"'), 120_000);
    expect(ready).toMatch(/data-state="ready">ready<\/td>\s*<td>1<\/td>\s*<td>[1-9]\d*<\/td>/);
    expect(ready).not.toContain('being read and indexed');
    const list = (await browser.page('/dashboard/knowledge-bases')).html;
    expect(list).toContain('Grade 12 biology notes');
    expect(list).toContain(kbId);
    expect(list).toContain('1 ready, 0 processing, 0 failed');

    // a new file for the document: the form sends the name and metadata the page shows, so only the file changes
    const replaceForm = /<form[^>]*\/documents\/doc_\w+\/replace"[\s\S]*?<\/form>/.exec(ready)![0];
    const kept = Object.fromEntries([...replaceForm.matchAll(/type="hidden" name="(\w+)" value="([^"]*)"/g)].filter((m) => m[1] !== 'csrf_token').map((m) => [m[1]!, m[2]!]));
    expect(kept).toEqual({ subject: 'Biology', grade: '12', category: 'short-notes', language: 'english', year: '2024', name: 'Cell division' });
    const replaced = await uploadFile(browser, kbId, kept, { name: 'notes-v2.md', text: '--- PAGE 1 ---\nCytokinesis divides the cytoplasm.\n' }, undefined, `documents/${documentId}/replace`);
    expect([replaced.status, replaced.location]).toEqual([303, `/dashboard/knowledge-bases/${kbId}?done=document-replaced`]);
    await browser.pageUntil(`/dashboard/knowledge-bases/${kbId}`, (html) => html.includes('data-state="ready"'), 120_000);
    const stored = await server.orm.em.fork().findOneOrFail(Document, documentId);
    expect([stored.state, stored.fileName, stored.revision, stored.name, stored.metadata]).toEqual(['ready', 'notes-v2.md', 2, 'Cell division', { subject: 'Biology', grade: '12', category: 'short-notes', language: 'english', year: '2024' }]);

    // a file that cannot be read ends failed, with the reason shown
    await uploadFile(browser, kbId, METADATA, { name: 'broken.pdf', text: 'not a PDF at all' });
    const failed = await browser.pageUntil(`/dashboard/knowledge-bases/${kbId}`, (html) => html.includes('data-state="failed"'), 120_000);
    expect(failed).toMatch(/data-state="failed">failed: [^<]+/);

    expect((await browser.submit(`/dashboard/knowledge-bases/${kbId}/documents/${documentId}/delete`)).location).toBe(`/dashboard/knowledge-bases/${kbId}?done=document-deleted`);
    expect((await browser.page(`/dashboard/knowledge-bases/${kbId}`)).html).not.toContain(documentId);

    // deleting asks for the box to be ticked
    expect((await browser.submit(`/dashboard/knowledge-bases/${kbId}/delete`)).status).toBe(400);
    expect((await browser.submit(`/dashboard/knowledge-bases/${kbId}/delete`, { confirm: 'yes' })).location).toBe('/dashboard/knowledge-bases?done=kb-deleted');
    expect((await browser.page(`/dashboard/knowledge-bases/${kbId}`)).status).toBe(404);
  }, 240_000);

  test('bad uploads re-show the form with the problem; a missing CSRF token is refused', async () => {
    const browser = await signedIn('enterprise');
    const kbId = await createKb(browser, 'Checks');
    const badCategory = await uploadFile(browser, kbId, { ...METADATA, category: 'novel', subject: 'Chemistry' });
    expect(badCategory.status).toBe(400);
    expect(badCategory.html).toMatch(/role="alert">[^<]*category/);
    expect(badCategory.html).toContain('value="Chemistry"');
    expect((await uploadFile(browser, kbId, METADATA, null)).status).toBe(400);
    expect((await uploadFile(browser, kbId, METADATA, { name: 'empty.md', text: '' })).html).toContain('Choose a file to upload');
    expect((await uploadFile(browser, kbId, METADATA, undefined, 'wrong')).status).toBe(403);
    expect((await browser.submit('/dashboard/knowledge-bases', { name: 'No token' }, 'wrong')).status).toBe(403);
    expect((await browser.page(`/dashboard/knowledge-bases/${kbId}`)).html).toContain('No documents yet.');
  });

  test('plans without custom knowledge bases see why', async () => {
    const free = await signedIn('free');
    const listed = await free.page('/dashboard/knowledge-bases');
    expect(listed.status).toBe(200);
    expect(listed.html).toContain('part of the Enterprise plan; your account is on the Free plan');
    const refused = await free.submit('/dashboard/knowledge-bases', { name: 'Mine' });
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('not included in the Free plan');
  });

  test("another account's knowledge base and documents are not found", async () => {
    const owner = await signedIn('enterprise');
    const kbId = await createKb(owner, 'Owned');
    await uploadFile(owner, kbId);
    const documentId = /id="(doc_[A-Za-z0-9]{24})"/.exec((await owner.page(`/dashboard/knowledge-bases/${kbId}`)).html)![1]!;

    const other = await signedIn('enterprise');
    expect((await other.page(`/dashboard/knowledge-bases/${kbId}`)).status).toBe(404);
    expect((await other.page('/dashboard/knowledge-bases')).html).not.toContain(kbId);
    expect((await other.submit(`/dashboard/knowledge-bases/${kbId}/rename`, { name: 'Taken' })).status).toBe(404);
    expect((await other.submit(`/dashboard/knowledge-bases/${kbId}/delete`, { confirm: 'yes' })).status).toBe(404);
    expect((await other.submit(`/dashboard/knowledge-bases/${kbId}/documents/${documentId}/delete`)).status).toBe(404);
    expect((await uploadFile(other, kbId)).status).toBe(404);
    expect((await uploadFile(other, kbId, METADATA, undefined, undefined, `documents/${documentId}/replace`)).status).toBe(404);
    // its own knowledge base does not reach the owner's document either
    const own = await createKb(other, 'Mine');
    expect((await other.submit(`/dashboard/knowledge-bases/${own}/documents/${documentId}/delete`)).status).toBe(404);

    const still = (await owner.page(`/dashboard/knowledge-bases/${kbId}`)).html;
    expect(still).toContain('<h1>Owned</h1>');
    expect(still).toContain(documentId);
  });
});
