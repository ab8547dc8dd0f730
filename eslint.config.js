// ESLint flat config: recommended JavaScript and typescript-eslint rules (formatting is Prettier's
// job, `npm run format:check`), plus the layer rules of shared/STYLE.md as import restrictions, so
// an import that breaks a layer fails `npm run lint` and the test command.
// test/unit/lint-rules.test.ts checks that each layer rule reports.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node built-ins that do I/O (with or without the `node:` prefix). */
const IO_BUILTINS = [
  'fs',
  'fs/promises',
  'net',
  'tls',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'dns/promises',
  'child_process',
  'worker_threads',
  'cluster',
  'readline',
];
const ioBuiltins = {
  regex: `^(node:)?(${IO_BUILTINS.map((m) => m.replace('/', '\\/')).join('|')})$`,
  message: 'domain/ is pure: no I/O modules (shared/STYLE.md, dependency rule).',
};
const ioPackages = {
  regex: '^(pg|pg-cursor|pg-copy-streams|better-sqlite3|fastify|@fastify\\/.*)$',
  message: 'domain/ is pure: no database drivers or Fastify (shared/STYLE.md, dependency rule).',
};
/** A relative import into a folder named `dir` (`../store/types.js`, `../../routes/calls.js`). */
const into = (dir) => `^(\\.{1,2}\\/)+(.*\\/)?${dir}(\\/|$)`;

/** Only store/create-store.ts (called from main.ts and app.ts) picks an adapter (shared/STYLE.md). */
const adapters = [
  { regex: into('(sqlite|postgres)'), message: 'Only store/create-store.ts imports a store adapter.' },
  { regex: '^(pg|pg-cursor|pg-copy-streams|better-sqlite3)$', message: 'Only the store adapters use a driver.' },
];

/** One config block forbidding `patterns` in `files`. */
const layer = (files, ...patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: patterns.flat() }] },
});

/** Node's globals, for the few plain JavaScript files (TypeScript checks its own). */
const nodeGlobals = Object.fromEntries(
  ['process', 'console', 'Buffer', 'URL', 'setTimeout', 'clearTimeout', 'structuredClone'].map((g) => [g, 'readonly']),
);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'web/dist/', '.cache/', '.venv/', 'heddle-data/', 'bench/results/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: nodeGlobals } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // The SQL stores' transaction bodies are generators (`function*`, no arrow form), which reach
      // the store through `self`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['self'] }],
    },
  },
  // Tests poke at untyped JSON responses and client internals; `any` there is a convenience.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },

  // Layer rules (shared/STYLE.md). ESLint applies the last matching block's `no-restricted-imports`
  // only, so each folder gets exactly one block, listing everything it may not import.
  layer(['src/domain/**/*.ts'], ioBuiltins, ioPackages, {
    regex: into('store'),
    message: 'domain/ never imports the store; shared row types live in domain/rows.ts.',
  }),
  layer(
    ['src/services/**/*.ts'],
    { regex: '^(fastify|@fastify\\/.*)$', message: 'services/ never import Fastify (shared/STYLE.md).' },
    { regex: into('(routes|plugins)'), message: 'services/ never import routes/ or plugins/.' },
    adapters,
  ),
  layer(['src/routes/**/*.ts', 'src/plugins/**/*.ts', 'src/store/sql/**/*.ts'], adapters),
  layer(['src/store/sqlite/**/*.ts'], {
    regex: into('postgres'),
    message: 'sqlite/ never imports postgres/; share code through store/sql/.',
  }),
  layer(['src/store/postgres/**/*.ts'], {
    regex: into('sqlite'),
    message: 'postgres/ never imports sqlite/; share code through store/sql/.',
  }),
  layer(['src/training/policy/**/*.ts'], {
    regex: into('objective'),
    message: 'policy/ does not depend on the objective; seeded random numbers live in training/random.ts.',
  }),

  // The web app's direction (docs/architecture.md "The web app"): routes/ → features/ → ui/, api/,
  // lib/. A page reads its route through getRouteApi, never by importing it; shared layers never
  // import pages.
  layer(['web/src/features/**/*.{ts,tsx}'], {
    regex: into('routes'),
    message: 'features/ never import routes/: read params and search with getRouteApi(<path>).',
  }),
  layer(['web/src/ui/**/*.{ts,tsx}', 'web/src/api/**/*.{ts,tsx}'], {
    regex: into('(routes|features)'),
    message: 'ui/ and api/ are shared by every page: they never import routes/ or features/.',
  }),
  layer(['web/src/lib/**/*.{ts,tsx}'], {
    regex: into('(routes|features|ui|api)'),
    message: 'lib/ is logic without React or fetch: it imports nothing of the app but lib/.',
  }),
);
