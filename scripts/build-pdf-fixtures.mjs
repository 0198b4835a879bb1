#!/usr/bin/env node
// Prints pages of the sample curriculum's Sinhala, Tamil and English text to PDF with several
// producers, so that the PDF reader is measured on the files people actually make, not only on
// those of our own pdfkit script (which hid spaces inside words and lost vowel signs).
//
//   node scripts/build-pdf-fixtures.mjs
//
// Writes test/fixtures/pdf-producers/<language>.txt (the text, one `--- PAGE <n> ---` section per
// PDF page, one paragraph a line) and <producer>-<language>.pdf for each producer:
//   pdfkit     ours (the npm package that builds samples/curriculum/pdf)
//   chromium   Chromium's print to PDF of an HTML page (HarfBuzz shaping, Skia)
//   libreoffice  LibreOffice Writer's PDF export of the same HTML
//   pango      pango-view's PDF (cairo), one page at a time, joined by pdfunite
// chromium-justified-<language>.pdf and chromium-columns-<language>.pdf, the Sinhala and Tamil
// pages justified in a narrow measure and in two columns (LAYOUTS); chromium-hyphenated-english.pdf,
// the English ones justified with soft hyphens in long words, which Chromium shows at line ends
// as U+2010; password-protected.pdf,
// LibreOffice's English pages that open only with the password "fixture";
// <producer>-serif-tamil.pdf, the Tamil pages in Noto Serif Tamil by LibreOffice, Chromium,
// pango and Typst, whose pulli (்) readers see detached from its letter, and
// libreoffice-justified-serif-tamil.pdf, LibreOffice's justified, and libreoffice-serif-ict-tamil.pdf
// (text tamil-ict.txt), a page of another source whose byte 32 is a letter that LibreOffice's
// ToUnicode leaves out; and ghostscript-<language>.pdf,
// Chromium's Sinhala and Tamil files passed through Ghostscript's pdfwrite, which garbles their
// text layer (the reader refuses them); pango-lklug-sinhala.pdf, the Sinhala pages in LKLUG by
// pango, whose words poppler breaks where cairo places a glyph beyond its declared width, and
// chromium-columns-lklug-sinhala.pdf, Chromium's in two columns, whose drawing order (-raw) poppler
// breaks at a line where a glyph is drawn back over the one before; chromium-fallback-lklug-sinhala.pdf,
// the Sinhala pages set in DejaVu Sans, whose Sinhala falls back to LKLUG, where poppler runs a
// word ending in ා into the next, and libreoffice-fallback-lklug-sinhala.pdf, LibreOffice's, whose
// word boxes run words together over spaces drawn apart from them, and
// chromium-fallback-lklug-history-sinhala.pdf (text sinhala-history.txt), a page of another source
// in the same fonts whose text shows no sign of the words run together; and
// libreoffice-numerals-sinhala.pdf (text sinhala-numerals.txt), LibreOffice's pages of another
// Sinhala source with numerals drawn a gap apart from their suffixes (70කට).
// The PDFs are committed, so tests need none of the producers. Requirements (Debian):
//   apt-get install chromium libreoffice-writer-nogui pango1.0-tools poppler-utils fonts-noto-core fonts-lklug-sinhala fonts-dejavu-core ghostscript
// and Typst's compiler as a Python module (PyPI), for the python3 on the PATH or $TYPST_PYTHON:
//   pip install typst==0.15.2
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PDFDocument from 'pdfkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = path.join(ROOT, 'samples', 'curriculum', 'src');
const OUT = path.join(ROOT, 'test', 'fixtures', 'pdf-producers');
const FONTS = '/usr/share/fonts/truetype/noto';
const FIXED_DATE = new Date('2025-01-01T00:00:00Z');

// A few pages of prose per language, from sources that have no PDF among the samples yet.
const LANGUAGES = {
  sinhala: { source: 'grade9-geography-monsoons-si.md', pages: [1, 2, 3], lang: 'si', font: 'NotoSansSinhala-Regular.ttf', family: 'Noto Sans Sinhala' },
  tamil: { source: 'grade6-geography-rivers-ta.md', pages: [1, 2, 3], lang: 'ta', font: 'NotoSansTamil-Regular.ttf', family: 'Noto Sans Tamil' },
  english: { source: 'grade9-geography-climate-of-sri-lanka.md', pages: [1, 2], lang: 'en', font: 'NotoSans-Regular.ttf', family: 'Noto Sans' },
};

