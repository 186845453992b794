/**
 * Experiment files (YAML or JSON): what to join, on which data, under which configurations.
 *
 * Why a schema of its own: an experiment runs for minutes, so a typo must fail *before* any data
 * is generated, and the error must say exactly where it is — `variants[1].config.pushdown.keyRangeBitmap`,
 * not "invalid input". Every problem becomes one `ConfigError` whose message starts with the key
 * path (the same `a.b[2].c` notation the file is written in) and says what was expected; its `key`
 * field holds that path. Each variant's merged configuration goes through the engine's own
 * `parseConfig`, so config keys mean exactly what they mean on the command line.
 *
 * Shape (see `bench/experiments/*.yaml` for examples):
 *
 *   name, description?
 *   data: { generator: star|sparse|skewed|unsorted|range, params?, seed? (1), rowGroupSize? (10240) }
 *       | { left: FILE, right: FILE }             (Parquet, Arrow IPC or CSV, relative to the file)
 *   join: { type, on?, range?, filter?, select?, nullEqualsNull?, nullAware? }   (as `JoinSpecInput`)
 *   -- or, instead of data + join, a query (run by `Engine.sql`, and by DuckDB as written) --
 *   sql: "SELECT …"
 *   tables: { NAME: FILE | { generator, params?, seed?, rowGroupSize?, table }, … }
 *                                                  (`table`: one of the generator's tables,
 *                                                  GENERATOR_TABLES; `left`/`right` for the two-sided ones)
 *   -- or a standard workload's query on its generated tables (apps/workloads/) --
 *   workload: { name: ssb|tpch, query: q1.1|q5|…, sf? (1), rowGroupSize? (100000) }
 *   -- or, to run the same variants over several data sets --
 *   datasets: [{ name?, data, join } | { name?, sql, tables } | { name?, workload }, …]
 *   config?: { … }                                 (base config under every variant)
 *   variants: [{ name, config: { … dotted or nested config keys } }, …]   (non-empty)
 *   extensions?: [FILE, …]  (relative to the file), warmup (1), duckdb (true), parity (true)
 *   repeat (3): timed runs per variant (and DuckDB), a positive integer, or `auto`: repeat until the
 *               95% confidence interval of the median is narrow enough (stats.ts), under
 *   repeatAuto ({ precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 }; only with
 *               `repeat: auto`, any key may be left out): stop once the interval's half-width is at
 *               most `precision` × the median (checked from `minRuns` on, at least 3), or after
 *               `maxRuns` runs, or once the timed runs of that variant on that data set (and join
 *               order) took `budgetSeconds`
 *   threads (1): every variant's joinlab `threads` and DuckDB's thread count alike (a variant's
 *                config may not set `threads`: the comparison is at one thread count)
 *   orders (0): N > 0 runs each variant under `sql.joinOrder` cost and random:1 … random:N (the
 *               same N orders for every variant; sql / workload data sets only, and no config may
 *               set sql.joinOrder or sql.joinOrderSeed then): how robust a variant is to the order
 *   baseline (the first variant): the variant every other one is compared with ("1.32x faster")
 *   timeout (none): seconds, a positive number — the time limit of one run (one repetition of one
 *               variant under one join order, one DuckDB run or DuckDB's answer for the parity
 *               checks); a run past it is aborted and recorded as a timeout, and the other runs of
 *               that variant and order are skipped (runner.ts)
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { applyOverrides, CORE_SCHEMA, flattenConfig, parseConfig, type Config, type ConfigSchema, type JoinOrderSetting } from '../../core/config/schema.ts';
import type { OwnedSettings } from '../../core/config/settings.ts';
import { extensionSettings } from '../../core/registry/extensions.ts';
import { BUILTIN_EXTENSIONS } from '../../composition.ts';
import { ConfigError, FileNotFoundError, isJoinlabError } from '../../core/errors.ts';
import { closestName } from '../../core/suggest.ts';
import { toJoinSpec, type JoinSpecInput } from '../../core/spec.ts';
import { JOIN_TYPES, RANGE_OPS, type JoinSpec } from '../../core/types.ts';
import { MIN_RUNS_FOR_CI, REPEAT_AUTO_DEFAULTS, repeatPlan, type RepeatAuto, type RepeatPlan } from './stats.ts';
import { DEFAULT_ROW_GROUP_SIZE, MIN_SF, queryTextSync, WORKLOAD_NAMES, WORKLOADS, type WorkloadDataSpec, type WorkloadName } from '../workloads/workloads.ts';

// ---------------------------------------------------------------------------------------------
// Generator parameters (the defaults live here so a parsed experiment is complete)
// ---------------------------------------------------------------------------------------------

const count = z.number().int().positive();
const fraction = z.number().min(0).max(1);

/**
 * Parameters of each built-in generator, with defaults. Every object is strict: a misspelt
 * parameter is an error, not a silently ignored default.
 */
