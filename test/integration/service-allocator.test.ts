import { describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { runProcess } from './support/processes.js';

// `npm start` (scripts/start.sh) runs the service on jemalloc, which held less memory under load
// than glibc's malloc (README "Performance"). The PDF tools the service runs must not inherit it:
// jemalloc takes more address space, and their memory budget (prlimit --as) was set for glibc's.
const FILE = 'test/fixtures/pdf-producers/pango-sinhala.pdf';
/** Address space that pdftotext needs for FILE on glibc's malloc (18 MB) but not on jemalloc (28 MB). */
const BUDGET_MB = 22;
// what the process runs on, and the PDF's text read by the service's reader within the budget
const PROBE = `
import { readFileSync } from 'node:fs';
import { readPdfPages } from './dist/src/worker-pool/poppler.js';
const jemalloc = readFileSync('/proc/self/maps', 'utf8').includes('libjemalloc');
const pages = await readPdfPages(new Uint8Array(readFileSync('${FILE}')), { cpuMs: 10000, memoryMb: ${BUDGET_MB} });
console.log(JSON.stringify({ jemalloc, preload: process.env.LD_PRELOAD ?? '', text: pages.join('') }));`;

// jest's Node options and any allocator settings of the caller stay out of the probe, and the C locale
// keeps the tools' address space the same on every machine
const ENV: NodeJS.ProcessEnv = { ...process.env, LC_ALL: 'C' };
for (const name of ['NODE_OPTIONS', 'LD_PRELOAD', 'MALLOC_CONF']) delete ENV[name];

async function probe(env: NodeJS.ProcessEnv = {}): Promise<{ jemalloc: boolean; preload: string; text: string }> {
  const run = await runProcess('bash', ['scripts/start.sh', '--input-type=module', '-e', PROBE], { env: { ...ENV, ...env } });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as { jemalloc: boolean; preload: string; text: string };
}

describe('the service as `npm start` runs it', () => {
  test('runs on jemalloc, and the PDF tools it runs on glibc malloc, within a budget only glibc fits', async () => {
    const { jemalloc, preload, text } = await probe();
    expect(jemalloc).toBe(true);
    expect(text).toContain('ශ්‍රී');
    // the budget tells the two apart: pdftotext does not fit it with jemalloc preloaded
    const under = (env: NodeJS.ProcessEnv) =>
      execFileSync('prlimit', [`--as=${BUDGET_MB * 1024 * 1024}`, '--', 'pdftotext', FILE, '-'], { env: { ...ENV, ...env }, stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 });
    expect(() => under({ LD_PRELOAD: preload })).toThrow();
    expect(under({ LD_PRELOAD: '' }).length).toBeGreaterThan(0);
  });

  test('SERVICE_MALLOC=glibc keeps glibc malloc; another value is refused', async () => {
    expect((await probe({ SERVICE_MALLOC: 'glibc' })).jemalloc).toBe(false);
    const wrong = await runProcess('bash', ['scripts/start.sh', '-e', ''], { env: { ...ENV, SERVICE_MALLOC: 'tcmalloc' } });
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain("SERVICE_MALLOC is 'jemalloc' (the default) or 'glibc', not 'tcmalloc'");
  });
});
