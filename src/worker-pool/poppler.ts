import { execFile, execFileSync } from 'node:child_process';
import { ConfigError } from '../config.js';
import { legacyFont, legacyFontProblem } from '../domain/documents/legacy-fonts.js';
import { settleLineEndHyphens } from '../domain/documents/line-end-hyphens.js';
import {
  breaksAfterMarks,
  breaksBeforeLastLetter,
  brokenWordPairs,
  embedsLklug,
  hasSinhalaOrTamil,
  joinWords,
  numeralBeforeWord,
  runsWordsTogether,
  setsNumeralsApart,
  spacedWordPairs,
  splitWords,
  type DrawnGlyph,
  type WordBox,
  type WordPairs,
} from '../domain/documents/mark-gaps.js';
import { inflatesWithin, MAX_INFLATED_BYTES } from '../domain/documents/pdf-budget.js';
import { MAX_PAGES, TooManyPagesError } from '../domain/documents/pages.js';
import { chooseReadingOrder, finishPdfPages, readingsDiffer } from '../domain/documents/pdf-text.js';
import { textLayerProblem } from '../domain/documents/text-layer.js';
import { OverBudgetError } from '../domain/ports/heavy-work.js';
import { pageGlyphs } from './page-glyphs.js';

// The `pdfText` step with poppler's command-line tools (Debian poppler-utils). pdftotext reads
// the Sinhala and Tamil PDFs of every producer measured word for word (README, "Reading PDFs");
// pdf.js broke words and lost vowel signs in those of Chromium and LibreOffice.

/** The budget of one file, as the pool gives each job. */
export interface ToolLimits {
  cpuMs: number;
  memoryMb: number;
}

/** The tools this reader runs, with `timeout` and `prlimit` (coreutils, util-linux) around them. */
const TOOLS = ['pdfinfo', 'pdffonts', 'pdftotext', 'timeout', 'prlimit'];

/**
 * The tools' environment: the service's, without the allocator scripts/start.sh preloads into the
 * service (other preloaded libraries stay). jemalloc keeps the address space it has used for
 * later, and the tools' budget (`prlimit --as`) was set for glibc's malloc.
 */
function toolEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  const kept = (env.LD_PRELOAD ?? '').split(/[\s:]+/).filter((library) => library !== '' && !/\blibjemalloc\.so/.test(library));
  if (kept.length > 0) env.LD_PRELOAD = kept.join(' ');
  else delete env.LD_PRELOAD;
  return env;
}