export const GENERATOR_PARAMS = {
  /** orders (left, sorted by customer_id) x the selected customers (right). */
  star: z
    .object({
      orders: count.default(2_000_000),
      customers: count.default(100_000),
      /** Share of customers selected into the right side. */
      selectivity: fraction.default(0.01),
      /** Selected customers come in runs of this many consecutive ids (real selections cluster). */
      clusterSize: count.default(32),
    })
    .strict(),
  /** probe keys sorted, `rowsPerKey` rows per key; build keys `k % period < islandWidth`. */
  sparse: z
    .object({
      probeRows: count.default(2_000_000),
      rowsPerKey: count.default(10),
      period: count.default(10_000),
      islandWidth: count.default(200),
    })
    .strict(),
  /** probe with `hotShare` of its rows on `hotKeys` keys; build keys unique 0..buildRows-1. */
  skewed: z
    .object({
      probeRows: count.default(500_000),
      buildRows: count.default(100_000),
      hotKeys: count.default(10),
      hotShare: fraction.default(0.5),
    })
    .strict(),
  /**
   * probe keys `k = (hash % distinctPerRowGroup) * G + g` in row group g of G (written bucketed by
   * k mod G, so every row group's min/max spans the key range while its set of keys is its own);
   * build: `buildKeys` random keys of that domain. Only a per-row-group Bloom filter can prune.
   */
  unsorted: z
    .object({
      probeRows: count.default(2_000_000),
      distinctPerRowGroup: count.default(1000),
      buildKeys: count.default(20),
    })
    .strict(),
  /** two tables with a BIGINT `v` each; `overlap` is the shared fraction of their value ranges. */
  range: z
    .object({
      leftRows: count.default(2_000),
      rightRows: count.default(2_000),
      overlap: fraction.default(0.1),
      /** Write both sides sorted by `v` (the regime a piecewise merge join wants). */
      sorted: z.boolean().default(false),
    })
    .strict(),
  /**
   * A star schema of four tables (`fact` sorted by `date_key`; `date_dim`, `customer`, `product`)
   * whose fact keys are clustered by position, so each dimension's filter prunes fact row groups
   * of its own (generators.ts says how). For `sql:` data sets (`tables:`), not `join:`.
   */
  starschema: z
    .object({
      factRows: count.default(2_000_000),
      /** 20 regions of consecutive keys: a multiple of 20. */
      customers: count.multipleOf(20, 'expected a multiple of 20 (20 regions of consecutive keys)').default(100_000),
      /** 20 categories of consecutive keys: a multiple of 20. */
      products: count.multipleOf(20, 'expected a multiple of 20 (20 categories of consecutive keys)').default(20_000),
      /** Length of the runs of fact rows (in file order) whose customers come from one quarter of the keys. */
      customerRunRows: count.default(40_960),
      /** Length of the runs of fact rows whose products come from one quarter of the keys. */
      productRunRows: count.default(20_480),
    })
    .strict(),
  /**
   * The h2o.ai db-benchmark join task (`_data/join-datagen.R`): `x` of `rows` rows and the
   * right-hand tables `small` (rows/1e6), `medium` (rows/1e3) and `big` (rows); generators.ts says how.
   */
  h2o: z
    .object({
      rows: count.min(1000, 'expected at least 1000 rows (medium has rows/1000)').default(10_000_000),
    })
    .strict(),
} as const;

export type GeneratorName = keyof typeof GENERATOR_PARAMS;
export const GENERATOR_NAMES = Object.keys(GENERATOR_PARAMS) as GeneratorName[];
export type GeneratorParams = { [G in GeneratorName]: z.output<(typeof GENERATOR_PARAMS)[G]> };

/** The tables (Parquet files) each generator writes: `left`/`right` for a two-sided join, or a schema's. */
export const GENERATOR_TABLES: { readonly [G in GeneratorName]: readonly string[] } = {
  star: ['left', 'right'],
  sparse: ['left', 'right'],
  skewed: ['left', 'right'],
  unsorted: ['left', 'right'],
  range: ['left', 'right'],
  starschema: ['fact', 'date_dim', 'customer', 'product'],
  h2o: ['x', 'small', 'medium', 'big'],
};

// ---------------------------------------------------------------------------------------------
// The parsed experiment
// ---------------------------------------------------------------------------------------------

export interface GeneratedDataSpec<G extends GeneratorName = GeneratorName> {
  readonly kind: 'generator';
  readonly generator: G;
  /** Every parameter, defaults filled in. */
  readonly params: GeneratorParams[G];
  readonly seed: number;
  readonly rowGroupSize: number;
}

export interface FilesDataSpec {
  readonly kind: 'files';
  /** Absolute paths (resolved against the experiment file's directory). */
  readonly left: string;
  readonly right: string;
}

export type DataSpec = GeneratedDataSpec | FilesDataSpec;

/** The `join` block as written (plain JSON, kept for the report) — a `JoinSpecInput`. */
export interface JoinBlock {
  readonly type: JoinSpec['type'];
  readonly on?: string | readonly { left: string; right: string }[];
  readonly range?: string | { left: string; op: (typeof RANGE_OPS)[number]; right: string };
  readonly filter?: string;
  readonly select?: string | readonly string[];
  readonly nullEqualsNull?: boolean;
  readonly nullAware?: boolean;
}

/** A data set that runs one join (`data` + `join`) through `Engine.join`. */
export interface JoinDataset {
  readonly kind: 'join';
  readonly name: string;
  readonly data: DataSpec;
  readonly join: JoinBlock;
  /** The validated spec (filter parsed, keys split). */
  readonly spec: JoinSpec;
}

/** Where one table of a `sql:` data set comes from: a file, or one table of a generated data set. */
export type TableSource =
  | { readonly kind: 'file'; /** Absolute (resolved against the experiment file's directory). */ readonly path: string }
  | { readonly kind: 'generated'; readonly data: GeneratedDataSpec; /** One of `GENERATOR_TABLES[data.generator]`. */ readonly table: string }
  | { readonly kind: 'workload'; readonly data: Required<WorkloadDataSpec>; /** One of the workload's tables. */ readonly table: string };

