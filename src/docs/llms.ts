import type { DocsSite } from './content.js';

// The site for programs (llmstxt.org convention): /llms.txt is the index, /llms-full.txt every page.

/** H1 title, blockquote summary, then one H2 per section of `- [Title](url): summary` links to the Markdown copies. */
export function llmsTxt(site: DocsSite): string {
  const base = site.urls.docsBaseUrl;
  const sections = site.sections.map(
    (section) => `## ${section.name}\n\n${section.pages.map((p) => `- [${p.title}](${base}${p.path}.md): ${p.summary}`).join('\n')}`,
  );
  const reference = [
    '## API reference',
    '',
    `- [OpenAPI description (YAML)](${base}/openapi.yaml): the contract of the API, OpenAPI 3.1, bundled into one document`,
    `- [OpenAPI description (JSON)](${base}/openapi.json): the same contract as JSON`,
    `- [API reference](${base}/reference): every operation, parameter, response and error, as one HTML page`,
  ].join('\n');
  return `# ${site.title}\n\n> ${site.summary}\n\nEvery page is also served as Markdown at its path followed by .md; ${base}/llms-full.txt holds them all in one file.\n\n${[...sections, reference].join('\n\n')}\n`;
}

/** Every page, in site order; each starts with `# Title` and `Source: <absolute URL>`. */
export function llmsFullTxt(site: DocsSite): string {
  return site.sections
    .flatMap((s) => s.pages)
    .map((p) => `# ${p.title}\n\nSource: ${site.urls.docsBaseUrl}${p.path}\n\n${p.markdown.replace(/^# .*\n+/, '')}`)
    .join('\n\n');
}

/**
 * Markup the search index drops from a page's text, and docs/assets/search.js from a query (keep
 * the two alike): Markdown's punctuation, and `_` or `-` that do not join two letters or digits
 * (rules, list items, emphasis). A `_` or `-` inside a word stays, so that error codes and header
 * names (`rate_limit_exceeded`, `X-API-Key`) are found as they are typed.
 */
export const SEARCH_MARKUP = /[#>*`|[\]()]+|(?<![\p{L}\p{M}\p{N}])[_-]+|[_-]+(?![\p{L}\p{M}\p{N}])/gu;

/** What the offline search box reads: per page its path, title, summary, headings and text. */
export function searchIndex(site: DocsSite): string {
  const entries = [...site.pages.values()].map((p) => ({
    path: p.path,
    title: p.title,
    summary: p.summary,
    headings: p.headings,
    // plain words only: code fences and markup add weight without helping a reader find a page
    text: p.markdown
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(SEARCH_MARKUP, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
  return JSON.stringify(entries);
}