/** Throws a ConfigError naming what to install when a tool is missing: the service does not start without them. */
export function requirePopplerTools(env: NodeJS.ProcessEnv = toolEnvironment()): void {
  const missing = TOOLS.filter((name) => {
    try {
      execFileSync(name, ['--help'], { stdio: 'ignore', timeout: 10_000, env });
      return false;
    } catch (error) {
      // poppler's tools exit 0 or 99 on --help; only a missing command is missing
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
  });
  if (missing.length > 0) {
    throw new ConfigError(
      `Cannot read PDFs: ${missing.join(', ')} not found on PATH. Install poppler-utils (Debian: apt-get install poppler-utils), or run scripts/setup.sh.`,
    );
  }
}

/**
 * Runs one tool within the job's budget and gives its output. The tool runs under `timeout` and
 * `prlimit` (processor seconds, address space), so the kernel ends it when it goes over, even
 * when the pool has stopped this thread meanwhile; that rejects with OverBudgetError, which the
 * pool reports as the job's own overrun. Each tool of a file gets the whole budget: pdfinfo and
 * pdffonts read only the file's structure, pdftotext does the work (its two runs at once, so a
 * file that takes the whole budget holds two cores and twice the memory for that time).
 */
async function tool(name: string, args: string[], input: Uint8Array, { cpuMs, memoryMb }: ToolLimits, signal?: AbortSignal): Promise<string> {
  const cpuSeconds = Math.max(1, Math.ceil(cpuMs / 1000));
  // a tool that waits without using the processor (it should not) is ended after 5 × its time
  const wallSeconds = 5 * cpuSeconds;
  const command = ['--signal=KILL', `${wallSeconds}s`, 'prlimit', `--cpu=${cpuSeconds}`, `--as=${memoryMb * 1024 * 1024}`, '--', name, ...args];
  return new Promise((resolve, reject) => {
    // an abort sends SIGTERM to `timeout`, which passes it on to the tool
    const options = { encoding: 'utf8' as const, maxBuffer: MAX_INFLATED_BYTES, env: toolEnvironment(), signal };
    const child = execFile('timeout', command, options, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      // more text than a file within the inflation budget can hold: the tool was stopped
      if (error.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new OverBudgetError('memory', memoryMb));
      // timeout's status is 124 when it ended the tool (waiting that long means an overloaded
      // machine or a hung tool; either way the file had its time); a tool the kernel ended
      // takes timeout with it
      const signal = error.signal ?? (typeof error.code === 'number' && error.code > 128 ? error.code - 128 : undefined);
      if (error.code === 124 || signal === 'SIGXCPU' || signal === 'SIGKILL' || signal === 24 || signal === 9) {
        return reject(new OverBudgetError('time', cpuMs));
      }
      // poppler aborts when an allocation fails
      if (signal === 'SIGABRT' || signal === 6 || /out of memory|bad_alloc/i.test(stderr)) return reject(new OverBudgetError('memory', memoryMb));
      reject(popplerError(stderr));
    });
    // the file goes to the tool on its standard input: uploads are never written to disk; a tool
    // that stops reading early (a damaged file, a budget overrun) is judged by its exit above
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/** What to do with a file that cannot be read as it is. */
const PRINT_AGAIN = 'open it in a PDF viewer, print or save it to a new PDF, and upload that';

/** What poppler said about a file it could not open, as the end of "… is not a readable PDF: ". */
function popplerError(stderr: string): Error {
  if (/incorrect password/i.test(stderr)) {
    // the name extract.ts knows for a file that needs a password
    return Object.assign(new Error('it is password-protected'), { name: 'PasswordException' });
  }
  // pdfinfo's words for a file whose page tree is empty
  if (/last page \(0\)/.test(stderr)) return new Error(`it has no pages (its list of pages is empty or damaged); ${PRINT_AGAIN}`);
  const last = stderr.trim().split('\n').at(-1)?.replace(/^(Syntax |Command Line |Internal )?Error( \(\d+\))?: /, '');
  return new Error(`it cannot be parsed${last ? ` (${last})` : ''}: the file is damaged or incomplete (a cut-short upload or download?); ${PRINT_AGAIN}`);
}

/**
 * pdftotext's default reading and its `-raw` reading (the order the file draws its text in) of
 * the same file with `args`, side by side on the machine's cores; when one fails, the other is
 * stopped rather than left to spend its budget.
 */
async function bothReadings(args: string[], bytes: Uint8Array, limits: ToolLimits): Promise<[placed: string, drawn: string]> {
  const stop = new AbortController();
  const read = (mode: string[]) => tool('pdftotext', [...mode, ...args], bytes, limits, stop.signal);
  return Promise.all([read([]), read(['-raw'])]).catch((error: unknown) => {
    stop.abort();
    throw error;
  });
}

/** The names in pdffonts' table: the first column of each line after the dashes. */
function fontNames(table: string): string[] {
  const lines = table.split('\n');
  const start = lines.findIndex((line) => line.startsWith('---'));
  return lines
    .slice(start + 1)
    .map((line) => line.split(/\s+/)[0]!)
    .filter((name) => name !== '');
}

// the five characters pdftotext -bbox writes as entities
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const WORD_BOX = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g;

/** The words of each page in `pdftotext -bbox`'s page, in its order. */
function wordBoxes(xhtml: string): WordBox[][] {
  return xhtml
    .split('<page ')
    .slice(1)
    .map((page) =>
      [...page.matchAll(WORD_BOX)].map(([, xMin, yMin, xMax, yMax, text]) => ({
        text: text!.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!),
        xMin: Number(xMin),
        yMin: Number(yMin),
        xMax: Number(xMax),
        yMax: Number(yMax),
      })),
    );
}

/** A page's pairs of words (src/domain/documents/mark-gaps.ts): those that may be one word, and those that may be two run together. */
export interface PagePairs {
  broken: WordPairs;
  spaced: WordPairs;
}

/**
 * For each of `pages`, whether the pairs of words that may be one word are, and whether those that
 * pdftotext may have run together have a space drawn between them (src/domain/documents/mark-gaps.ts),
 * in pdftotext's default reading and in `-raw` (whose words differ where a mark is drawn apart),
 * by where poppler places the words and, on `glyphPages`, pdf.js the glyphs.
 */
export async function wordPairsOnPages(
  bytes: Uint8Array,
  pages: number[],
  limits: ToolLimits,
  {
    glyphPages = pages,
    glyphsOf = pageGlyphs,
    numeralsApart = false,
  }: { glyphPages?: number[]; glyphsOf?: typeof pageGlyphs; /** the producer sets numerals apart from their suffixes (setsNumeralsApart) */ numeralsApart?: boolean } = {},
): Promise<{ placed: Map<number, PagePairs>; drawn: Map<number, PagePairs> }> {
  const [first, last] = [Math.min(...pages), Math.max(...pages)];
  // the crop box, as pdf.js places glyphs in it
  const args = ['-bbox', '-cropbox', '-enc', 'UTF-8', '-f', String(first), '-l', String(last), '-', '-'];
  // pdf.js cannot open some files that poppler repairs as it reads: their pairs are settled by the word boxes alone
  const noGlyphs = new Map<number, DrawnGlyph[]>();
  const anyGlyphs = glyphPages.length === 0 ? noGlyphs : glyphsOf(bytes, glyphPages).catch(() => noGlyphs);
  const [[placed, drawn], glyphs] = await Promise.all([bothReadings(args, bytes, limits), anyGlyphs]);
  const pairs = (xhtml: string) => {
    const pageBoxes = wordBoxes(xhtml);
    return new Map(
      pages.map((n) => {
        const [boxes, drawnGlyphs] = [pageBoxes[n - first] ?? [], glyphs.get(n) ?? []];
        return [n, { broken: brokenWordPairs(boxes, drawnGlyphs, { numeralsApart }), spaced: spacedWordPairs(boxes, drawnGlyphs) }];
      }),
    );
  };
  return { placed: pairs(placed), drawn: pairs(drawn) };
}

const NO_PAIRS: PagePairs = { broken: new Map(), spaced: new Map() };

/**
 * Both readings' pages, with the words that a font broke made whole and those it ran together
 * parted: on the pages that show words broken at their marks, by the word boxes and the glyphs;
 * on every Sinhala and Tamil page of a file that shows words run together or embeds LKLUG (one
 * of `fonts`), by both too; by the word boxes on every such page of a file that shows words
 * broken before their last letter, and on the pages whose two readings differ in their words.
 * Other files cost nothing more.
 */
async function mendWords(bytes: Uint8Array, placed: string[], drawn: string[], { fonts, producer }: { fonts: string[]; producer: string | undefined }, limits: ToolLimits): Promise<[string[], string[]]> {
  const pagesWith = (test: (page: string) => boolean) => placed.flatMap((page, i) => (test(page) || test(drawn[i] ?? '') ? [i + 1] : []));
  // worked out once, for the two file-wide looks that take every Sinhala and Tamil page
  let scriptPages: number[] | undefined;
  const sinhalaOrTamilPages = () => (scriptPages ??= pagesWith(hasSinhalaOrTamil));
  const runTogether = embedsLklug(fonts) || runsWordsTogether(placed) || runsWordsTogether(drawn) ? sinhalaOrTamilPages() : [];
  const numeralsApart = setsNumeralsApart(producer);
  const numerals = numeralsApart ? pagesWith(numeralBeforeWord) : [];
  const glyphPages = [...new Set([...pagesWith(breaksAfterMarks), ...runTogether, ...numerals])].sort((x, y) => x - y);
  const wholeFile = breaksBeforeLastLetter(placed) || breaksBeforeLastLetter(drawn) ? sinhalaOrTamilPages() : [];
  const differ = placed.flatMap((page, i) => (readingsDiffer(page, drawn[i] ?? '') ? [i + 1] : []));
  const looked = [...new Set([...glyphPages, ...wholeFile, ...differ])].sort((x, y) => x - y);
  if (looked.length === 0) return [placed, drawn];
  const pairs = await wordPairsOnPages(bytes, looked, limits, { glyphPages, numeralsApart });
  const mend = (pages: string[], pagePairs: Map<number, PagePairs>) =>
    pages.map((page, i) => {
      const { broken, spaced } = pagePairs.get(i + 1) ?? NO_PAIRS;
      return joinWords(splitWords(page, spaced), broken);
    });
  return [mend(placed, pairs.placed), mend(drawn, pairs.drawn)];
}

/**
 * The text of every page, in order, repaired and normalised; empty strings for pages without
 * text. A file in a legacy Sinhala or Tamil font is refused (src/domain/documents/legacy-fonts.ts), and so
 * is one whose text cannot be what its pages show (src/domain/documents/text-layer.ts). The
 * `pdfText` step of src/domain/ports/heavy-work.ts; errors complete "<file> is not a readable PDF: ".
 */
export async function readPdfPages(bytes: Uint8Array, limits: ToolLimits): Promise<string[]> {
  if (!inflatesWithin(bytes)) throw new Error(`its pages' content expands to more than ${MAX_INFLATED_BYTES} bytes, far more than any document's text needs (images are not counted); ${PRINT_AGAIN}`);
  // '-' makes each tool read the file from its standard input
  const info = await tool('pdfinfo', ['-'], bytes, limits);
  const pages = Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1] ?? 0);
  if (pages > MAX_PAGES) throw new TooManyPagesError(pages);
  if (pages === 0) return [];
  const fonts = fontNames(await tool('pdffonts', ['-l', String(pages), '-'], bytes, limits));
  const legacy = legacyFont(fonts);
  if (legacy) throw new Error(legacyFontProblem(legacy));
  // the default mode and -raw (chooseReadingOrder; the README has the comparison with -layout);
  // each page ends with a form feed
  const [placed, drawn] = await bothReadings(['-enc', 'UTF-8', '-l', String(pages), '-', '-'], bytes, limits);
  const asPages = (text: string) => text.split('\f').slice(0, pages);
  const producer = /^Producer:\s+(.+)$/m.exec(info)?.[1]?.trim();
  const [placedPages, drawnPages] = await mendWords(bytes, asPages(placed), asPages(drawn), { fonts, producer }, limits);
  const settled = settleLineEndHyphens(finishPdfPages(placedPages), finishPdfPages(drawnPages));
  const read = chooseReadingOrder(settled.placed, settled.drawn);
  const problem = textLayerProblem(read, producer);
  if (problem) throw new Error(problem);
  return read;
}