/** A data set that runs a query (`sql` over `tables`) through `Engine.sql`, and DuckDB on the same SQL. */
export interface SqlDataset {
  readonly kind: 'sql';
  readonly name: string;
  readonly sql: string;
  /** The key path of `sql` in the file (`sql`, `datasets[2].sql`), for messages about the query. */
  readonly at: string;
  /** By the name the query uses. */
  readonly tables: Readonly<Record<string, TableSource>>;
  /** A `workload:` data set: which query of which workload (its text is `sql`). */
  readonly workload?: { readonly name: WorkloadName; readonly query: string; readonly sf: number };
}

export type Dataset = JoinDataset | SqlDataset;

export interface Variant {
  readonly name: string;
  /** The variant's own overrides, flattened to dotted keys, as written. */
  readonly overrides: Record<string, unknown>;
  /** base config + overrides, validated, defaults filled, extensions resolved to absolute paths. */
  readonly config: Config;
}

export interface Experiment {
  readonly name: string;
  readonly description?: string;
  /** Absolute path of the experiment file, or '<inline>'. */
  readonly source: string;
  /** Directory relative paths (data files, extensions) resolve against. */
  readonly baseDir: string;
  readonly datasets: readonly Dataset[];
  readonly variants: readonly Variant[];
  readonly extensions: readonly string[];
  /** Timed runs per variant (and DuckDB), or `auto`: until the 95% interval is narrow (`repeatAuto`). */
  readonly repeat: number | 'auto';
  /** With `repeat: auto`, its settings (defaults filled in); null otherwise. */
  readonly repeatAuto: RepeatAuto | null;
  readonly warmup: number;
  readonly duckdb: boolean;
  readonly parity: boolean;
  /** joinlab's `threads` in every variant, and DuckDB's thread count. */
  readonly threads: number;
  /** Random join orders each variant runs beside the cost-based one (0: the configured order only). */
  readonly orders: number;
  /** The name of the variant the others are compared with (`baseline`, default the first variant). */
  readonly baseline: string;
  /** Time limit of one run in seconds (`timeout`), or null: none. */
  readonly timeout: number | null;
  /** Config overrides from the command line (`joinlab run --set k=v`), applied to every variant: dotted keys, converted. */
  readonly set: Record<string, unknown>;
}

/** How many timed runs each variant (and DuckDB) takes: `repeat: N`, or `repeat: auto` with its settings. */
export function repeatPlanOf(exp: Pick<Experiment, 'repeat' | 'repeatAuto'>): RepeatPlan {
  return repeatPlan(exp.repeat, exp.repeatAuto);
}

/**
 * The join orders an experiment runs each variant under: none (the variant's own config) when
 * `orders` is 0, else `cost` then `random:1` … `random:N` (`sql.joinOrder` values).
 */
export function joinOrdersOf(exp: Pick<Experiment, 'orders'>): readonly JoinOrderSetting[] {
  if (exp.orders === 0) return [];
  return ['cost', ...Array.from({ length: exp.orders }, (_, i) => `random:${i + 1}` as const)];
}

// ---------------------------------------------------------------------------------------------
// zod schemas (shape only; cross-field rules are checked below)
// ---------------------------------------------------------------------------------------------

/** The config keys `orders` sets itself, which no config may set beside it. */
const JOIN_ORDER_KEYS = ['sql.joinOrder', 'sql.joinOrderSeed'] as const;

/**
 * The longest `timeout`: Node keeps a timer of at most 2^31 - 1 ms (~24.8 days); a longer one
 * fires at once (with a warning), which would time every run out.
 */
const MAX_TIMEOUT_S = 2_147_483;

const configObject = z.record(z.string(), z.unknown(), { error: 'expected an object of config keys (dotted or nested)' });
const path = z.string().min(1, 'expected a file path');

const topSchema = z
  .object({
    name: z.string().min(1, 'expected a non-empty name'),
    description: z.string().optional(),
    data: z.unknown().optional(),
    join: z.unknown().optional(),
    sql: z.unknown().optional(),
    tables: z.unknown().optional(),
    workload: z.unknown().optional(),
    datasets: z.array(z.unknown()).min(1, 'expected at least one data set').optional(),
    config: configObject.optional(),
    variants: z.array(z.unknown()).min(1, 'expected at least one variant'),
    extensions: z.array(path).default([]),
    repeat: z.union([z.number().int().positive(), z.literal('auto')], { error: "expected a positive number of timed runs, or 'auto'" }).default(3),
    repeatAuto: z
      .object({
        precision: z.number().positive('expected a fraction of the median, such as 0.05 (±5%)').max(1, 'expected a fraction of the median, at most 1').default(REPEAT_AUTO_DEFAULTS.precision),
        minRuns: z.number().int().min(MIN_RUNS_FOR_CI, `expected at least ${MIN_RUNS_FOR_CI} runs (a confidence interval needs them)`).default(REPEAT_AUTO_DEFAULTS.minRuns),
        maxRuns: z.number().int().positive().max(10_000).default(REPEAT_AUTO_DEFAULTS.maxRuns),
        budgetSeconds: z.number().positive('expected a positive number of seconds').default(REPEAT_AUTO_DEFAULTS.budgetSeconds),
      })
      .strict()
      .optional(),
    warmup: z.number().int().nonnegative().default(1),
    duckdb: z.boolean().default(true),
    parity: z.boolean().default(true),
    threads: z.number().int().positive().max(64).default(1),
    orders: z.number({ error: 'expected a number of random join orders (0: none)' }).int().nonnegative().default(0),
    baseline: z.string().min(1, 'expected the name of a variant').optional(),
    timeout: z
      .number({ error: 'expected a time limit per run in seconds (a positive number)' })
      .positive('expected a positive number of seconds')
      .max(MAX_TIMEOUT_S, `expected at most ${MAX_TIMEOUT_S} s (~24.8 days, the longest timer Node keeps)`)
      .optional(),
  })
  .strict();

