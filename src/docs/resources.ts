import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import spec from '../generated/openapi.json' with { type: 'json' };
import { loadSite, type DocsPage, type DocsSite, type SiteUrls } from './content.js';
import { llmsFullTxt, llmsTxt, searchIndex } from './llms.js';
import { escapeHtml, layout } from './render.js';

// Every answer of the documentation site is made once, at start, with its ETag: the content only
// changes with a new build, so a request costs a lookup and a comparison.

export interface Resource {
  body: Buffer;
  type: string;
  etag: string;
  /** Content-Security-Policy of an HTML answer. */
  csp?: string;
}

/** Guide pages and the home page: scripts, styles and requests only from this site, nothing inline. */
const PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** The Redoc reference has its scripts and styles inlined, and may load nothing from elsewhere either. */
const REFERENCE_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'";

export function resource(body: string | Buffer, type: string, csp?: string): Resource {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  // the type is part of the representation: a page's Markdown as text/plain has its own ETag
  const etag = `"${createHash('sha256').update(type).update('\n').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { body: bytes, type, etag, csp };
}

export interface PageVariants {
  html: Resource;
  markdown: Resource;
  plain: Resource;
}

export interface DocsContent {
  site: DocsSite;
  /** By exact path: llms files, contract, assets, search index. */
  files: Map<string, Resource>;
  /** By page path, each as HTML and as Markdown: the home page, the reference and the guides (`/guides/keys`). */
  pages: Map<string, PageVariants>;
  notFound: Resource;
}

/**
 * The contract as this deployment serves it: its server is the API's address (API_BASE_URL), as
 * in the guides, so that a client generated from it, and Redoc's "try it" addresses, call this
 * deployment rather than production. Production's own address leaves the files as they are.
 */
function servedContract(apiBaseUrl: string) {
  const deployment = { url: apiBaseUrl, description: 'This deployment' };
  const production = (spec.servers as { url: string; description: string }[])[0]!;
  const same = apiBaseUrl === production.url;
  const replace = (text: string, from: string, to: string) => {
    if (!text.includes(from)) throw new Error(`the built contract no longer has its server as '${from}': update servedContract`);
    return text.replaceAll(from, to);
  };
  return {
    json: (text: string) => (same ? text : JSON.stringify({ ...(JSON.parse(text) as object), servers: [deployment] }, null, 2)),
    yaml: (text: string) =>
      same ? text : replace(text, `servers:\n  - url: ${production.url}\n    description: ${production.description}\n`, `servers:\n  - url: ${deployment.url}\n    description: ${deployment.description}\n`),
    // Redoc's page carries the contract as JSON, and each operation's address rendered from it
    reference: (text: string) =>
      same ? text : replace(replace(text, JSON.stringify({ servers: [production] }).slice(1, -1), JSON.stringify({ servers: [deployment] }).slice(1, -1)), `>${production.url}</div>`, `>${deployment.url}</div>`),
  };
}

type Operation = { operationId?: string; summary?: string; description?: string };

/** The reference as Markdown: every operation's method, path, summary and description, in the contract's order, and where the full contract is. */
function referenceMarkdown(site: DocsSite): string {
  const operations = Object.entries(spec.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => typeof operation === 'object' && operation.operationId)
      .map(([method, operation]) => `## ${method.toUpperCase()} ${path}\n\n**${operation.summary ?? operation.operationId!}** (\`${operation.operationId!}\`)\n\n${(operation.description ?? '').trim()}\n`),
  );
  const base = site.urls.docsBaseUrl;
  return `# API reference\n\n> Every operation of the API. Parameters, request bodies, responses and errors are in the OpenAPI description: ${base}/openapi.yaml (or ${base}/openapi.json).\n\n${operations.join('\n')}`;
}

function readBuilt(root: string, file: string): Buffer {
  const path = join(root, 'dist', 'docs', file);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` (it builds the API reference from the contract)`);
  return readFileSync(path);
}

function pageHtml(site: DocsSite, page: DocsPage): string {
  return layout(site, { title: page.title, description: page.summary, main: page.html, currentPath: page.path });
}

