// Prints the text the service reads from a file, page by page, so that a refused document can be
// inspected: the same readers as ingestion and attachments, in the same worker pool, within the
// same budgets (the HEAVY_WORK_* settings).
//   npm run extract -- <file.pdf | file.txt | file.md>
// A file the service refuses prints the message the API answers with (its `detail`) and exits 1.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { ConfigError, loadHeavyWorkSettings } from '../src/config.js';
import { extractDocument } from '../src/domain/documents/extract.js';
import { joinPages } from '../src/domain/documents/pages.js';
import { ServiceError } from '../src/domain/errors.js';
import { WorkerPool } from '../src/worker-pool/pool.js';
import { callerPath, commandLine, usageError } from './lib/command-line.js';

const USAGE = `usage: npm run extract -- <file>
Prints the text the service reads from a PDF, .txt or .md file, each page after a
"--- PAGE <n> ---" line. A file the service refuses prints the reason and exits with status 1.`;

function usage(problem: string): never {
  return usageError('extract', USAGE, problem);
}

const parsed = commandLine('extract', USAGE, { allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
if (parsed.values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (parsed.positionals.length !== 1) usage('give exactly one file');
const file = callerPath('extract', parsed.positionals[0]!);

let work;
try {
  work = WorkerPool.fromSettings(loadHeavyWorkSettings());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}

let bytes: Uint8Array;
try {
  bytes = new Uint8Array(await readFile(file));
} catch (error) {
  usage(`cannot read ${file}: ${(error as Error).message}`);
}

try {
  const pages = await extractDocument(basename(file), bytes, work, 'extract');
  process.stdout.write(`${joinPages(pages)}\n`);
} catch (error) {
  if (!(error instanceof ServiceError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await work.close();
}
