// The offline dependency policy (README "Dependency policy"), as checks over the project's own
// files and the installed tree. Each check returns problems as sentences; none means it holds.

export interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
  allowScripts?: Record<string, boolean>;
}

export interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  optional?: boolean;
  dev?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

export interface Lockfile {
  lockfileVersion?: number;
  packages?: Record<string, LockEntry>;
}

const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;
// x.y.z with an optional pre-release, nothing else: no range, tag, URL, git or file reference
const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;
export const REGISTRY = 'https://registry.npmjs.org/';

/** Every direct dependency (and override) names one exact version. */
export function exactPins(pkg: PackageJson): string[] {
  const problems: string[] = [];
  for (const section of SECTIONS) {
    for (const [name, spec] of Object.entries(pkg[section] ?? {})) {
      if (!EXACT.test(spec)) problems.push(`package.json ${section}: ${name} is '${spec}', not an exact version such as 1.2.3`);
    }
  }
  const overrides = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      if (!EXACT.test(value)) problems.push(`package.json overrides: ${path} is '${value}', not an exact version`);
    } else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) overrides(inner, path ? `${path} > ${name}` : name);
    }
  };
  overrides(pkg.overrides, '');
  return problems;
}

/** The package name of a lockfile entry: its alias target, else the last node_modules segment of its path. */
export function entryName(path: string, entry: LockEntry): string {
  return entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/**
 * The lockfile agrees with package.json and pins every package of the tree to a registry
 * tarball by its sha512 integrity (what `npm install` verifies each download against).
 */
export function lockfileIntegrity(pkg: PackageJson, lock: Lockfile): string[] {
  const problems: string[] = [];
  if (lock.lockfileVersion !== 3) problems.push(`package-lock.json has lockfileVersion ${lock.lockfileVersion}; npm 7+ writes 3`);
  const packages = lock.packages ?? {};
  const root = packages[''] ?? {};
  for (const section of SECTIONS) {
    const declared = pkg[section] ?? {};
    const locked = root[section] ?? {};
    for (const name of new Set([...Object.keys(declared), ...Object.keys(locked)])) {
      if (declared[name] !== locked[name]) {
        problems.push(`package-lock.json is stale: ${section} ${name} is '${declared[name] ?? 'absent'}' in package.json, '${locked[name] ?? 'absent'}' in the lockfile (run npm install)`);
      }
    }
  }
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '') continue;
    if (entry.link) {
      problems.push(`${path} is a link to local files, not a registry package`);
      continue;
    }
    if (!entry.version) problems.push(`${path} has no version in the lockfile`);
    if (!entry.integrity?.startsWith('sha512-')) problems.push(`${path} has no sha512 integrity in the lockfile`);
    if (entry.resolved && !entry.resolved.startsWith(REGISTRY)) problems.push(`${path} comes from ${entry.resolved}, not from the npm registry`);
  }
  return problems;
}

/** Every package that runs an install script was reviewed: it is named in package.json allowScripts (true or false). */
export function reviewedInstallScripts(pkg: PackageJson, lock: Lockfile): string[] {
  const reviewed = new Set(Object.keys(pkg.allowScripts ?? {}));
  const withScripts = new Set(
    Object.entries(lock.packages ?? {})
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path, entry]) => entryName(path, entry)),
  );
  const problems = [...withScripts].filter((name) => !reviewed.has(name)).map((name) => `${name} runs an install script and is not in package.json allowScripts: review it, then add it (true to run it, false to skip it)`);
  for (const name of reviewed) if (!withScripts.has(name)) problems.push(`package.json allowScripts names ${name}, which no locked package with an install script has: remove it`);
  return problems;
}

/**
 * The installed tree is the locked one: each locked package is installed at its locked version
 * (optional ones may be absent: other platforms' builds). `installedVersion` reads
 * `<path>/package.json`, or gives null when it is not there.
 */
export function installedAsLocked(lock: Lockfile, installedVersion: (path: string) => string | null): string[] {
  const problems: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    if (path === '' || entry.link) continue;
    const installed = installedVersion(path);
    if (installed === null) {
      if (!entry.optional) problems.push(`${path} is locked at ${entry.version} but not installed (run scripts/setup.sh)`);
    } else if (installed !== entry.version) {
      problems.push(`${path} is installed at ${installed}, locked at ${entry.version} (run scripts/setup.sh)`);
    }
  }
  return problems;
}

/** Every line of a pip requirements file pins one exact version (`name==1.2.3`). */
export function exactRequirements(file: string, text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .filter((line) => !/^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[0-9][0-9A-Za-z.+!-]*$/.test(line))
    .map((line) => `${file}: '${line}' is not pinned to one exact version (name==1.2.3)`);
}