const datasetSchema = z
  .object({
    name: z.string().min(1).optional(),
    data: z.unknown().optional(),
    join: z.unknown().optional(),
    sql: z.unknown().optional(),
    tables: z.unknown().optional(),
    workload: z.unknown().optional(),
  })
  .strict();

const workloadSchema = z
  .object({
    name: z.enum(WORKLOAD_NAMES as [WorkloadName, ...WorkloadName[]]),
    query: z.string().min(1, 'expected a query name (e.g. q1.1, q5)'),
    sf: z.number().min(MIN_SF, `expected a scale factor of at least ${MIN_SF}`).default(1),
    rowGroupSize: z.number().int().positive().default(DEFAULT_ROW_GROUP_SIZE),
  })
  .strict();

const generatorHead = z
  .object({
    generator: z.enum(GENERATOR_NAMES as [GeneratorName, ...GeneratorName[]]),
    params: z.record(z.string(), z.unknown(), { error: 'expected an object of generator parameters' }).optional(),
    seed: z.number().int().default(1),
    rowGroupSize: z.number().int().positive().default(10_240),
  })
  .strict();

const filesData = z.object({ left: path, right: path }).strict();

const generatedTable = generatorHead.extend({ table: z.string().min(1, 'expected a table name') }).strict();

const keyPair = z.object({ left: z.string().min(1), right: z.string().min(1) }).strict();
const joinSchema = z
  .object({
    type: z.enum(JOIN_TYPES),
    on: z
      .union([z.string().min(1), z.array(keyPair).min(1)], { error: "expected 'a=b[,c=d]' or a list of { left, right } key pairs" })
      .optional(),
    range: z
      .union([z.string().min(1), z.object({ left: z.string().min(1), op: z.enum(RANGE_OPS), right: z.string().min(1) }).strict()], {
        error: "expected 'l.x < r.y' (one of < <= > >=) or { left, op, right }",
      })
      .optional(),
    filter: z.string().min(1).optional(),
    select: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], { error: "expected 'a,b' or a list of output column names" }).optional(),
    nullEqualsNull: z.boolean().optional(),
    nullAware: z.boolean().optional(),
  })
  .strict();

const variantSchema = z.object({ name: z.string().min(1, 'expected a non-empty name'), config: configObject.default({}) }).strict();

// ---------------------------------------------------------------------------------------------
// Error reporting
// ---------------------------------------------------------------------------------------------

type PathPart = string | number;

/** ['variants', 1, 'config'] -> 'variants[1].config'. */
export function formatPath(parts: readonly PathPart[]): string {
  let s = '';
  for (const p of parts) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}

function valueAt(root: unknown, parts: readonly PathPart[]): unknown {
  let v = root;
  for (const p of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PathPart, unknown>)[p];
  }
  return v;
}

class Problems {
  constructor(readonly source: string) {}

  fail(parts: readonly PathPart[], message: string): never {
    const where = formatPath(parts);
    throw new ConfigError(`experiment ${this.source}: ${where ? `${where}: ` : ''}${message}`, where || undefined);
  }

  /** Parses `value` (found at `at`) with `schema`, or throws naming the first bad key. */
  parse<S extends z.ZodType>(schema: S, value: unknown, at: readonly PathPart[]): z.output<S> {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    // An unknown key first: it is usually the misspelling of the key reported missing.
    const issue = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0]!;
    const parts = [...at, ...(issue.path as PathPart[])];
    if (issue.code === 'unrecognized_keys') {
      const shape = schemaKeys(schema, issue.path as PathPart[]);
      const known = shape.length ? `; expected one of: ${shape.join(', ')}` : '';
      const close = closestName(String(issue.keys[0]!), shape);
      this.fail([...parts, issue.keys[0]!], `unknown key${close !== null ? ` (did you mean '${close}'?)` : ''}${known}`);
    }
    const message = issue.message.replace(/^Invalid (option|input): /, '');
    const got = valueAt(value, issue.path as PathPart[]);
    if (got === undefined) this.fail(parts, issue.code === 'invalid_type' ? `required (expected ${issue.expected})` : `required (${message})`);
    // String for numbers: JSON has no Infinity (YAML's .inf would show as null)
    const shown = typeof got === 'object' && got !== null ? '' : ` (got ${typeof got === 'number' ? String(got) : JSON.stringify(got)})`;
    this.fail(parts, `${message}${shown}`);
  }
}

