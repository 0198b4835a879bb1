// Builds what the documentation site serves from the contract, at build time and offline:
// the Redoc reference as one self-contained HTML file (its scripts inlined, nothing loaded from a
// CDN) and the bundled contract as YAML, into dist/docs/ (src/docs/app.ts serves them).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
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
execFileSync(redocly, ['bundle', contract, '--ext', 'yaml', '-o', join(out, 'openapi.yaml')], { cwd: root, env, stdio: 'pipe' });
