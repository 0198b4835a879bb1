// Starts a worker of the pool from the TypeScript sources, for jest, which runs the sources: Node
// cannot load them as they are (imports name the compiled `.js` files; parameter properties need
// a compiler), so .ts modules are compiled on load with SWC and the options jest uses. The
// compiled service (dist/) never loads this file: its workers start dist/src/worker-pool/worker.js.
import { existsSync, readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from '@swc/core';
import { swcOptions } from '../../jest.config.js';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.endsWith('.ts') && /^\.\.?\/.*\.js$/.test(specifier)) {
      const source = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (existsSync(source)) return nextResolve(source.href, context);
    }
    return nextResolve(specifier, context);
  },
  load(url, context, nextLoad) {
    if (!url.endsWith('.ts')) return nextLoad(url, context);
    const filename = fileURLToPath(url);
    const { code } = transformSync(readFileSync(filename, 'utf8'), { ...swcOptions, filename, sourceMaps: 'inline' });
    return { format: 'module', source: code, shortCircuit: true };
  },
});

await import('./worker.ts');
