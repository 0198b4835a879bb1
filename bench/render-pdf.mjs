// Renders the benchmark's generated pages into one PDF, a page each (pdfkit has no TypeScript
// types, so this small step stays JavaScript, like scripts/build-sample-pdfs.mjs).
//   node bench/render-pdf.mjs pages.json out.pdf     pages.json: [{"text": "...", "font": path or null}]
import { createWriteStream, readFileSync } from 'node:fs';
import PDFDocument from 'pdfkit';

const [input, output] = process.argv.slice(2);
const pages = JSON.parse(readFileSync(input, 'utf8'));
const doc = new PDFDocument({ size: 'A4', margin: 56, autoFirstPage: false, info: { CreationDate: new Date('2025-01-01T00:00:00Z') } });
const done = new Promise((resolve, reject) => doc.pipe(createWriteStream(output)).on('finish', resolve).on('error', reject));
for (const page of pages) {
  doc.addPage();
  doc.font(page.font ?? 'Helvetica').fontSize(9).text(page.text, { width: 483, height: 730 });
}
doc.end();
await done;
