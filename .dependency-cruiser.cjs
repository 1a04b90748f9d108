/* global module -- a CommonJS file, read by dependency-cruiser */
/**
 * Import rules of src/ (docs/architecture.md, "Import rules"). Layers, top to bottom:
 *   bin → transport → features → platform, domain
 * Run: `npm run -s check:imports`; test/unit/import-rules.test.ts runs the same rules.
 * scripts/ and test/ are not checked.
 */
const FEATURE_NAMES = 'spot|futures|copy|market-data|feeds|markets|wallet';
const FEATURES = `(${FEATURE_NAMES})`; // one capture group: $1 in a `to` is the importing feature
// Packages that do I/O or belong to a transport: the domain stays pure without them.
const IO_PACKAGES =
  'node_modules/(ioredis|redis|@redis/[^/]+|bullmq|@bull-board/[^/]+|express|express-[^/]+|uWebSockets\\.js)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere in src/, type-only imports included.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain imports nothing of src/ outside the domain.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'domain-no-io-packages',
      severity: 'error',
      comment: 'src/domain imports no Redis, queue or HTTP package.',
      from: { path: '^src/domain/' },
      to: { path: IO_PACKAGES },
    },
    {
      name: 'platform-only-below',
      severity: 'error',
      comment: 'src/platform imports only platform and domain.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/(platform|domain)/' },
    },
    {
      name: 'feature-not-upward',
      severity: 'error',
      comment: 'A feature imports only platform, domain and features: never transport or bin.',
      from: { path: `^src/${FEATURES}/` },
      to: { path: '^src/', pathNot: `^src/(platform|domain|${FEATURE_NAMES})/` },
    },
    {
      name: 'feature-through-index',
      severity: 'error',
      comment:
        'A feature reaches another feature only through its public entry src/<feature>/index.ts, never its internals.',
      from: { path: `^src/${FEATURES}/` },
      to: { path: `^src/${FEATURES}/`, pathNot: [`^src/$1/`, `^src/${FEATURES}/index\\.ts$`] },
    },
    {
      name: 'src-stands-alone',
      severity: 'error',
      comment: 'src/ imports nothing of scripts/ or test/: what npm start runs (the demo included) lives in src/.',
      from: { path: '^src/' },
      to: { path: '^(scripts|test)/' },
    },
    {
      name: 'demo-is-a-client',
      severity: 'error',
      comment: 'src/demo trades through the public REST API: of src/ it imports only the markets DTOs and the domain.',
      from: { path: '^src/demo/' },
      to: { path: '^src/', pathNot: '^src/(demo|domain)/|^src/markets/index\\.ts$' },
    },
    {
      name: 'transport-not-bin',
      severity: 'error',
      comment: 'src/transport never imports src/bin.',
      from: { path: '^src/transport/' },
      to: { path: '^src/bin/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import the cruiser cannot resolve would escape every rule above.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // `import type` edges count: a type-only cycle is still a cycle.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['cjs', 'es6'],
  },
};
