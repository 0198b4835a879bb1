import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// The layering of README "Architecture", enforced: each block below names what one layer may not
// import (one block per file, since a later block's rule replaces an earlier one's).
const operationIds = Object.values(JSON.parse(readFileSync(new URL('./src/generated/openapi.json', import.meta.url), 'utf8')).paths)
  .flatMap((item) => Object.values(item).map((op) => op.operationId))
  .filter(Boolean);
const forbid = (...groups) => ['error', { patterns: groups }];
const HTTP = { group: ['**/http/*', '**/http/**'], message: 'Only the entry point (src/main.ts) and tests use the HTTP layer.' };
const HANDLERS = { group: ['**/handlers/*', '**/handlers/**'], message: 'Handlers are reached through the HTTP layer only.' };
const ADAPTERS = {
  group: ['**/search-index/*', '**/providers/*', '**/worker-pool/*', '**/billing/payhere.js', '**/mail/*', '**/jobs/*'],
  message: 'The domain depends on its ports (src/domain/ports); src/services.ts wires the implementations.',
};
const APP = { group: ['**/http/app.js', './app.js'], message: 'Only the entry point (src/main.ts) and the test harness build the Koa app.' };
const DOCS_APP = { group: ['**/docs/app.js'], message: 'Only the entry point (src/main.ts) and the test harness build the docs site app.' };
const DOCS = { group: ['**/docs/*', '**/docs/**'], message: 'The documentation site (src/docs) is wired by the entry point only.' };

export default tseslint.config(
  // test/contract/clients imports a client generated during the contract tests, and is type-checked by its tsc build there
  { ignores: ['dist/', 'node_modules/', '.cache/', '.data/', 'src/generated/', 'coverage/', 'test/contract/clients/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs', 'scripts/*.mjs', 'bench/*.mjs'] }, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['src/domain/**/*.ts'], rules: { 'no-restricted-imports': forbid(HTTP, HANDLERS, ADAPTERS, DOCS) } },
  {
    files: ['src/*.ts', 'src/db/**/*.ts', 'src/search-index/**/*.ts', 'src/providers/**/*.ts', 'src/worker-pool/**/*.ts', 'src/billing/**/*.ts', 'src/mail/**/*.ts', 'src/jobs/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/main.ts'],
    rules: { 'no-restricted-imports': forbid(HTTP, HANDLERS, DOCS) },
  },
  // the docs site is an HTTP app of its own: it may map errors like the API (src/http/error-mapper)
  // but never reaches the API's app, handlers or adapters
  {
    files: ['src/docs/**/*.ts'],
    ignores: ['src/docs/app.ts'],
    rules: { 'no-restricted-imports': forbid(APP, HANDLERS, ADAPTERS, DOCS_APP) },
  },
  { files: ['src/docs/app.ts'], rules: { 'no-restricted-imports': forbid(APP, HANDLERS, ADAPTERS) } },
  {
    files: ['src/handlers/**/*.ts'],
    ignores: ['src/handlers/index.ts'],
    rules: {
      'no-restricted-imports': forbid(HTTP, DOCS, {
        group: operationIds.map((id) => `./${id}.js`),
        message: 'A handler never imports another handler: share code through a domain module or a non-handler helper.',
      }),
    },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(APP, DOCS, {
        group: ['**/handlers/*', '!**/handlers/index.js'],
        message: 'The HTTP layer reaches handlers only through the registry, src/handlers/index.ts.',
      }),
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  // the docs site's script runs in the reader's browser
  { files: ['docs/assets/*.js', 'dashboard/assets/*.js'], languageOptions: { globals: globals.browser, sourceType: 'script' } },
);