/** The paragraphs of each chosen page, Markdown marks removed (headings, list bullets, emphasis). */
function pagesOf({ source, pages }) {
  const text = readFileSync(path.join(SOURCES, source), 'utf8');
  const sections = text.split(/^--- PAGE \d+ ---$/m).slice(1);
  return pages.map((n) =>
    sections[n - 1]
      .split('\n')
      .map((line) => line.replace(/^#+\s*|^[-*]\s+/, '').replaceAll('**', '').trim())
      .filter((line) => line !== ''),
  );
}

const escapeHtml = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

// Layouts that pdftotext's default reading order gets wrong in Tamil and Sinhala (each page's
// paragraphs in a block of this style): justified narrow lines, whose wide gaps between long
// words read as columns, and two columns, whose paragraphs it interleaves.
const LAYOUTS = {
  justified: 'text-align: justify; width: 9cm',
  columns: 'column-count: 2; column-gap: 0.6cm',
};

/** `family` is a font's name, or names in order (a document's Latin font first, its fallback for the script next). */
function html(pages, { lang, family }, layout) {
  const body = pages
    .map((paragraphs, i) => {
      // LibreOffice reads page-break-before; Chromium both
      const breakBefore = i === 0 ? '' : 'page-break-before: always; break-before: page';
      const text = paragraphs.map((p, j) => `<p${j === 0 && !layout && breakBefore ? ` style="${breakBefore}"` : ''}>${escapeHtml(p)}</p>`).join('\n');
      return layout ? `<div style="${[breakBefore, layout].filter(Boolean).join('; ')}">\n${text}\n</div>` : text;
    })
    .join('\n');
  return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>fixture</title>
<style>@page { size: A4; margin: 2cm } body { font-family: ${[family, 'Noto Sans'].flat().map((name) => `'${name}'`).join(', ')}; font-size: 11pt }</style>
</head><body>
${body}
</body></html>
`;
}

function run(command, args, { quiet = false } = {}) {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', quiet ? 'ignore' : 'inherit'], timeout: 120_000 });
}

function pdfkit(pages, { font }, out) {
  const doc = new PDFDocument({ size: 'A4', margin: 56, autoFirstPage: false, info: { CreationDate: FIXED_DATE, ModDate: FIXED_DATE } });
  const done = new Promise((resolve, reject) => doc.pipe(createWriteStream(out)).on('finish', resolve).on('error', reject));
  for (const paragraphs of pages) {
    doc.addPage();
    doc.font(path.join(FONTS, font)).fontSize(10.5);
    for (const p of paragraphs) doc.text(p, { paragraphGap: 6 });
  }
  doc.end();
  return done;
}

function chromium(htmlFile, out) {
  run('chromium', [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--no-pdf-header-footer',
    `--print-to-pdf=${out}`,
    htmlFile,
  ], { quiet: true }); // it logs its missing D-Bus at length
}

function libreoffice(htmlFile, out, work, filter = 'pdf:writer_pdf_Export') {
  const dir = path.join(work, 'lo-out');
  run('soffice', [
    `-env:UserInstallation=file://${work}/lo-profile`,
    '--headless',
    '--infilter=HTML (StarWriter)',
    '--convert-to',
    filter,
    '--outdir',
    dir,
    htmlFile,
  ]);
  writeFileSync(out, readFileSync(path.join(dir, path.basename(htmlFile).replace(/\.html$/, '.pdf'))));
}

/** Pages of another source than the language's: their text written as `textName` beside the PDFs, and the HTML file the producers print. */
function otherSource(spec, textName, work) {
  const pages = pagesOf(spec);
  writeFileSync(path.join(OUT, textName), pages.map((p, i) => `--- PAGE ${i + 1} ---\n${p.join('\n')}\n`).join(''));
  const htmlFile = path.join(work, textName.replace(/\.txt$/, '.html'));
  writeFileSync(htmlFile, html(pages, spec));
  return htmlFile;
}

function ghostscript(input, out) {
  run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', `-sOutputFile=${out}`, input]);
}

function pango(pages, { family }, out, work) {
  const parts = pages.map((paragraphs, i) => {
    const text = path.join(work, `pango-${i}.txt`);
    const pdf = path.join(work, `pango-${i}.pdf`);
    writeFileSync(text, paragraphs.join('\n\n') + '\n');
    // 595 points wide (A4) less 2 × 56 margin
    run('pango-view', ['-q', `--font=${family} 10.5`, '--width=483', '--margin=56', '--wrap=word', `--output=${pdf}`, text]);
    return pdf;
  });
  run('pdfunite', [...parts, out]);
}

