import MarkdownIt from 'markdown-it';
import type { DocsSite } from './content.js';

// Guides become HTML here: markdown-it without raw HTML (a guide cannot inject markup or script),
// each heading with an id and a link to itself, inside one layout with navigation and a search box.
// The pages carry no inline script or style, so the site's Content-Security-Policy can forbid both.

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** `Rate-limit headers` -> `rate-limit-headers`; letters of any script are kept. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\s-]/gu, '')
      .trim()
      .replace(/\s+/g, '-') || 'section'
  );
}

md.core.ruler.push('heading_ids', (state) => {
  const used = new Map<string, number>();
  state.tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const base = slug(state.tokens[i + 1]?.content ?? '');
    const n = used.get(base) ?? 0;
    used.set(base, n + 1);
    token.attrSet('id', n === 0 ? base : `${base}-${n}`);
  });
});
md.renderer.rules.heading_open = (tokens, i, options, _env, self) => {
  const id = tokens[i]!.attrGet('id') ?? '';
  return `${self.renderToken(tokens, i, options)}<a class="anchor" href="#${id}" aria-label="Link to this section">#</a> `;
};

/** The page's HTML and the text of its headings (below the title). */
export function renderMarkdown(markdown: string): { html: string; headings: string[] } {
  const tokens = md.parse(markdown, {});
  const headings = tokens.flatMap((t, i) => (t.type === 'heading_open' && t.tag !== 'h1' ? [tokens[i + 1]?.content ?? ''] : []));
  return { html: md.renderer.render(tokens, md.options, {}), headings };
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A whole HTML page of the site: header with search, navigation of every page, then `main`. */
export function layout(site: DocsSite, options: { title: string; description: string; main: string; currentPath?: string }): string {
  const nav = site.sections
    .map((section) => {
      const links = section.pages
        .map((p) => `<li><a href="${p.path}"${p.path === options.currentPath ? ' aria-current="page"' : ''}>${escapeHtml(p.title)}</a></li>`)
        .join('');
      return `<h2>${escapeHtml(section.name)}</h2><ul>${links}</ul>`;
    })
    .join('');
  const markdownLink = options.currentPath ? `<p class="source"><a href="${options.currentPath}.md">This page as Markdown</a></p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · ${escapeHtml(site.title)}</title>
<meta name="description" content="${escapeHtml(options.description)}">
<link rel="stylesheet" href="/assets/site.css">
${options.currentPath ? `<link rel="alternate" type="text/markdown" href="${options.currentPath}.md">` : ''}
<script src="/assets/search.js" defer></script>
</head>
<body>
<header>
<a class="brand" href="/">${escapeHtml(site.title)}</a>
<form class="search" role="search" action="/" method="get">
<label for="search-input">Search the docs</label>
<input id="search-input" type="search" name="q" autocomplete="off" placeholder="Search the docs">
<ul id="search-results" hidden></ul>
</form>
</header>
<div class="columns">
<nav aria-label="Guides">${nav}<h2>API</h2><ul><li><a href="/reference">API reference</a></li><li><a href="/openapi.yaml">openapi.yaml</a></li><li><a href="/openapi.json">openapi.json</a></li><li><a href="/llms.txt">llms.txt</a></li></ul></nav>
<main>${options.main}${markdownLink}</main>
</div>
</body>
</html>
`;
}
