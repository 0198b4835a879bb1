#!/usr/bin/env node
// Builds the PDF files of the sample curriculum from their Markdown sources.
//
//   node scripts/build-sample-pdfs.mjs            build every PDF listed in the manifest
//   node scripts/build-sample-pdfs.mjs SLUG ...   build only these documents
//   node scripts/build-sample-pdfs.mjs --check    build in memory, compare with the committed
//                                                 files, exit 1 when any differs
//
// Every manifest entry whose `file` is `pdf/<slug>.pdf` is built from `src/<slug>.md`
// (paths relative to samples/curriculum/). Each `--- PAGE <n> ---` section of the source
// becomes exactly one PDF page: the font size of a page is reduced until the page fits, and
// the script fails if the page count of a PDF differs from the number of sections.
//
// The entry's `producer` says what prints it, so that the samples are made the way people's
// documents are: `pdfkit` (the default: this script draws the pages itself), `chromium`
// (Chromium's print to PDF of an HTML rendering of the source: HarfBuzz shaping, the way many
// documents are made today) or `libreoffice` (LibreOffice Writer's PDF export of the same HTML).
// The Sinhala samples are printed by Chromium: pdfkit draws ැ after some consonants with the
// glyph of ු and writes ු into the file's text, so no reader could get those words right.
//
// Requirements (Debian/Ubuntu):
// - pdfkit, pinned in package.json (devDependencies).
// - Noto fonts that cover Sinhala and Tamil (apt-get install fonts-noto-core), looked up in
//   /usr/share/fonts/truetype/noto, or in the folder named by FONT_DIR.
// - for the `chromium` and `libreoffice` entries: apt-get install chromium libreoffice-writer-nogui
//   poppler-utils (pdfinfo counts the pages, pdftotext compares them in --check).
// The committed PDFs are what ingestion reads: serving the samples needs none of these.
//
// pdfkit's output is deterministic: fixed dates and document ids derived from the metadata, so
// the same sources and the same font files give the same bytes. Chromium and LibreOffice stamp
// each file with the time it was made, so --check compares their text, page by page, instead.