function typst(pages, { lang, family }, out, work) {
  const source = path.join(work, 'typst.typ');
  // each paragraph a string, so that no character of the text is read as markup
  const body = pages.map((paragraphs) => paragraphs.map((p) => `#${JSON.stringify(p)}`).join('\n\n')).join('\n#pagebreak()\n');
  const settings = ['#set document(date: none)', '#set page(paper: "a4", margin: 2cm)', `#set text(font: "${family}", size: 11pt, lang: "${lang}")`];
  writeFileSync(source, `${settings.join('\n')}\n${body}\n`);
  run(process.env.TYPST_PYTHON ?? 'python3', ['-c', 'import sys, typst; typst.compile(sys.argv[1], output=sys.argv[2])', source, out]);
}

const work = mkdtempSync(path.join(tmpdir(), 'pdf-fixtures-'));
try {
  mkdirSync(OUT, { recursive: true });
  for (const [language, spec] of Object.entries(LANGUAGES)) {
    if (!existsSync(path.join(FONTS, spec.font))) throw new Error(`${spec.font} not found in ${FONTS}: apt-get install fonts-noto-core`);
    const pages = pagesOf(spec);
    writeFileSync(path.join(OUT, `${language}.txt`), pages.map((p, i) => `--- PAGE ${i + 1} ---\n${p.join('\n')}\n`).join(''));
    const htmlFile = path.join(work, `${language}.html`);
    writeFileSync(htmlFile, html(pages, spec));
    await pdfkit(pages, spec, path.join(OUT, `pdfkit-${language}.pdf`));
    chromium(htmlFile, path.join(OUT, `chromium-${language}.pdf`));
    libreoffice(htmlFile, path.join(OUT, `libreoffice-${language}.pdf`), work);
    pango(pages, spec, path.join(OUT, `pango-${language}.pdf`), work);
    console.log(`${language}: ${pages.length} pages by pdfkit, chromium, libreoffice, pango`);
    if (language === 'english') continue;
    ghostscript(path.join(OUT, `chromium-${language}.pdf`), path.join(OUT, `ghostscript-${language}.pdf`));
    console.log(`ghostscript-${language}.pdf: chromium's file through Ghostscript's pdfwrite`);
    for (const [layout, style] of Object.entries(LAYOUTS)) {
      const layoutHtml = path.join(work, `${language}-${layout}.html`);
      writeFileSync(layoutHtml, html(pages, spec, style));
      chromium(layoutHtml, path.join(OUT, `chromium-${layout}-${language}.pdf`));
      console.log(`chromium-${layout}-${language}.pdf: ${style}`);
    }
  }
  // every long word may break after each third letter (a soft hyphen), as hyphenation allows
  const softHyphens = (p) => p.replace(/[A-Za-z]{6,}/g, (word) => word.replace(/(?<=^(?:[A-Za-z]{3})+)(?=[A-Za-z]{3})/g, '\u00AD'));
  const hyphenatedHtml = path.join(work, 'english-hyphenated.html');
  writeFileSync(hyphenatedHtml, html(pagesOf(LANGUAGES.english).map((page) => page.map(softHyphens)), LANGUAGES.english, LAYOUTS.justified));
  chromium(hyphenatedHtml, path.join(OUT, 'chromium-hyphenated-english.pdf'));
  console.log('chromium-hyphenated-english.pdf: the English pages justified, long words broken at soft hyphens');
  const [tamilPages, serifTamil] = [pagesOf(LANGUAGES.tamil), { ...LANGUAGES.tamil, family: 'Noto Serif Tamil' }];
  const serifHtml = path.join(work, 'tamil-serif.html');
  writeFileSync(serifHtml, html(tamilPages, serifTamil));
  libreoffice(serifHtml, path.join(OUT, 'libreoffice-serif-tamil.pdf'), work);
  chromium(serifHtml, path.join(OUT, 'chromium-serif-tamil.pdf'));
  pango(tamilPages, serifTamil, path.join(OUT, 'pango-serif-tamil.pdf'), work);
  typst(tamilPages, serifTamil, path.join(OUT, 'typst-serif-tamil.pdf'), work);
  console.log('<producer>-serif-tamil.pdf: Tamil pages in Noto Serif Tamil by libreoffice, chromium, pango, typst');
  const lklug = { ...LANGUAGES.sinhala, family: 'LKLUG' };
  pango(pagesOf(lklug), lklug, path.join(OUT, 'pango-lklug-sinhala.pdf'), work);
  console.log('pango-lklug-sinhala.pdf: the Sinhala pages in LKLUG by pango');
  const lklugColumnsHtml = path.join(work, 'sinhala-lklug-columns.html');
  writeFileSync(lklugColumnsHtml, html(pagesOf(lklug), lklug, LAYOUTS.columns));
  chromium(lklugColumnsHtml, path.join(OUT, 'chromium-columns-lklug-sinhala.pdf'));
  console.log(`chromium-columns-lklug-sinhala.pdf: the same by chromium, ${LAYOUTS.columns}`);
  // a document set in a Latin font, whose Sinhala falls back to LKLUG (fontconfig's choice where it is installed)
  const fallback = { ...LANGUAGES.sinhala, family: ['DejaVu Sans', 'LKLUG'] };
  const fallbackHtml = path.join(work, 'sinhala-fallback-lklug.html');
  writeFileSync(fallbackHtml, html(pagesOf(fallback), fallback));
  chromium(fallbackHtml, path.join(OUT, 'chromium-fallback-lklug-sinhala.pdf'));
  console.log('chromium-fallback-lklug-sinhala.pdf: the Sinhala pages set in DejaVu Sans, falling back to LKLUG, by chromium');
  libreoffice(fallbackHtml, path.join(OUT, 'libreoffice-fallback-lklug-sinhala.pdf'), work);
  console.log('libreoffice-fallback-lklug-sinhala.pdf: the same by libreoffice');
  // a page of another source whose text shows no sign of the words run together after ා, and
  // whose word boxes reach over the next word's first letter
  const history = { ...fallback, source: 'grade10-history-polonnaruwa-si.md', pages: [3] };
  chromium(otherSource(history, 'sinhala-history.txt', work), path.join(OUT, 'chromium-fallback-lklug-history-sinhala.pdf'));
  console.log('chromium-fallback-lklug-history-sinhala.pdf: a page of another Sinhala source set in DejaVu Sans, falling back to LKLUG, by chromium');
  const serifJustifiedHtml = path.join(work, 'tamil-serif-justified.html');
  writeFileSync(serifJustifiedHtml, html(tamilPages, serifTamil, LAYOUTS.justified));
  libreoffice(serifJustifiedHtml, path.join(OUT, 'libreoffice-justified-serif-tamil.pdf'), work);
  console.log(`libreoffice-justified-serif-tamil.pdf: the same by libreoffice, ${LAYOUTS.justified}`);
  // LibreOffice leaves a glyph whose cluster's text it writes as ActualText out of the subset's
  // ToUnicode, and numbers the subset's glyphs from 1: on this page byte 32 draws such a letter,
  // which pdf.js gives the byte's own character, a space
  const ict = { ...serifTamil, source: 'grade11-ict-model-paper-ta.md', pages: [3] };
  libreoffice(otherSource(ict, 'tamil-ict.txt', work), path.join(OUT, 'libreoffice-serif-ict-tamil.pdf'), work);
  console.log('libreoffice-serif-ict-tamil.pdf: a page of another Tamil source in Noto Serif Tamil by libreoffice, whose byte 32 is a letter the ToUnicode leaves out');
  // LibreOffice sets a numeral in the Latin font and the suffix after it in the Sinhala font, a
  // gap apart with no space drawn (සියයට 70කට), where poppler parts the words
  const numerals = { ...LANGUAGES.sinhala, source: 'grade7-science-water-cycle-si.md', pages: [1, 4] };
  libreoffice(otherSource(numerals, 'sinhala-numerals.txt', work), path.join(OUT, 'libreoffice-numerals-sinhala.pdf'), work);
  console.log('libreoffice-numerals-sinhala.pdf: pages of another Sinhala source by libreoffice, whose numerals are drawn apart from their suffixes');
  // a file that opens only with a password, for the refusal that says so
  const encrypt = { EncryptFile: { type: 'boolean', value: 'true' }, DocumentOpenPassword: { type: 'string', value: 'fixture' } };
  libreoffice(path.join(work, 'english.html'), path.join(OUT, 'password-protected.pdf'), work, `pdf:writer_pdf_Export:${JSON.stringify(encrypt)}`);
  console.log('password-protected.pdf: English pages by libreoffice, password "fixture"');
} finally {
  rmSync(work, { recursive: true, force: true });
}
