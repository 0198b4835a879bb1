// Offline search of the documentation: loads /search-index.json once (a few tens of kilobytes)
// and ranks pages by where the typed words occur (title, headings, summary, text).
(() => {
  const input = document.getElementById('search-input');
  const list = document.getElementById('search-results');
  if (!input || !list) return;
  let index = null;

  async function load() {
    if (!index) {
      const response = await fetch('/search-index.json');
      index = await response.json();
    }
    return index;
  }

  function score(page, words) {
    let total = 0;
    for (const word of words) {
      const inTitle = page.title.toLowerCase().includes(word) ? 10 : 0;
      const inHeadings = page.headings.some((h) => h.toLowerCase().includes(word)) ? 5 : 0;
      const inSummary = page.summary.toLowerCase().includes(word) ? 3 : 0;
      const inText = page.text.toLowerCase().includes(word) ? 1 : 0;
      const best = inTitle + inHeadings + inSummary + inText;
      if (best === 0) return 0; // every word must occur somewhere
      total += best;
    }
    return total;
  }

  function show(results) {
    list.replaceChildren(
      ...results.map((page) => {
        const item = document.createElement('li');
        const link = document.createElement('a');
        link.href = page.path;
        link.textContent = page.title;
        const summary = document.createElement('span');
        summary.textContent = page.summary;
        item.append(link, summary);
        return item;
      }),
    );
    if (results.length === 0 && input.value.trim()) {
      const item = document.createElement('li');
      item.textContent = 'No page matches.';
      list.append(item);
    }
    list.hidden = !input.value.trim();
  }

  // the markup the index dropped from the pages' text (SEARCH_MARKUP in src/docs/llms.ts): a pasted
  // `rate_limit_exceeded` (backticks) still matches; `_` and `-` inside a word are kept, as in the index
  const MARKUP = /[#>*`|[\]()]+|(?<![\p{L}\p{M}\p{N}])[_-]+|[_-]+(?![\p{L}\p{M}\p{N}])/gu;

  input.addEventListener('input', async () => {
    const words = input.value.toLowerCase().replace(MARKUP, ' ').split(/\s+/).filter(Boolean);
    if (words.length === 0) return show([]);
    const pages = await load();
    const ranked = pages
      .map((page) => ({ page, score: score(page, words) }))
      .filter((r) => r.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 8)
      .map((r) => r.page);
    show(ranked);
  });
  // the form works without script too (it reloads the home page); with script it never submits
  input.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const first = list.querySelector('a');
    if (first) location.href = first.href;
  });
})();