import { readFile, writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.join(ROOT, 'samples', 'curriculum');
const MANIFEST = path.join(CORPUS, 'manifest.json');
const FIXED_DATE = new Date('2025-01-01T00:00:00Z');
const PAGE_MARKER = /^--- PAGE (\d+) ---$/;

const DEFAULT_FONT_DIRS = ['/usr/share/fonts/truetype/noto', '/usr/share/fonts/noto'];
const FONT_FILES = {
  latin: ['NotoSans-Regular.ttf', 'NotoSans-Bold.ttf'],
  sinhala: ['NotoSansSinhala-Regular.ttf', 'NotoSansSinhala-Bold.ttf'],
  tamil: ['NotoSansTamil-Regular.ttf', 'NotoSansTamil-Bold.ttf'],
};
// Symbols that Noto Sans lacks (−, →, √, ≈, ∪, ∩) come from Noto Sans Math when it is present.
const OPTIONAL_FONT_FILES = {
  math: ['NotoSansMath-Regular.ttf', 'NotoSansMath-Regular.ttf'],
};

// Page layout (points). A4 with 2 cm margins.
const PAGE = { size: 'A4', margin: 56 };
const BASE_SIZES = [11, 10.5, 10, 9.5, 9, 8.5, 8, 7.5, 7];

function fail(message) {
  console.error(`build-sample-pdfs: ${message}`);
  process.exit(1);
}

function findFonts() {
  const dirs = process.env.FONT_DIR ? [process.env.FONT_DIR] : DEFAULT_FONT_DIRS;
  const fonts = {};
  const missing = [];
  for (const [script, [regular, bold]] of Object.entries(FONT_FILES)) {
    const dir = dirs.find((d) => existsSync(path.join(d, regular)));
    if (!dir) {
      missing.push(regular);
      continue;
    }
    const boldPath = path.join(dir, bold);
    fonts[script] = {
      regular: path.join(dir, regular),
      bold: existsSync(boldPath) ? boldPath : path.join(dir, regular),
    };
  }
  for (const [script, [regular]] of Object.entries(OPTIONAL_FONT_FILES)) {
    const dir = dirs.find((d) => existsSync(path.join(d, regular)));
    if (dir) fonts[script] = { regular: path.join(dir, regular), bold: path.join(dir, regular) };
    else console.warn(`build-sample-pdfs: ${regular} not found; symbols such as → and − may not render`);
  }
  if (missing.length > 0) {
    fail(
      `font file(s) not found: ${missing.join(', ')} (looked in ${dirs.join(', ')}).\n` +
        '  On Debian/Ubuntu install them with:\n' +
        '    apt-get update && apt-get install -y fonts-noto-core\n' +
        '  or set FONT_DIR to a folder that holds NotoSans-Regular.ttf, NotoSansSinhala-Regular.ttf\n' +
        '  and NotoSansTamil-Regular.ttf (Bold variants optional).',
    );
  }
  return fonts;
}

// ---------------------------------------------------------------------------------------------
// Source parsing: a tiny Markdown subset (headings, paragraphs, "- " and "1. " lists).

function parsePages(source, file) {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  if (!PAGE_MARKER.test(lines[0] ?? '') || lines[0] !== '--- PAGE 1 ---') {
    fail(`${file}: the first line must be "--- PAGE 1 ---"`);
  }
  const pages = [];
  let current = null;
  for (const line of lines) {
    const m = PAGE_MARKER.exec(line);
    if (m) {
      const n = Number(m[1]);
      if (n !== pages.length + 1) fail(`${file}: expected page ${pages.length + 1}, found ${n}`);
      current = [];
      pages.push(current);
    } else {
      current.push(line);
    }
  }
  return pages.map((pageLines) => parseBlocks(pageLines));
}

function parseBlocks(lines) {
  const blocks = [];
  let para = null;
  const flush = () => {
    if (para) blocks.push({ type: 'p', text: para.join(' ') });
    para = null;
  };
  for (const raw of lines) {
    const line = raw.trim();
    let m;
    if (line === '') {
      flush();
    } else if ((m = /^(#{1,3})\s+(.*)$/.exec(line))) {
      flush();
      blocks.push({ type: `h${m[1].length}`, text: m[2] });
    } else if ((m = /^[-*]\s+(.*)$/.exec(line))) {
      flush();
      blocks.push({ type: 'li', marker: '•', text: m[1] });
    } else if ((m = /^(\d+[.)])\s+(.*)$/.exec(line))) {
      flush();
      blocks.push({ type: 'li', marker: m[1], text: m[2] });
    } else if (para === null && blocks.length > 0 && blocks.at(-1).type === 'li' && /^\s{2,}/.test(raw)) {
      blocks.at(-1).text += ` ${line}`; // continuation line of a list item
    } else {
      (para ??= []).push(line);
    }
  }
  flush();
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// Script runs: Sinhala and Tamil letters need their own fonts; spaces, digits and punctuation
// stay in the run they are in when its font has them, so shaping is not cut inside a word.

function scriptOf(cp) {
  if (cp >= 0x0d80 && cp <= 0x0dff) return 'sinhala';
  if (cp >= 0x0b80 && cp <= 0x0bff) return 'tamil';
  if (cp === 0x200c || cp === 0x200d) return null; // ZWNJ / ZWJ: joins within a word
  if (/[\p{L}\p{M}]/u.test(String.fromCodePoint(cp))) return 'latin';
  return null; // neutral: whitespace, digits, punctuation, symbols
}

function splitRuns(text, hasGlyph) {
  const chars = [...text];
  const strong = chars.map((ch) => scriptOf(ch.codePointAt(0)));
  // A neutral character inside a word (digits in "6CO2", a bracket after a Tamil word) takes the
  // script of the nearest letter of the same word: before it, else after it.
  const wordScript = (i) => {
    for (let j = i - 1; j >= 0 && !/\s/.test(chars[j]); j--) if (strong[j]) return strong[j];
    for (let j = i + 1; j < chars.length && !/\s/.test(chars[j]); j++) if (strong[j]) return strong[j];
    return null;
  };
  const runs = [];
  chars.forEach((ch, i) => {
    const cp = ch.codePointAt(0);
    const last = runs.at(-1);
    let script = strong[i];
    if (script === null) {
      const preferred = /\s/.test(ch) ? last?.script : (wordScript(i) ?? last?.script);
      if (preferred && hasGlyph(preferred, cp)) script = preferred;
    }
    if (script === null || (script === 'latin' && !hasGlyph('latin', cp))) {
      script = ['latin', 'math'].find((s) => hasGlyph(s, cp)) ?? 'latin';
    }
    if (last && last.script === script) last.text += ch;
    else runs.push({ script, text: ch });
  });
  return runs;
}

// ---------------------------------------------------------------------------------------------
// Rendering

const STYLE = {
  h1: { scale: 1.55, bold: true, before: 0, after: 0.5 },
  h2: { scale: 1.25, bold: true, before: 0.5, after: 0.3 },
  h3: { scale: 1.1, bold: true, before: 0.4, after: 0.2 },
  p: { scale: 1, bold: false, before: 0, after: 0.5 },
  li: { scale: 1, bold: false, before: 0, after: 0.25 },
};

function makeDoc(PDFDocument, meta) {
  return new PDFDocument({
    size: PAGE.size,
    margin: PAGE.margin,
    autoFirstPage: false,
    compress: true,
    pdfVersion: '1.7',
    lang: meta.lang,
    displayTitle: true,
    info: {
      Title: meta.title,
      Author: 'Sample curriculum corpus (original material written for this project)',
      Subject: meta.subject,
      Keywords: meta.keywords,
      Creator: 'scripts/build-sample-pdfs.mjs',
      Producer: 'PDFKit',
      CreationDate: FIXED_DATE,
      ModDate: FIXED_DATE,
    },
  });
}

function renderPage(doc, fonts, blocks, base) {
  doc.addPage();
  const left = doc.page.margins.left;
  const fullWidth = doc.page.width - doc.page.margins.left - doc.page.margins.right;
  const fontCache = new Map();
  const fontFor = (script, bold) => fonts[script][bold ? 'bold' : 'regular'];
  const hasGlyph = (script, cp) => {
    if (!fonts[script]) return false;
    const key = `${script}:${cp}`;
    if (!fontCache.has(key)) {
      doc.font(fontFor(script, false));
      const fk = doc._font?.font;
      fontCache.set(key, fk?.hasGlyphForCodePoint ? fk.hasGlyphForCodePoint(cp) : /[\s\d.,;:!?()\-'"%/=+×÷]/.test(String.fromCodePoint(cp)));
    }
    return fontCache.get(key);
  };

  blocks.forEach((block, i) => {
    const style = STYLE[block.type];
    const size = base * style.scale;
    if (i > 0 && style.before) doc.moveDown(style.before);
    let indent = 0;
    let text = block.text;
    if (block.type === 'li') {
      indent = 14;
      text = `${block.marker} ${text}`;
    }
    const runs = splitRuns(text, hasGlyph);
    doc.x = left + indent;
    runs.forEach((run, k) => {
      doc.font(fontFor(run.script, style.bold)).fontSize(size);
      const options = { continued: k < runs.length - 1, lineGap: size * 0.25 };
      if (k === 0) doc.text(run.text, left + indent, doc.y, { ...options, width: fullWidth - indent });
      else doc.text(run.text, options);
    });
    doc.x = left;
    doc.moveDown(style.after);
  });
}

function pageFits(PDFDocument, fonts, blocks, base) {
  const scratch = makeDoc(PDFDocument, { lang: 'en', title: 'scratch', subject: '', keywords: '' });
  let pages = 0;
  scratch.on('pageAdded', () => pages++);
  renderPage(scratch, fonts, blocks, base);
  return pages === 1;
}

async function buildOne(PDFDocument, fonts, entry, work) {
  const slug = path.basename(entry.file, '.pdf');
  const srcFile = path.join('src', `${slug}.md`);
  const source = (await readFile(path.join(CORPUS, srcFile), 'utf8')).normalize('NFC');
  const pages = parsePages(source, srcFile);
  const producer = entry.producer ?? 'pdfkit';
  if (producer !== 'pdfkit') return { slug, producer, ...(await buildPrinted(producer, pages, entry, srcFile, work)) };
  const title = pages[0].find((b) => b.type === 'h1')?.text ?? slug;
  const md = entry.metadata ?? {};
  const meta = {
    lang: { english: 'en', sinhala: 'si', tamil: 'ta' }[md.language] ?? 'en',
    title,
    subject: [md.subject, md.grade && `Grade ${md.grade}`, md.category, md.year].filter(Boolean).join(', '),
    keywords: [md.subject, md.category, md.language, md.year].filter(Boolean).join(', '),
  };

  const sizes = pages.map((blocks, i) => {
    const size = BASE_SIZES.find((s) => pageFits(PDFDocument, fonts, blocks, s));
    if (size === undefined) fail(`${srcFile}: page ${i + 1} does not fit on one PDF page even at ${BASE_SIZES.at(-1)} pt; shorten it`);
    return size;
  });

  const doc = makeDoc(PDFDocument, meta);
  let pageCount = 0;
  doc.on('pageAdded', () => pageCount++);
  const chunks = [];
  doc.on('data', (c) => chunks.push(c));
  const done = new Promise((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  pages.forEach((blocks, i) => renderPage(doc, fonts, blocks, sizes[i]));
  doc.end();
  await done;
  if (pageCount !== pages.length) {
    fail(`${srcFile}: produced ${pageCount} PDF pages for ${pages.length} source pages`);
  }
  return { slug, producer, bytes: Buffer.concat(chunks), pages: pages.length, sizes };
}

// ---------------------------------------------------------------------------------------------
// Printing by Chromium or LibreOffice: the source as HTML, one source page per printed page.

const LANG = { english: 'en', sinhala: 'si', tamil: 'ta' };
const FAMILY = { english: 'Noto Sans', sinhala: 'Noto Sans Sinhala', tamil: 'Noto Sans Tamil' };
const escapeHtml = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** HTML of the pages, each page's text at its own size (inline, which LibreOffice's import keeps). */
function htmlOf(pages, sizes, language, title) {
  const body = pages.map((blocks, i) => {
    // LibreOffice reads page-break-before; Chromium both
    const breakBefore = i === 0 ? '' : 'page-break-before: always; break-before: page; ';
    return blocks
      .map((block, j) => {
        const style = STYLE[block.type];
        const css = `${j === 0 ? breakBefore : ''}font-size: ${(sizes[i] * style.scale).toFixed(2)}pt; margin: ${style.before}em 0 ${style.after}em 0`;
        const tag = block.type === 'li' ? 'p' : block.type;
        const text = block.type === 'li' ? `${block.marker} ${block.text}` : block.text;
        return `<${tag} style="${css}">${escapeHtml(text)}</${tag}>`;
      })
      .join('\n');
  });
  return `<!DOCTYPE html><html lang="${LANG[language] ?? 'en'}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>@page { size: A4; margin: 2cm } body { font-family: '${FAMILY[language] ?? 'Noto Sans'}', 'Noto Sans', 'Noto Sans Math'; line-height: 1.3 }</style>
</head><body>
${body.join('\n')}
</body></html>
`;
}

function run(command, args) {
  // Chromium logs its missing D-Bus at length: its output is shown only when it fails
  return execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 }).toString();
}

async function print(producer, html, work) {
  const htmlFile = path.join(work, 'page.html');
  await writeFile(htmlFile, html);
  const out = path.join(work, 'page.pdf');
  if (producer === 'chromium') {
    run('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-pdf-header-footer', `--print-to-pdf=${out}`, htmlFile]);
  } else if (producer === 'libreoffice') {
    run('soffice', [`-env:UserInstallation=file://${work}/lo-profile`, '--headless', '--infilter=HTML (StarWriter)', '--convert-to', 'pdf:writer_pdf_Export', '--outdir', work, htmlFile]);
  } else {
    fail(`unknown producer '${producer}' (pdfkit, chromium or libreoffice)`);
  }
  return readFile(out);
}

function pageCount(pdf) {
  return Number(/^Pages:\s+(\d+)$/m.exec(run('pdfinfo', [pdf]))?.[1]);
}

async function buildPrinted(producer, pages, entry, srcFile, work) {
  const language = entry.metadata?.language;
  const title = pages[0].find((b) => b.type === 'h1')?.text ?? entry.name;
  const onePage = path.join(work, 'one.pdf');
  const sizes = [];
  for (const [i, blocks] of pages.entries()) {
    let fitted;
    for (const size of BASE_SIZES) {
      await writeFile(onePage, await print(producer, htmlOf([blocks], [size], language, title), work));
      if (pageCount(onePage) === 1) {
        fitted = size;
        break;
      }
    }
    if (fitted === undefined) fail(`${srcFile}: page ${i + 1} does not fit on one ${producer} page even at ${BASE_SIZES.at(-1)} pt; shorten it`);
    sizes.push(fitted);
  }
  const bytes = await print(producer, htmlOf(pages, sizes, language, title), work);
  await writeFile(onePage, bytes);
  const count = pageCount(onePage);
  if (count !== pages.length) fail(`${srcFile}: ${producer} printed ${count} pages for ${pages.length} source pages`);
  return { bytes, pages: pages.length, sizes };
}

/** The text of a PDF, page by page, as poppler reads it: what --check compares for printed files. */
async function textOf(bytes, work) {
  const file = path.join(work, 'check.pdf');
  await writeFile(file, bytes);
  return run('pdftotext', ['-enc', 'UTF-8', file, '-']);
}

async function main() {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const only = new Set(args.filter((a) => !a.startsWith('--')));
  const manifest = JSON.parse(await readFile(MANIFEST, 'utf8'));
  const entries = manifest.filter((e) => /^pdf\/[^/]+\.pdf$/.test(e.file));
  const selected = only.size ? entries.filter((e) => only.has(path.basename(e.file, '.pdf'))) : entries;
  if (only.size && selected.length !== only.size) fail(`unknown slug among: ${[...only].join(', ')}`);

  const fonts = findFonts();
  await mkdir(path.join(CORPUS, 'pdf'), { recursive: true });
  const work = await mkdtemp(path.join(tmpdir(), 'sample-pdfs-'));

  let stale = 0;
  try {
    for (const entry of selected) {
      const { producer, bytes, pages, sizes } = await buildOne(PDFDocument, fonts, entry, work);
      const out = path.join(CORPUS, entry.file);
      const note = `${producer}, ${pages} pages, font ${[...new Set(sizes)].join('/')} pt, ${bytes.length} bytes`;
      if (check) {
        const old = existsSync(out) ? await readFile(out) : null;
        const same = old !== null && (producer === 'pdfkit' ? Buffer.compare(old, bytes) === 0 : (await textOf(old, work)) === (await textOf(bytes, work)));
        if (!same) stale++;
        console.log(`${same ? 'up to date' : 'DIFFERS   '} ${entry.file} (${note})`);
      } else {
        await writeFile(out, bytes);
        console.log(`wrote ${path.relative(ROOT, out)} (${note})`);
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (check && stale > 0) fail(`${stale} PDF(s) differ from their sources; run node scripts/build-sample-pdfs.mjs`);
}

await main();