/** The keys an object schema (or the object schema at `sub` inside it) accepts, for messages. */
function schemaKeys(schema: z.ZodType, sub: readonly PathPart[]): string[] {
  let s: unknown = schema;
  for (const p of sub) {
    s = unwrap(s);
    if (s instanceof z.ZodObject) s = s.shape[p as string];
    else if (s instanceof z.ZodArray) s = s.element;
    else return [];
  }
  s = unwrap(s);
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

function unwrap(s: unknown): unknown {
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault) s = s.unwrap();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

export interface ParseExperimentOptions {
  /** Directory relative paths resolve against (default: the working directory). */
  readonly baseDir?: string;
  /** Shown in error messages (default: '<inline>'). */
  readonly source?: string;
  /**
   * `KEY=VALUE` config overrides (`joinlab run --set`), applied over every variant's config, after
   * the file's own; validated like a `--set` anywhere (an unknown key or a bad value is an error
   * naming `--set`). `threads` sets the experiment's `threads` (joinlab's and DuckDB's alike).
   */
  readonly set?: readonly string[];
  /** Timed runs per variant, instead of the file's `repeat` (`joinlab run --repeat N|auto`). */
  readonly repeat?: number | 'auto';
  /**
   * The keys a configuration that loads `extensions` (absolute paths, as a variant's config holds
   * them; omitted: every extension the experiment names) is validated against: core's, the
   * built-ins' and those extensions' settings (core/config/settings.ts). `loadExperiment` imports
   * the extensions first to know them; without it, core's keys alone.
   */
  readonly configSchema?: (extensions?: readonly string[]) => ConfigSchema;
}

function resolvePath(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

/** Relative extension specifiers (`./x.js`, `../x.js`, `x.js` with a path separator or file extension) → absolute. */
function resolveExtension(baseDir: string, p: string): string {
  if (p.startsWith('file:') || isAbsolute(p)) return p;
  if (p.startsWith('../../bench/experiments/') || p.startsWith('../../bench/') || /\.[cm]?[jt]s$/.test(p)) return resolve(baseDir, p);
  return p; // a package name
}

function parseData(p: Problems, raw: unknown, at: PathPart[], baseDir: string): DataSpec {
  if (raw === undefined) p.fail(at, 'required (expected { generator, params?, seed?, rowGroupSize? } or { left, right })');
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    p.fail(at, `expected { generator: ${GENERATOR_NAMES.join('|')}, … } or { left: FILE, right: FILE }`);
  }
  const obj = raw as Record<string, unknown>;
  if ('generator' in obj) {
    const head = p.parse(generatorHead, obj, at);
    if (!isTwoSided(head.generator)) {
      p.fail([...at, 'generator'], `${head.generator} writes the tables ${GENERATOR_TABLES[head.generator].join(', ')}, not left and right: use it in a sql: data set (tables: { NAME: { generator: ${head.generator}, table: … } })`);
    }
    return generatedSpec(p, head, at);
  }
  if ('left' in obj || 'right' in obj) {
    const f = p.parse(filesData, obj, at);
    return { kind: 'files', left: resolvePath(baseDir, f.left), right: resolvePath(baseDir, f.right) };
  }
  return p.fail(at, `expected { generator: ${GENERATOR_NAMES.join('|')}, … } or { left: FILE, right: FILE }`);
}

function isTwoSided(g: GeneratorName): boolean {
  const t = GENERATOR_TABLES[g];
  return t.length === 2 && t[0] === 'left' && t[1] === 'right';
}

function generatedSpec(p: Problems, head: z.output<typeof generatorHead>, at: PathPart[]): GeneratedDataSpec {
  const params = p.parse(GENERATOR_PARAMS[head.generator], head.params ?? {}, [...at, 'params']);
  return { kind: 'generator', generator: head.generator, params, seed: head.seed, rowGroupSize: head.rowGroupSize } as GeneratedDataSpec;
}

const TABLE_EXPECTED = 'expected FILE or { generator, params?, seed?, rowGroupSize?, table }';

function parseTables(p: Problems, raw: unknown, at: PathPart[], baseDir: string): Record<string, TableSource> {
  if (raw === undefined) p.fail(at, `required beside 'sql' (expected { NAME: FILE or { generator, params?, seed?, rowGroupSize?, table }, … })`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) p.fail(at, 'expected an object { NAME: FILE or { generator, …, table }, … } naming the tables the query reads');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0) p.fail(at, 'expected at least one table');
  const out: Record<string, TableSource> = {};
  for (const [name, v] of entries) {
    const here = [...at, name];
    if (typeof v === 'string') {
      if (v.length === 0) p.fail(here, 'expected a file path');
      out[name] = { kind: 'file', path: resolvePath(baseDir, v) };
    } else if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'generator' in v) {
      const t = p.parse(generatedTable, v, here);
      const known = GENERATOR_TABLES[t.generator];
      if (!known.includes(t.table)) p.fail([...here, 'table'], `generator ${t.generator} writes no table '${t.table}'; expected one of: ${known.join(', ')}`);
      const { table, ...head } = t;
      out[name] = { kind: 'generated', data: generatedSpec(p, head, here), table };
    } else {
      p.fail(here, TABLE_EXPECTED);
    }
  }
  return out;
}

/**
 * A `workload:` data set: the query's text (queries/<workload>/<query>.sql) over every table of the
 * workload at the scale factor (generated by the runner, cached).
 */
