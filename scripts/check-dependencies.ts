// Checks the dependency policy offline (README "Dependency policy"): exact pins, a lockfile that
// pins every package by sha512 to the npm registry, reviewed install scripts, an installed tree
// equal to the lockfile, and exact pins of the contract tests' Python tools. Exits 1 on any problem.
//   npm run check:dependencies
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  exactPins,
  exactRequirements,
  installedAsLocked,
  lockfileIntegrity,
  reviewedInstallScripts,
  type Lockfile,
  type PackageJson,
} from './lib/dependencies.js';

const root = process.cwd();
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as PackageJson;
const lock = JSON.parse(read('package-lock.json')) as Lockfile;
const REQUIREMENTS = 'test/contract/requirements.txt';

const installedVersion = (path: string): string | null => {
  const manifest = join(root, path, 'package.json');
  return existsSync(manifest) ? ((JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? null) : null;
};

const checks: [string, string[]][] = [
  ['direct npm dependencies pinned exactly', exactPins(pkg)],
  ['lockfile in step with package.json, every package pinned by sha512', lockfileIntegrity(pkg, lock)],
  ['install scripts reviewed in allowScripts', reviewedInstallScripts(pkg, lock)],
  ['installed packages equal to the lockfile', installedAsLocked(lock, installedVersion)],
  [`${REQUIREMENTS} pinned exactly`, exactRequirements(REQUIREMENTS, read(REQUIREMENTS))],
];
const count = Object.keys(lock.packages ?? {}).length - 1;
for (const [what, problems] of checks) {
  console.log(`${problems.length ? 'FAIL' : 'ok  '} ${what}`);
  for (const problem of problems) console.log(`       ${problem}`);
}
const failed = checks.some(([, problems]) => problems.length > 0);
console.log(failed ? 'dependency check failed: see README "Dependency policy"' : `dependency check passed (${count} locked packages)`);
process.exitCode = failed ? 1 : 0;
