import { deflateSync } from 'node:zlib';

// PDFs built byte by byte for tests: ordinary ones, and the hostile shapes the service must
// survive (each made deterministically, so a test fails the same way every time).

/** A PDF of the given objects (1 0 obj is the catalogue), with a correct cross-reference table. */
export function pdfFromObjects(objects: (string | Buffer)[]): Uint8Array {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets = objects.map((body, i) => {
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.from(body), Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(object);
    length += object.length;
    return length - object.length;
  });
  let trailer = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  trailer += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  trailer += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(trailer, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}

const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>';
const page = (contents: number) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contents} 0 R >>`;

/** A stream object holding `data` Flate-compressed. */
function flateStream(data: Buffer): Buffer {
  const compressed = deflateSync(data, { level: 9 });
  return Buffer.concat([Buffer.from(`<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'), compressed, Buffer.from('\nendstream', 'latin1')]);
}

/**
 * A valid PDF whose pages show the given ASCII lines (an empty string: a page without text), in
 * Helvetica or in a font of the given name (not embedded: readers fall back to another font).
 */
export function pdfWithPages(lines: string[], font = 'Helvetica'): Uint8Array {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '', `<< /Type /Font /Subtype /Type1 /BaseFont /${font} >>`];
  const kids: string[] = [];
  for (const line of lines) {
    const content = line ? `BT /F1 12 Tf 72 720 Td (${line}) Tj ET` : '';
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
    objects.push(page(objects.length));
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${lines.length} >>`;
  return pdfFromObjects(objects);
}

/**
 * Pages that all draw one compressed content stream of `streamBytes` of text operators (or, with
 * `text` false, of lines, so that a reader writes nothing as it goes). A reader parses the shared
 * stream again for every page: 160 pages of a 1 MB stream, a small file, take pdftotext about 7
 * seconds of processor time (pdf.js needed seconds for 40).
 */
export function sharedStreamPdf(pages: number, streamBytes: number, { text = true } = {}): Uint8Array {
  const line = text ? 'BT /F1 12 Tf 72 712 Td (Photosynthesis) Tj ET\n' : '72 712 m 300 712 l S\n';
  const content = Buffer.from(line.repeat(Math.ceil(streamBytes / line.length)).slice(0, streamBytes), 'latin1');
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(' ');
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    HELVETICA,
    flateStream(content),
    ...Array.from({ length: pages }, () => page(4)),
  ]);
}

/** A file of `count` repeated `stream` keywords and one `endstream` at its end. */
export function repeatedStreamKeywords(count: number): Uint8Array {
  return new Uint8Array(Buffer.from(`%PDF-1.4\n${'stream\n'.repeat(count)}endstream\n`, 'latin1'));
}

/** A one-page PDF whose content stream inflates to `inflatedBytes` of spaces: a decompression bomb when large. */
export function inflatingPdf(inflatedBytes: number): Uint8Array {
  return pdfFromObjects(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [5 0 R] /Count 1 >>', HELVETICA, flateStream(Buffer.alloc(inflatedBytes, 0x20)), page(4)]);
}

/**
 * A one-page PDF with a line of text and a grey image of `imageBytes` pixels (Flate-compressed,
 * as a document's diagrams and screenshots often are): the reader never decodes it.
 */
export function photoPdf(imageBytes: number): Uint8Array {
  const width = 4096;
  const height = Math.ceil(imageBytes / width);
  const compressed = deflateSync(Buffer.alloc(width * height, 0x80), { level: 9 });
  const image = Buffer.concat([
    Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    compressed,
    Buffer.from('\nendstream', 'latin1'),
  ]);
  const content = 'BT /F1 12 Tf 72 720 Td (Photosynthesis needs light) Tj ET q 400 0 0 300 72 300 cm /Im1 Do Q';
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [5 0 R] /Count 1 >>',
    HELVETICA,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 4 0 R >>',
    image,
  ]);
}
