import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PDFDocument from 'pdfkit';
import { launchBrowser } from './browser.js';
import { runProcess } from './processes.js';

// Texts printed to PDF at test time by the producers people make documents with, the four that
// scripts/build-pdf-fixtures.mjs uses for the committed fixtures (Debian's Noto fonts): Chromium's
// print to PDF (playwright-core driving Debian's chromium), LibreOffice Writer's PDF export
// (`soffice --headless --convert-to pdf`), pdfkit (ours) and pango/cairo (`pango-view`). The
// quality tests print the public QA sets this way: their licences allow evaluation, not
// redistribution, so these PDFs are kept in memory only. Each call prints a whole batch with
// one browser or one LibreOffice run.

export const PRODUCERS = ['chromium', 'libreoffice', 'pdfkit', 'pango'] as const;
export type Producer = (typeof PRODUCERS)[number];
export const PRODUCER_NAMES: Record<Producer, string> = { chromium: 'Chromium', libreoffice: 'LibreOffice', pdfkit: 'pdfkit', pango: 'pango' };

const NOTO = '/usr/share/fonts/truetype/noto';
const FONTS: Record<string, { family: string; file: string }> = {
  english: { family: 'Noto Sans', file: `${NOTO}/NotoSans-Regular.ttf` },
  sinhala: { family: 'Noto Sans Sinhala', file: `${NOTO}/NotoSansSinhala-Regular.ttf` },
  tamil: { family: 'Noto Sans Tamil', file: `${NOTO}/NotoSansTamil-Regular.ttf` },
};
/** Every LibreOffice and pango-view run together may take this long on a busy 2-core machine. */
const BATCH_DEADLINE_MS = 600_000;

function fontOf(language: string): { family: string; file: string } {
  const font = FONTS[language];
  if (!font) throw new Error(`no font for ${language}`);
  // without it the producers draw boxes (or fall back to a font without the script), and the PDF would measure nothing
  if (!existsSync(font.file)) throw new Error(`${font.file} is missing: apt-get install fonts-noto-core (scripts/setup.sh --browser does)`);
  return font;
}

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** One paragraph on an A4 page with 2 cm margins, 11 pt, in the language's Noto font. */
function html(text: string, family: string): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><style>@page { size: A4; margin: 2cm } body { font-family: '${family}', 'Noto Sans'; font-size: 11pt }</style></head>` +
    `<body><p>${escapeHtml(text)}</p></body></html>`
  );
}

/** Each text (one paragraph, in `language`) as a PDF made by `producer`, in the order given. */
export async function printTexts(producer: Producer, language: string, texts: string[]): Promise<Uint8Array[]> {
  const font = fontOf(language);
  switch (producer) {
    case 'chromium':
      return chromium(texts, font.family);
    case 'libreoffice':
      return inTemporaryFolder((dir) => libreoffice(dir, texts, font.family));
    case 'pdfkit':
      return Promise.all(texts.map((text) => pdfkit(text, font.file)));
    case 'pango':
      return inTemporaryFolder((dir) => pango(dir, texts, font.family));
  }
}

async function inTemporaryFolder<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'printed-pdfs-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function chromium(texts: string[], family: string): Promise<Uint8Array[]> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const pdfs: Uint8Array[] = [];
    for (const text of texts) {
      await page.setContent(html(text, family));
      pdfs.push(new Uint8Array(await page.pdf({ format: 'A4', margin: { top: '2cm', bottom: '2cm', left: '2cm', right: '2cm' } })));
    }
    return pdfs;
  } finally {
    await browser.close();
  }
}

/** One soffice run converts the whole batch (its start-up is the slow part), with a profile of its own. */
async function libreoffice(dir: string, texts: string[], family: string): Promise<Uint8Array[]> {
  const files = await Promise.all(
    texts.map(async (text, i) => {
      const file = join(dir, `${i}.html`);
      await writeFile(file, html(text, family));
      return file;
    }),
  );
  const out = join(dir, 'pdf');
  const args = [`-env:UserInstallation=file://${dir}/profile`, '--headless', '--infilter=HTML (StarWriter)', '--convert-to', 'pdf:writer_pdf_Export', '--outdir', out, ...files];
  const run = await runProcess('soffice', args, { env: process.env, deadlineMs: BATCH_DEADLINE_MS });
  if (run.status !== 0) throw new Error(`soffice failed (${run.status}): ${run.stderr}`);
  return Promise.all(texts.map(async (_, i) => new Uint8Array(await readFile(join(out, `${i}.pdf`)))));
}

function pdfkit(text: string, fontFile: string): Promise<Uint8Array> {
  // 56 points (2 cm) margins and the sample curriculum's 10.5 pt
  const doc = new PDFDocument({ size: 'A4', margin: 56 });
  const parts: Buffer[] = [];
  doc.on('data', (part) => parts.push(part));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(parts))));
    doc.on('error', reject);
  });
  doc.font(fontFile).fontSize(10.5).text(text);
  doc.end();
  return done;
}

/** pango-view draws a text on a page as tall as it needs: 483 points wide (A4 less the margins). */
async function pango(dir: string, texts: string[], family: string): Promise<Uint8Array[]> {
  const pdfs: Uint8Array[] = [];
  const deadline = Date.now() + BATCH_DEADLINE_MS;
  for (const [i, text] of texts.entries()) {
    const input = join(dir, `${i}.txt`);
    const output = join(dir, `${i}.pdf`);
    await writeFile(input, `${text}\n`);
    const run = await runProcess('pango-view', ['-q', `--font=${family} 10.5`, '--width=483', '--margin=56', '--wrap=word', `--output=${output}`, input], {
      env: process.env,
      deadlineMs: Math.max(1_000, deadline - Date.now()),
    });
    if (run.status !== 0) throw new Error(`pango-view failed (${run.status}): ${run.stderr}`);
    pdfs.push(new Uint8Array(await readFile(output)));
  }
  return pdfs;
}
