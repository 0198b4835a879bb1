import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { renderMarkdown } from './render.js';

// The guides are Markdown files under docs/, listed in docs/site.json: each page's stable path,
// title, one-line summary and section. Everything the site serves is made once, at start.

const PAGE_PATH = /^\/guides\/[a-z0-9-]+$/;
const manifest = z.object({
  title: z.string().min(1),
  summary: z.string().min(1),
  sections: z.array(
    z.object({
      name: z.string().min(1),
      pages: z.array(
        z.object({
          path: z.string().regex(PAGE_PATH, 'must be /guides/<lowercase-name>'),
          file: z.string().min(1),
          title: z.string().min(1),
          summary: z.string().min(1),
        }),
      ),
    }),
  ),
});

/** Where the placeholders of the guides point: `{base_url}` (the API) and `{docs_url}` (this site). */
export interface SiteUrls {
  apiBaseUrl: string;
  docsBaseUrl: string;
}

export interface DocsPage {
  path: string;
  title: string;
  summary: string;
  section: string;
  /** The page as Markdown: `# Title`, the summary as a blockquote, then the guide. */
  markdown: string;
  /** The guide rendered to HTML (the title included), and its headings for the search index. */
  html: string;
  headings: string[];
}

export interface DocsSite {
  title: string;
  summary: string;
  sections: { name: string; pages: DocsPage[] }[];
  pages: Map<string, DocsPage>;
  urls: SiteUrls;
}

/** Reads docs/site.json and its pages; a missing file, a duplicate path or a bad manifest fails at start. */
export function loadSite(docsDir: string, urls: SiteUrls): DocsSite {
  const parsed = manifest.safeParse(JSON.parse(readFileSync(join(docsDir, 'site.json'), 'utf8')));
  if (!parsed.success) throw new Error(`docs/site.json is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const pages = new Map<string, DocsPage>();
  const sections = parsed.data.sections.map((section) => ({
    name: section.name,
    pages: section.pages.map((entry) => {
      if (pages.has(entry.path)) throw new Error(`docs/site.json lists ${entry.path} twice`);
      const body = fillPlaceholders(readFileSync(join(docsDir, entry.file), 'utf8'), urls).trim();
      const markdown = `# ${entry.title}\n\n> ${entry.summary}\n\n${body}\n`;
      const { html, headings } = renderMarkdown(markdown);
      const page: DocsPage = { path: entry.path, title: entry.title, summary: entry.summary, section: section.name, markdown, html, headings };
      pages.set(page.path, page);
      return page;
    }),
  }));
  return { title: parsed.data.title, summary: parsed.data.summary, sections, pages, urls };
}

export function fillPlaceholders(text: string, urls: SiteUrls): string {
  return text.replaceAll('{base_url}', urls.apiBaseUrl).replaceAll('{docs_url}', urls.docsBaseUrl);
}
