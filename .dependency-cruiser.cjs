/**
 * joinlab's layering (docs/architecture.md), checked by `npm run lint:deps` in `npm test`'s CI run.
 * A wrong import fails with the rule's name.
 *
 *   core/  <  strategies/, operators/  <  adapters/  <  composition root  <  apps/  <  bench/, bin/
 *
 * - core/ holds the contracts, keys, memory, expressions and the registry; it imports only core/.
 * - strategies/ (pushdown policies, hash-map layouts) import core/ and strategies/.
 * - operators/ (joins, scans over memory) import core/ and operators/.
 * - adapters/ (file formats and their scans, DuckDB, SQL, data generators) import core/,
 *   strategies/, operators/ and adapters/: never the composition root, apps/ or bench/. Where an
 *   adapter needs an engine it names an interface (adapters/sql/run.ts's `SqlEngine`) and the
 *   caller passes the root's `Engine` in.
 * - the composition root (composition.ts, index.ts) wires core/, strategies/, operators/ and
 *   adapters/ into the one `Engine` facade; it imports neither apps/ nor bench/.
 * - apps/ (the CLI, the experiment runner and report, the workload and sqllogictest runners)
 *   import the root and everything below it, never bench/.
 * - bench/ and bin/ (the entry points) may import anything.
 * - strategies/examples/ are user code: they import the package entry, index.ts.
 *
 * Nothing below apps/ imports apps/.
 *
 * Tests (`*.test.ts`) follow the layer of the folder they sit in, and may also import the
 * composition root (to get an engine with the built-ins), the DuckDB oracle (adapters/duckdb)
 * and the random data generators (adapters/datagen): a differential test needs both sides.
 */
const TEST = '\\.test\\.ts$';
/** The composition root. */
const ROOT = '^(index\\.ts|composition\\.ts)';
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
    ...layer('core-imports-only-core', '^core/', `^(strategies|operators|adapters|apps|bench|bin)/|${ROOT}`,
      'core/ holds contracts and shared primitives; it names no operator, strategy or file format.'),
    ...layer('strategies-import-core-and-strategies', '^strategies/(?!examples/)', `^(operators|adapters|apps|bench|bin)/|${ROOT}`,
      'A policy or layout is built from core/ contracts and primitives only.'),
    ...layer('operators-import-core-and-operators', '^operators/', `^(strategies|adapters|apps|bench|bin)/|${ROOT}`,
      'An operator reaches strategies through the registry, never by import.'),
    ...layer('adapters-import-neither-root-nor-apps', '^adapters/', `^(apps|bench|bin)/|${ROOT}`,
      'adapters/ sit below the composition root: an adapter that needs an engine takes an interface the root implements.'),
    {
      name: 'root-imports-neither-apps-nor-bench',
      comment: 'The composition root (composition.ts, index.ts) wires the library; the CLI, runners and benchmarks sit above it.',
      severity: 'error',
      from: { path: ROOT },
      to: { path: '^(apps|bench|bin)/' },
    },
    ...layer('apps-never-import-bench', '^apps/', '^(bench|bin)/',
      'bench/ holds suites and experiment files; the CLI and the runners live in apps/.'),
    {
      name: 'examples-are-user-code',
      comment: 'An example extension imports index.ts, as a user extension would.',
      severity: 'error',
      from: { path: '^strategies/examples/', pathNot: TEST },
      to: { path: '^(core|strategies|operators|adapters|apps|bench|bin)/' },
    },
    {
      name: 'examples-are-user-code (tests)',
      comment: "An example's test may look inside the example and the strategies layer, like a policy's test.",
      severity: 'error',
      from: { path: `^strategies/examples/.*${TEST}` },
      to: { path: '^(operators|adapters|apps|bench|bin)/', pathNot: TEST_EXTRAS },
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
      from: { path: '^(core|strategies|operators|adapters|apps|composition\\.ts|index\\.ts|bin/)', pathNot: TEST },
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
