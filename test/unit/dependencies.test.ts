import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  exactPins,
  exactRequirements,
  installedAsLocked,
  lockfileIntegrity,
  reviewedInstallScripts,
  type Lockfile,
  type PackageJson,
} from '../../scripts/lib/dependencies.js';

const integrity = 'sha512-' + 'A'.repeat(86) + '==';
const pkg: PackageJson = { dependencies: { koa: '3.3.0' }, devDependencies: { jest: '30.5.2' }, allowScripts: { esbuild: true } };
const lock = (packages: Lockfile['packages']): Lockfile => ({
  lockfileVersion: 3,
  packages: { '': { dependencies: { koa: '3.3.0' }, devDependencies: { jest: '30.5.2' } }, ...packages },
});
const good = lock({
  'node_modules/koa': { version: '3.3.0', integrity },
  'node_modules/jest': { version: '30.5.2', integrity, dev: true },
  'node_modules/esbuild': { version: '0.25.0', integrity, hasInstallScript: true },
  'node_modules/@esbuild/darwin-arm64': { version: '0.25.0', integrity, optional: true },
});

describe('dependency policy', () => {
  test('the project itself keeps it', () => {
    const own = JSON.parse(readFileSync('package.json', 'utf8')) as PackageJson;
    const ownLock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Lockfile;
    expect(exactPins(own)).toEqual([]);
    expect(lockfileIntegrity(own, ownLock)).toEqual([]);
    expect(reviewedInstallScripts(own, ownLock)).toEqual([]);
    expect(exactRequirements('requirements.txt', readFileSync('test/contract/requirements.txt', 'utf8'))).toEqual([]);
  });

  test('a range, a tag, a URL or a loose override is not an exact pin', () => {
    expect(exactPins({ ...pkg, overrides: { foo: { bar: '1.0.0' } } })).toEqual([]);
    expect(exactPins({ dependencies: { a: '^1.2.3', b: 'latest', c: 'github:x/c', d: '1.0.0-beta.17' }, devDependencies: { e: '~2.0.0' }, overrides: { f: { g: '>=1' } } })).toEqual([
      "package.json dependencies: a is '^1.2.3', not an exact version such as 1.2.3",
      "package.json dependencies: b is 'latest', not an exact version such as 1.2.3",
      "package.json dependencies: c is 'github:x/c', not an exact version such as 1.2.3",
      "package.json devDependencies: e is '~2.0.0', not an exact version such as 1.2.3",
      "package.json overrides: f > g is '>=1', not an exact version",
    ]);
  });

  test('the lockfile must match package.json and pin every package by sha512 to the registry', () => {
    expect(lockfileIntegrity(pkg, good)).toEqual([]);
    const bad = lock({
      'node_modules/koa': { version: '3.3.0', integrity: 'sha1-abc' },
      'node_modules/evil': { version: '1.0.0', integrity, resolved: 'https://example.com/evil-1.0.0.tgz' },
      'node_modules/local': { link: true },
    });
    expect(lockfileIntegrity({ ...pkg, dependencies: { koa: '3.4.0' } }, bad)).toEqual([
      "package-lock.json is stale: dependencies koa is '3.4.0' in package.json, '3.3.0' in the lockfile (run npm install)",
      'node_modules/koa has no sha512 integrity in the lockfile',
      'node_modules/evil comes from https://example.com/evil-1.0.0.tgz, not from the npm registry',
      'node_modules/local is a link to local files, not a registry package',
    ]);
  });

  test('a new install script must be reviewed, and a stale review removed', () => {
    expect(reviewedInstallScripts(pkg, good)).toEqual([]);
    const withNewScript = lock({ 'node_modules/sharp': { version: '0.34.0', integrity, hasInstallScript: true } });
    expect(reviewedInstallScripts(pkg, withNewScript)).toEqual([
      'sharp runs an install script and is not in package.json allowScripts: review it, then add it (true to run it, false to skip it)',
      'package.json allowScripts names esbuild, which no locked package with an install script has: remove it',
    ]);
  });

  test('every locked package is installed at its version; optional ones may be absent', () => {
    const installed: Record<string, string> = { 'node_modules/koa': '3.3.0', 'node_modules/jest': '30.5.2', 'node_modules/esbuild': '0.25.0' };
    expect(installedAsLocked(good, (path) => installed[path] ?? null)).toEqual([]);
    expect(installedAsLocked(good, (path) => ({ ...installed, 'node_modules/koa': '3.2.0', 'node_modules/jest': undefined })[path] ?? null)).toEqual([
      'node_modules/koa is installed at 3.2.0, locked at 3.3.0 (run scripts/setup.sh)',
      'node_modules/jest is locked at 30.5.2 but not installed (run scripts/setup.sh)',
    ]);
  });

  test('Python requirements are pinned with ==', () => {
    expect(exactRequirements('r.txt', '# tools\nschemathesis==4.32.5\nhypothesis[cli]==6.1.0  # extra\n\n')).toEqual([]);
    expect(exactRequirements('r.txt', 'schemathesis>=4\nrequests\n')).toEqual([
      "r.txt: 'schemathesis>=4' is not pinned to one exact version (name==1.2.3)",
      "r.txt: 'requests' is not pinned to one exact version (name==1.2.3)",
    ]);
  });
});