function parseWorkload(p: Problems, raw: { data?: unknown; join?: unknown; sql?: unknown; tables?: unknown; workload?: unknown }, at: PathPart[], name: string | undefined): Dataset {
  for (const key of ['data', 'join', 'sql', 'tables'] as const) {
    if (raw[key] !== undefined) p.fail([...at, key], "not allowed beside 'workload' (the workload names its tables and its query)");
  }
  const here = [...at, 'workload'];
  if (raw.workload === null || typeof raw.workload !== 'object' || Array.isArray(raw.workload)) p.fail(here, `expected { name: ${WORKLOAD_NAMES.join('|')}, query, sf?, rowGroupSize? }`);
  const w = p.parse(workloadSchema, raw.workload, here);
  const def = WORKLOADS[w.name];
  if (w.sf > def.maxSf) p.fail([...here, 'sf'], `expected a scale factor of at most ${def.maxSf} for ${w.name} (got ${w.sf})`);
  const query = w.query.toLowerCase();
  if (!(def.queries as readonly string[]).includes(query)) p.fail([...here, 'query'], `${w.name} has no query '${w.query}'; expected one of: ${def.queries.join(', ')}`);
  const data: Required<WorkloadDataSpec> = { workload: w.name, sf: w.sf, rowGroupSize: w.rowGroupSize, seed: 1 };
  const tables = Object.fromEntries(def.tables.map((table) => [table, { kind: 'workload' as const, data, table }]));
  return {
    kind: 'sql',
    name: name ?? `${w.name} ${query} sf=${w.sf}`,
    sql: queryTextSync(w.name, query),
    at: formatPath([...here, 'query']),
    tables,
    workload: { name: w.name, query, sf: w.sf },
  };
}

/** The query of a data set: `data` + `join`, `sql` + `tables` (exactly one of join and sql), or `workload`. */
function parseQuery(
  p: Problems,
  raw: { data?: unknown; join?: unknown; sql?: unknown; tables?: unknown; workload?: unknown },
  at: PathPart[],
  baseDir: string,
  name: string | undefined,
): Dataset {
  if (raw.workload !== undefined) return parseWorkload(p, raw, at, name);
  if (raw.join !== undefined && raw.sql !== undefined) {
    p.fail([...at, 'sql'], "not allowed beside 'join': a data set runs either a join (data + join) or a query (sql + tables)");
  }
  if (raw.sql !== undefined) {
    if (typeof raw.sql !== 'string' || raw.sql.trim() === '') p.fail([...at, 'sql'], 'expected the query text ("SELECT …")');
    if (raw.data !== undefined) p.fail([...at, 'data'], "not allowed beside 'sql' (name the query's tables under 'tables')");
    const tables = parseTables(p, raw.tables, [...at, 'tables'], baseDir);
    return { kind: 'sql', name: name ?? `sql over ${Object.keys(tables).join(', ')}`, sql: raw.sql as string, at: formatPath([...at, 'sql']), tables };
  }
  if (raw.join === undefined) {
    p.fail([...at, 'join'], 'required: a data set runs either a join (data + join: { type, on?, … }), a query (sql: "SELECT …" + tables) or a workload query (workload: { name, query, sf? })');
  }
  if (raw.tables !== undefined) p.fail([...at, 'tables'], "only beside 'sql' (a join reads data: { left, right } or a generator's two files)");
  const data = parseData(p, raw.data, [...at, 'data'], baseDir);
  const { join, spec } = parseJoin(p, raw.join, [...at, 'join']);
  return { kind: 'join', name: name ?? defaultDatasetName(data), data, join, spec };
}

function parseJoin(p: Problems, raw: unknown, at: PathPart[]): { join: JoinBlock; spec: JoinSpec } {
  if (raw === undefined) p.fail(at, `required (expected { type: ${JOIN_TYPES.join('|')}, on?, range?, filter?, … })`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) p.fail(at, 'expected an object { type, on?, range?, filter?, nullEqualsNull?, nullAware? }');
  const join = p.parse(joinSchema, raw, at) as JoinBlock;
  if (join.on === undefined && join.range === undefined) p.fail([...at, 'on'], "required unless 'range' is given (e.g. on: customer_id=customer_id)");
  let spec: JoinSpec;
  try {
    spec = toJoinSpec(join as JoinSpecInput);
  } catch (e) {
    if (!isJoinlabError(e)) throw e;
    const key =
      e.kind === 'expression' ? 'filter' : /--range|range operator/.test(e.message) ? 'range' : /--on/.test(e.message) ? 'on' : /--select/.test(e.message) ? 'select' : undefined;
    p.fail(key ? [...at, key] : at, e.message.replace(/--(on|range|filter|select)\b/g, '$1'));
  }
  return { join, spec };
}

