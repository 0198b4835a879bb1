// Builds what the documentation site serves from the contract, at build time and offline:
// the Redoc reference as one self-contained HTML file (its scripts inlined, nothing loaded from a
// CDN) and the bundled contract as YAML, into dist/docs/ (src/docs/app.ts serves them).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'docs');
const redocly = join(root, 'node_modules', '.bin', 'redocly');
// no usage reports or update checks: the build must not reach out
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
const contract = join(root, 'src', 'generated', 'openapi.json');

mkdirSync(out, { recursive: true });
execFileSync(redocly, ['build-docs', contract, '--inlineBundle', '--title', 'svcai API reference', '-o', join(out, 'reference.html')], { cwd: root, env, stdio: 'pipe' });

// The bundle names two kinds of CDN address, so that rendering the reference would fetch from
// elsewhere: the logo of its "API docs by" badge, always shown (drawn from the page itself
// instead), and the base of icon sets that only a configuration naming icons uses (none here;
// pointed at this site, where they would be a 404 rather than a request that leaves it).
const reference = join(out, 'reference.html');
const logo = `data:image/svg+xml,${encodeURIComponent("<svg xmlns='http://www.w3.org/2000/svg' width='56' height='16'><text x='0' y='12' font-family='sans-serif' font-size='12' fill='currentColor'>Redocly</text></svg>")}`;
const html = readFileSync(reference, 'utf8')
  .replace(/https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g, logo)
  .replaceAll('https://cdn.redocly.com/icons/', '/assets/redoc-icons/');
// anything else the bundle would load from a CDN must be handled here too, when Redoc changes
const remote = html.match(/https:\/\/cdn\.[^`'"\s)]+/g);
if (remote) throw new Error(`the reference would load ${[...new Set(remote)].join(', ')} from outside: make it local in scripts/build-docs.mjs`);
writeFileSync(reference, html);
execFileSync(redocly, ['bundle', contract, '--ext', 'yaml', '-o', join(out, 'openapi.yaml')], { cwd: root, env, stdio: 'pipe' });
