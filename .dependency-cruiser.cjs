/**
 * joinlab's layering (README "Layout"), checked by `npm run lint:deps` in `npm test`'s CI run.
 * A wrong import fails with the rule's name.
 *
 *   core/  <  strategies/, operators/  <  adapters/  <  bench/, composition root
 *
 * - core/ holds the contracts, keys, memory, expressions and the registry; it imports only core/.
 * - strategies/ (pushdown policies, hash-map layouts) import core/ and strategies/.
 * - operators/ (joins, scans over memory) import core/ and operators/.
 * - adapters/ (file formats and their scans, DuckDB, CLI, experiments, data generators) import
 *   anything but bench/.
 * - bench/ and the composition root (index.ts, composition.ts, bin/) may import anything.
 * - strategies/examples/ are user code: they import the package entry, index.ts.
 *
 * Tests (`*.test.ts`) follow the layer of the folder they sit in, and may also import the
 * composition root (to get an engine with the built-ins), the DuckDB oracle (adapters/duckdb)
 * and the random data generators (adapters/datagen): a differential test needs both sides.
 */
const TEST = '\\.test\\.ts$';
const ROOT = '^(index\\.ts|composition\\.ts|bin/)';
/** What a test may import beyond its layer. */
const TEST_EXTRAS = `${ROOT}|^adapters/(duckdb|datagen)/`;

/** A rule for source files of `layer` and one for its tests, both forbidding `banned`. */
function layer(name, from, banned, comment) {
  return [
    { name, comment, severity: 'error', from: { path: from, pathNot: TEST }, to: { path: banned } },
    {
      name: `${name} (tests)`,
      comment: `${comment} Tests may also import the composition root, adapters/duckdb and adapters/datagen.`,
      severity: 'error',
      from: { path: `${from}.*${TEST}` },
      to: { path: banned, pathNot: TEST_EXTRAS },
    },
  ];
}

module.exports = {
  forbidden: [
    ...layer('core-imports-only-core', '^core/', `^(strategies|operators|adapters|bench)/|${ROOT}`,
      'core/ holds contracts and shared primitives; it names no operator, strategy or file format.'),
    ...layer('strategies-import-core-and-strategies', '^strategies/(?!examples/)', `^(operators|adapters|bench)/|${ROOT}`,
      'A policy or layout is built from core/ contracts and primitives only.'),
    ...layer('operators-import-core-and-operators', '^operators/', `^(strategies|adapters|bench)/|${ROOT}`,
      'An operator reaches strategies through the registry, never by import.'),
    ...layer('adapters-never-import-bench', '^adapters/', '^bench/',
      'bench/ holds suites and experiment files; product code lives in adapters/.'),
    {
      name: 'examples-are-user-code',
      comment: 'An example extension imports index.ts, as a user extension would.',
      severity: 'error',
      from: { path: '^strategies/examples/', pathNot: TEST },
      to: { path: '^(core|strategies|operators|adapters|bench)/' },
    },
    {
      name: 'examples-are-user-code (tests)',
      comment: "An example's test may look inside the example and the strategies layer, like a policy's test.",
      severity: 'error',
      from: { path: `^strategies/examples/.*${TEST}` },
      to: { path: '^(operators|adapters|bench)/', pathNot: TEST_EXTRAS },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles make load order matter; break them with a module both sides import.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve to a file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'not-to-dev-dep',
      comment: 'Product code must not need a devDependency at run time.',
      severity: 'error',
      from: { path: '^(core|strategies|operators|adapters|composition\\.ts|index\\.ts|bin/)', pathNot: TEST },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: '(^|/)node_modules/' },
    exclude: { path: '(^|/)node_modules/|^joinlab-report/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.mjs', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