function homeHtml(site: DocsSite): string {
  const sections = site.sections
    .map((s) => `<h2>${escapeHtml(s.name)}</h2><ul>${s.pages.map((p) => `<li><a href="${p.path}">${escapeHtml(p.title)}</a>: ${escapeHtml(p.summary)}</li>`).join('')}</ul>`)
    .join('');
  const api = `<h2>API reference</h2><ul><li><a href="/reference">API reference</a>: every operation, parameter, response and error.</li><li><a href="/openapi.yaml">openapi.yaml</a> and <a href="/openapi.json">openapi.json</a>: the OpenAPI 3.1 description, to generate a client.</li><li><a href="/llms.txt">llms.txt</a> and <a href="/llms-full.txt">llms-full.txt</a>: this site for AI assistants.</li></ul>`;
  return layout(site, { title: 'Documentation', description: site.summary, main: `<h1>${escapeHtml(site.title)}</h1><blockquote><p>${escapeHtml(site.summary)}</p></blockquote>${sections}${api}` });
}

function notFoundHtml(site: DocsSite): string {
  const links = site.sections.flatMap((s) => s.pages).map((p) => `<li><a href="${p.path}">${escapeHtml(p.title)}</a></li>`).join('');
  return layout(site, {
    title: 'Page not found',
    description: 'This address has no page.',
    main: `<h1>Page not found</h1><p>There is no page at this address. Try the search box above, the <a href="/">home page</a>, the <a href="/reference">API reference</a>, or one of the guides:</p><ul>${links}</ul><p>Every guide is also served as Markdown at its path followed by <code>.md</code>; <a href="/llms.txt">llms.txt</a> lists them.</p>`,
  });
}

/** Loads the guides from `root`/docs and the built reference from `root`/dist/docs; fails at start when something is missing. */
export function loadDocsContent(root: string, urls: SiteUrls): DocsContent {
  const site = loadSite(join(root, 'docs'), urls);
  const html = 'text/html; charset=utf-8';
  const served = servedContract(urls.apiBaseUrl);
  const files = new Map<string, Resource>([
    ['/llms.txt', resource(llmsTxt(site), 'text/plain; charset=utf-8')],
    ['/llms-full.txt', resource(llmsFullTxt(site), 'text/plain; charset=utf-8')],
    ['/search-index.json', resource(searchIndex(site), 'application/json; charset=utf-8')],
    ['/openapi.json', resource(served.json(readFileSync(join(root, 'src', 'generated', 'openapi.json'), 'utf8')), 'application/json; charset=utf-8')],
    ['/openapi.yaml', resource(served.yaml(readBuilt(root, 'openapi.yaml').toString('utf8')), 'application/yaml; charset=utf-8')],
    ['/assets/site.css', resource(readFileSync(join(root, 'docs', 'assets', 'site.css')), 'text/css; charset=utf-8')],
    ['/assets/search.js', resource(readFileSync(join(root, 'docs', 'assets', 'search.js')), 'text/javascript; charset=utf-8')],
  ]);
  // the home page's Markdown is the site's index (llms.txt), the reference's each operation's summary and description
  const markdownPage = (htmlResource: Resource, markdown: string): PageVariants => ({
    html: htmlResource,
    markdown: resource(markdown, 'text/markdown; charset=utf-8'),
    plain: resource(markdown, 'text/plain; charset=utf-8'),
  });
  const pages = new Map<string, PageVariants>([
    ['/', markdownPage(resource(homeHtml(site), html, PAGE_CSP), llmsTxt(site))],
    ['/reference', markdownPage(resource(served.reference(readBuilt(root, 'reference.html').toString('utf8')), html, REFERENCE_CSP), referenceMarkdown(site))],
    ...[...site.pages.values()].map((page): [string, PageVariants] => [
      page.path,
      {
        html: resource(pageHtml(site, page), html, PAGE_CSP),
        markdown: resource(page.markdown, 'text/markdown; charset=utf-8'),
        plain: resource(page.markdown, 'text/plain; charset=utf-8'),
      },
    ]),
  ]);
  return { site, files, pages, notFound: resource(notFoundHtml(site), html, PAGE_CSP) };
}