/** Validates an already-parsed experiment object (from YAML or JSON). */
export function parseExperiment(raw: unknown, options: ParseExperimentOptions = {}): Experiment {
  const source = options.source ?? '<inline>';
  const baseDir = options.baseDir ?? process.cwd();
  const p: Problems = new Problems(source);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) p.fail([], 'expected an object with name, data, join and variants');
  const parsedTop = p.parse(topSchema, raw, []);
  const schemaFor = options.configSchema ?? (() => CORE_SCHEMA);
  const cliSet = commandLineOverrides(options.set ?? [], schemaFor());
  if (options.repeat !== undefined && options.repeat !== 'auto' && !(Number.isInteger(options.repeat) && options.repeat > 0)) {
    throw new ConfigError(`--repeat expects a positive integer or 'auto', got ${options.repeat}`);
  }
  const top = {
    ...parsedTop,
    ...(options.repeat !== undefined ? { repeat: options.repeat } : {}),
    ...(typeof cliSet.threads === 'number' ? { threads: cliSet.threads } : {}),
  };
  if (top.orders > 0) {
    for (const key of JOIN_ORDER_KEYS) {
      if (key in cliSet) throw new ConfigError(`--set ${key}: not allowed with orders: ${top.orders} (every variant runs under sql.joinOrder cost and random:1 … random:${top.orders})`, key);
    }
  }

  // data + join, sql + tables, or datasets
  const datasets: Dataset[] = [];
  if (top.datasets !== undefined) {
    for (const key of ['data', 'join', 'sql', 'tables', 'workload'] as const) {
      if (top[key] !== undefined) p.fail([key], "not allowed beside 'datasets' (put it inside each data set)");
    }
    top.datasets.forEach((d, i) => {
      const at = ['datasets', i];
      if (d === null || typeof d !== 'object' || Array.isArray(d)) p.fail(at, 'expected { name?, data, join }, { name?, sql, tables } or { name?, workload }');
      const ds = p.parse(datasetSchema, d, at);
      datasets.push(parseQuery(p, ds, at, baseDir, ds.name));
    });
  } else {
    datasets.push(parseQuery(p, top, [], baseDir, undefined));
  }
  const seenData = new Map<string, number>();
  datasets.forEach((d, i) => {
    const prev = seenData.get(d.name);
    if (prev !== undefined) p.fail(['datasets', i, 'name'], `duplicate data set name '${d.name}' (also datasets[${prev}]); give each a distinct name`);
    seenData.set(d.name, i);
  });

  // base config + variants
  const extensions = top.extensions.map((e) => resolveExtension(baseDir, e));
  let base: Record<string, unknown> = {};
  if (top.config !== undefined) {
    try {
      base = flattenConfig(top.config);
    } catch (e) {
      p.fail(['config'], (e as Error).message);
    }
  }
  const variants: Variant[] = [];
  const seenVariant = new Map<string, number>();
  top.variants.forEach((v, i) => {
    const at = ['variants', i];
    if (v === null || typeof v !== 'object' || Array.isArray(v)) p.fail(at, 'expected { name, config }');
    const parsed = p.parse(variantSchema, v, at);
    const prev = seenVariant.get(parsed.name);
    if (prev !== undefined) p.fail([...at, 'name'], `duplicate variant name '${parsed.name}' (also variants[${prev}])`);
    seenVariant.set(parsed.name, i);
    let overrides: Record<string, unknown>;
    try {
      overrides = flattenConfig(parsed.config);
    } catch (e) {
      return p.fail([...at, 'config'], (e as Error).message);
    }
    if (top.orders > 0) {
      for (const key of JOIN_ORDER_KEYS) {
        if (key in overrides || key in base) {
          p.fail(key in overrides ? [...at, 'config', key] : ['config', key], `not allowed with orders: ${top.orders} (every variant runs under sql.joinOrder cost and random:1 … random:${top.orders})`);
        }
      }
    }
    if ('threads' in overrides || 'threads' in base) {
      p.fail('threads' in overrides ? [...at, 'config', 'threads'] : ['config', 'threads'], "set threads at the top of the experiment (DuckDB runs at the same count), not in a config");
    }
    const { threads: _threads, extensions: cliExtensions, ...cliRest } = cliSet;
    const merged: Record<string, unknown> = { ...base, ...overrides, ...cliRest, threads: top.threads };
    const ownExt = (x: unknown) => (Array.isArray(x) ? x.map((s) => (typeof s === 'string' ? resolveExtension(baseDir, s) : s)) : x);
    const exts = [
      ...extensions,
      ...((ownExt(base.extensions) as unknown[] | undefined) ?? []),
      ...((ownExt(overrides.extensions) as unknown[] | undefined) ?? []),
      // --set extensions=… names modules relative to the working directory, as on the command line
      ...((cliExtensions as string[] | undefined) ?? []).map((e) => resolveExtension(process.cwd(), e)),
    ];
    if (!Array.isArray(overrides.extensions ?? []) || !Array.isArray(base.extensions ?? [])) {
      const where = !Array.isArray(overrides.extensions ?? []) ? [...at, 'config', 'extensions'] : ['config', 'extensions'];
      p.fail(where, 'expected a list of extension paths');
    }
    merged.extensions = [...new Set(exts)];
    let config: Config;
    try {
      config = parseConfig(merged, schemaFor(merged.extensions as string[]));
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      const key = e.key;
      const inVariant = key === undefined || key in overrides || !(key in base);
      const where = inVariant ? [...at, 'config', ...(key ? [key] : [])] : ['config', ...(key ? [key] : [])];
      p.fail(where, `${e.message} (variant '${parsed.name}')`);
    }
    variants.push({ name: parsed.name, overrides, config });
  });

  if (top.orders > 0) {
    const i = datasets.findIndex((d) => d.kind === 'join');
    if (i >= 0) {
      const which = top.datasets !== undefined ? `datasets[${i}] ('${datasets[i]!.name}')` : 'the data set';
      p.fail(['orders'], `join orders need sql: or workload: data sets; ${which} runs one join (data + join), whose order is fixed`);
    }
  }
  if (top.repeatAuto !== undefined && top.repeat !== 'auto') {
    // `--repeat N` on the command line replaces an `auto` file's repeat: its settings then stand unused
    if (options.repeat === undefined) p.fail(['repeatAuto'], `only with repeat: auto (repeat is ${top.repeat})`);
  }
  const repeatAuto = top.repeat === 'auto' ? (top.repeatAuto ?? REPEAT_AUTO_DEFAULTS) : null;
  if (repeatAuto !== null && repeatAuto.maxRuns < repeatAuto.minRuns) p.fail(['repeatAuto', 'maxRuns'], `expected at least minRuns (${repeatAuto.minRuns}), got ${repeatAuto.maxRuns}`);
  const names = variants.map((v) => v.name);
  if (top.baseline !== undefined && !names.includes(top.baseline)) p.fail(['baseline'], `no variant is named '${top.baseline}'; expected one of: ${names.join(', ')}`);

  return {
    name: top.name,
    description: top.description,
    source,
    baseDir,
    datasets,
    variants,
    extensions,
    repeat: top.repeat,
    repeatAuto,
    warmup: top.warmup,
    duckdb: top.duckdb,
    parity: top.parity,
    threads: top.threads,
    orders: top.orders,
    baseline: top.baseline ?? names[0]!,
    timeout: top.timeout ?? null,
    set: cliSet,
  };
}

/**
 * `--set KEY=VALUE`… as dotted keys with converted values, validated on their own first (an unknown
 * key or a bad value names `--set`, not a variant: it is in no variant of the file).
 */
function commandLineOverrides(set: readonly string[], schema: ConfigSchema): Record<string, unknown> {
  if (set.length === 0) return {};
  const flat = applyOverrides({}, set, schema);
  try {
    parseConfig(flat, schema);
  } catch (e) {
    if (e instanceof ConfigError) throw new ConfigError(`--set: ${e.message}`, e.key);
    throw e;
  }
  return flat;
}

function defaultDatasetName(data: DataSpec): string {
  return data.kind === 'generator' ? data.generator : `${basename(data.left)} x ${basename(data.right)}`;
}

/** Parses experiment file text (JSON when the name ends in .json, else YAML, which also reads JSON). */
export function parseExperimentText(text: string, options: ParseExperimentOptions & { format?: 'json' | 'yaml' } = {}): Experiment {
  const source = options.source ?? '<inline>';
  return parseExperiment(rawExperiment(text, source, options.format), { ...options, source });
}

function rawExperiment(text: string, source: string, format: 'json' | 'yaml' | undefined): unknown {
  try {
    return format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(`experiment ${source}: cannot parse: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * Every extension an experiment names — top-level `extensions`, the base config's and each
 * variant's `extensions`, `--set extensions=…` (relative to the working directory) — resolved as
 * `parseExperiment` resolves them. Malformed parts are skipped: parsing reports them.
 */
function namedExtensions(raw: unknown, baseDir: string, set: readonly string[]): string[] {
  const out: string[] = [];
  const add = (list: unknown, dir: string) => {
    if (Array.isArray(list)) for (const e of list) if (typeof e === 'string') out.push(resolveExtension(dir, e));
  };
  const configExtensions = (config: unknown): unknown => {
    try {
      return config !== null && typeof config === 'object' ? flattenConfig(config).extensions : undefined;
    } catch {
      return undefined;
    }
  };
  if (raw === null || typeof raw !== 'object') return out;
  const top = raw as { extensions?: unknown; config?: unknown; variants?: unknown };
  add(top.extensions, baseDir);
  add(configExtensions(top.config), baseDir);
  if (Array.isArray(top.variants)) for (const v of top.variants) add(configExtensions((v as { config?: unknown } | null)?.config), baseDir);
  for (const o of set) {
    const eq = o.indexOf('=');
    if (eq > 0 && o.slice(0, eq).trim() === 'extensions') add(o.slice(eq + 1).trim().split(',').filter(Boolean), process.cwd());
  }
  return [...new Set(out)];
}

/**
 * What `parseExperiment` validates configurations against, from the settings of the built-in
 * extensions and of every extension the experiment names (imported here: a missing or broken one
 * fails now, before any data is generated).
 */
async function experimentConfigSchema(raw: unknown, baseDir: string, set: readonly string[]): Promise<(extensions?: readonly string[]) => ConfigSchema> {
  const builtins = await extensionSettings(BUILTIN_EXTENSIONS);
  const named = new Map<string, OwnedSettings | undefined>();
  for (const e of namedExtensions(raw, baseDir, set)) named.set(e, (await extensionSettings([e], baseDir))[0]);
  const all = CORE_SCHEMA.with([...builtins, ...[...named.values()].filter((s) => s !== undefined)]);
  return (extensions) => {
    if (extensions === undefined) return all;
    const own = extensions.map((e) => named.get(e)).filter((s) => s !== undefined);
    return CORE_SCHEMA.with([...builtins, ...own]);
  };
}

/** What the command line adds to an experiment file: `--set` overrides and `--repeat`. */
export type ExperimentOverrides = Pick<ParseExperimentOptions, 'set' | 'repeat'>;

/** Reads and validates an experiment file; relative paths inside it resolve against its directory. */
export async function loadExperiment(file: string, overrides: ExperimentOverrides = {}): Promise<Experiment> {
  const abs = resolve(file);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new FileNotFoundError(file);
    throw e;
  }
  const format = extname(abs).toLowerCase() === '.json' ? 'json' : 'yaml';
  const raw = rawExperiment(text, abs, format);
  const configSchema = await experimentConfigSchema(raw, dirname(abs), overrides.set ?? []);
  return parseExperiment(raw, { ...overrides, source: abs, baseDir: dirname(abs), configSchema });
}
