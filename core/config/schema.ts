/**
 * The configuration: one flat object of dotted keys (`hash.mode`, `pushdown.keyRangeBitmap`),
 * validated with zod.
 *
 * Files may nest (`hash: { mode: partitioned }`) or use dotted keys; both flatten to the same
 * object before validation, and `--set k=v` overrides are applied on top. Strategy *names*
 * (`join`, `pushdown`, `hashmap`, …) are only checked to be words here: which names exist depends
 * on the extensions loaded, so the registry checks them when a run resolves its strategies.
 * Unknown keys are an error naming the key (a typo must not silently run the default).
 *
 * Types are strict: a number key takes a number and a boolean key a boolean. `{"hash":
 * {"partitions": true}}` used to be coerced to 1 and `[4]` to 4 — a config that says something
 * else than what runs. Only `--set` values arrive as text, so `applyOverrides` converts them by
 * the key's type (`batchSize=64` -> 64, `pushdown.keyRangeBitmap=off` -> false) and leaves text it
 * cannot convert as text, which validation then rejects naming the key.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { parseByteSize } from '../memory/pool.ts';
import { didYouMean } from '../suggest.ts';

const strategyName = z.string().regex(/^[A-Za-z0-9_.\-]+$/, 'a strategy name (letters, digits, . _ -)');
const positiveInt = z.number().int().positive();
const bool = z.boolean();
const nonNegativeInt = z.number().int().nonnegative();
const KIB = 1024;
const MIB = 1024 * 1024;
/** Bloom filter bits a split-block filter can hold (2 GiB). */
const MAX_BLOOM_BITS = 2 ** 34;
const byteSize = z.unknown().transform((v, ctx) => {
  if (typeof v !== 'number' && typeof v !== 'string') {
    ctx.addIssue({ code: 'custom', message: `expected a number of bytes or a size like 512MB, 2GiB, unlimited, not ${v === null ? 'null' : typeof v}` });
    return z.NEVER;
  }
  try {
    return parseByteSize(v);
  } catch (e) {
    ctx.addIssue({ code: 'custom', message: (e as Error).message });
    return z.NEVER;
  }
});

/** Most worker threads a run may ask for. */
export const MAX_THREADS = 64;

/**
 * The default of `threads`: the machine's cores (`os.availableParallelism()`), or the environment's
 * `JOINLAB_THREADS` when set (the test suite pins 1, so tests that do not ask for threads run as
 * before; those about parallelism set `threads` themselves).
 */
export const DEFAULT_THREADS = defaultThreads();

function defaultThreads(): number {
  const env = process.env.JOINLAB_THREADS;
  if (env !== undefined && env.trim() !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 1 || n > MAX_THREADS) throw new ConfigError(`JOINLAB_THREADS must be an integer from 1 to ${MAX_THREADS}, got '${env}'`, 'threads');
    return n;
  }
  return Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

/** A value of `sql.joinOrder`: one of the modes, or `random:SEED` (a random order drawn from SEED). */
export type JoinOrderSetting = 'cost' | 'written' | 'random' | `random:${number}`;

/**
 * `random:SEED` exists so that one key names one order: an experiment's variants and the runner's
 * `orders` can say "random order 3" in a single value (`--set sql.joinOrder=random:3`) rather
 * than as a pair of keys. SEED is a non-negative integer written in decimal (no sign, no leading
 * zeros, at most 2^53 - 1), so each seed has one spelling.
 */
export function isJoinOrderSetting(v: unknown): v is JoinOrderSetting {
  if (v === 'cost' || v === 'written' || v === 'random') return true;
  if (typeof v !== 'string') return false;
  const m = /^random:(0|[1-9]\d*)$/.exec(v);
  return m !== null && Number.isSafeInteger(Number(m[1]));
}

const joinOrder = z.custom<JoinOrderSetting>(isJoinOrderSetting, {
  error: 'expected cost, written, random or random:SEED (SEED a non-negative integer, e.g. random:3)',
});

/** A byte size of at most `max` (Trino's @MaxDataSize). */
const atMost = (max: number) => z.number().max(max, `at most ${max} bytes`);

export const configSchema = z
  .object({
    extensions: z.array(z.string()).default([]),
    join: strategyName.default('auto'),
    'hash.mode': z.enum(['collect-left', 'partitioned']).default('collect-left'),
    'hash.partitions': positiveInt.max(1024).default(4),
    'hash.build': z.enum(['left', 'right', 'auto']).default('auto'),
    // how the build side's output columns are gathered: row-wise (core/arrow/row-layout.ts), column by column, or auto
    'hash.payloadLayout': z.enum(['auto', 'rows', 'columns']).default('auto'),
    hashmap: strategyName.default('auto'),
    pushdown: strategyName.default('auto'),
    'pushdown.keyRangeBitmap': bool.default(true),
    'pushdown.inlistMaxDistinct': positiveInt.default(150),
    'pushdown.inlistMaxBytes': positiveInt.default(131072),
    'pushdown.rowFilter': z.enum(['auto', 'always', 'never']).default('auto'),
    'pushdown.parquetBloom': bool.default(true),
    // how runtime filters travel across a query's joins (core/sip.ts, strategies/sip/): none,
    // dynamic (each join's pushdown into its probe scan), lip, transfer, yannakakis
    sip: strategyName.default('dynamic'),
    // what a sip transfer builds: the strategy's own choice (auto), or bloom / bitmap / exact /
    // bounds / the configured pushdown policy (yannakakis is exact whatever this says)
    'sip.filter': z.enum(['auto', 'bloom', 'bitmap', 'exact', 'bounds', 'policy']).default('auto'),
    // lip / transfer leave out a transfer from a table nothing filtered (its filter holds every key
    // the table has: core/sip.ts withoutWholeKeySets); false runs every transfer of the passes
    'sip.skipWholeKeySets': bool.default(true),
    // Parquet scans decode a filter's columns first and the others only where rows survive (adapters/io/late-materialization.ts)
    'scan.lateMaterialization': z.enum(['auto', 'on', 'off']).default('auto'),
    // Parquet pages as containers where a file has a page index (adapters/io/parquet-page-select.ts)
    'scan.pageIndex': z.enum(['auto', 'off']).default('auto'),
    // DuckDB v1.5 join filter pushdown (strategies/pushdown/engines/duckdb.ts)
    'pushdown.duckdb.inlistMaxRows': positiveInt.default(50),
    'pushdown.duckdb.buildSideFiltered': bool.default(true),
    'pushdown.duckdb.probeLargerThanBuild': bool.default(true),
    'pushdown.duckdb.bloomBitsPerKey': positiveInt.max(64).default(12),
    'pushdown.duckdb.perfectHashMaxRange': positiveInt.default(1048576),
    'pushdown.duckdb.vectorRows': positiveInt.default(2048),
    'pushdown.duckdb.minMaxPausePercent': positiveInt.max(100).default(75),
    'pushdown.duckdb.minMaxCheckVectors': positiveInt.default(30),
    'pushdown.duckdb.bloomPausePercent': positiveInt.max(100).default(25),
    'pushdown.duckdb.bloomCheckVectors': positiveInt.default(75),
    'pushdown.duckdb.pauseResume': bool.default(false),
    // Velox hash-join dynamic filters (strategies/pushdown/engines/velox.ts)
    'pushdown.velox.maxDistinct': positiveInt.default(100000),
    'pushdown.velox.bitmaskSmallRange': positiveInt.default(2048),
    'pushdown.velox.bitmaskBitsPerValue': positiveInt.default(256),
    'pushdown.velox.stringFilters': bool.default(false),
    'pushdown.velox.maxDistinctStringBytes': positiveInt.default(1048576),
    // Trino's dynamic filtering (strategies/pushdown/engines/trino.ts), DynamicFilterConfig's defaults
    // (airlift sizes are binary: 100kB = 102400 B). "Per driver" is per joinlab build partition.
    'pushdown.trino.enableLargeDynamicFilters': bool.default(false),
    'pushdown.trino.maxDistinctPerDriver': nonNegativeInt.default(1_000),
    'pushdown.trino.maxSizePerDriver': byteSize.pipe(atMost(MIB)).default(100 * KIB),
    'pushdown.trino.rangeRowLimitPerDriver': nonNegativeInt.default(2_000),
    'pushdown.trino.partitionedMaxDistinctPerDriver': nonNegativeInt.default(100),
    'pushdown.trino.partitionedMaxSizePerDriver': byteSize.pipe(atMost(MIB)).default(50 * KIB),
    'pushdown.trino.partitionedRangeRowLimitPerDriver': nonNegativeInt.default(500),
    'pushdown.trino.largeMaxDistinctPerDriver': nonNegativeInt.default(50_000),
    'pushdown.trino.largeMaxSizePerDriver': byteSize.default(4 * MIB),
    'pushdown.trino.largeRangeRowLimitPerDriver': nonNegativeInt.default(100_000),
    'pushdown.trino.largePartitionedMaxDistinctPerDriver': nonNegativeInt.default(20_000),
    'pushdown.trino.largePartitionedMaxSizePerDriver': byteSize.default(200 * KIB),
    'pushdown.trino.largePartitionedRangeRowLimitPerDriver': nonNegativeInt.default(30_000),
    // Spark's runtime filter (strategies/pushdown/engines/spark.ts), SQLConf's defaults ("10MB" = 10 MiB).
    'pushdown.spark.bloomFilterEnabled': bool.default(true),
    'pushdown.spark.creationSideThreshold': byteSize.default(10 * MIB),
    'pushdown.spark.rowCountStats': bool.default(false),
    'pushdown.spark.expectedNumItems': positiveInt.default(1_000_000),
    'pushdown.spark.numBits': positiveInt.max(MAX_BLOOM_BITS).default(8_388_608),
    'pushdown.spark.maxNumItems': positiveInt.default(4_000_000),
    'pushdown.spark.maxNumBits': positiveInt.max(MAX_BLOOM_BITS).default(67_108_864),
    'pushdown.spark.semiJoinReduction': bool.default(false),
    'pushdown.spark.broadcastThreshold': byteSize.default(10 * MIB),
    'smj.existence': strategyName.default('bitwise'),
    'pwmj.search': strategyName.default('binary'),
    'pwmj.prefilter': bool.default(true),
    'pwmj.partitions': positiveInt.max(64).default(1),
    batchSize: positiveInt.max(1 << 24).default(8192),
    memoryLimit: byteSize.default(Infinity),
    // worker threads for parallel execution (core/parallel/); 1 runs everything on the calling thread
    threads: positiveInt.max(MAX_THREADS).default(DEFAULT_THREADS),
    // work on fewer estimated rows than this runs on the calling thread, even when the worker
    // pool is started already (core/parallel/threshold.ts)
    'parallel.minProbeRows': nonNegativeInt.default(100_000),
    // the SQL front end's join order (adapters/sql/join-order.ts): `cost` plans it from statistics
    // over the join graph, `written` keeps the FROM clause's order, `random` draws a valid order
    // (no cross product while the graph is connected) from `sql.joinOrderSeed`, `random:SEED` from
    // SEED (over sql.joinOrderSeed), for experiments (an experiment's `orders` runs random:1…random:N)
    'sql.joinOrder': joinOrder.default('cost'),
    'sql.joinOrderSeed': nonNegativeInt.default(0),
    // work on fewer estimated rows than this does not start a worker pool that is not started yet
    'parallel.minStartRows': nonNegativeInt.default(25_000_000),
    // what worker threads load: `bundle` the sources compiled ahead (core/parallel/worker-code.ts,
    // falling back to `source` when that cannot be built), `source` the TypeScript through tsx
    'parallel.workerCode': z.enum(['bundle', 'source']).default('bundle'),
  })
  .strict();

export type Config = z.output<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
export const CONFIG_KEYS = Object.keys(configSchema.shape) as (keyof Config)[];

/**
 * Nested objects become dotted keys: `{hash: {mode: 'x'}}` -> `{'hash.mode': 'x'}`. Arrays stay.
 * An object that contains itself (a YAML alias to an enclosing node) is a ConfigError naming the
 * key, not a stack overflow.
 */
export function flattenConfig(input: unknown, prefix = '', out: Record<string, unknown> = {}, enclosing: Set<object> = new Set()): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(`configuration must be an object${prefix ? ` at '${prefix}'` : ''}`);
  }
  enclosing.add(input);
  for (const [k, v] of Object.entries(input)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(CONFIG_KEYS as string[]).includes(key)) {
      if (enclosing.has(v)) throw new ConfigError(`configuration refers to itself at '${key}' (a YAML alias to an enclosing mapping?)`, key);
      flattenConfig(v, key, out, enclosing);
    } else {
      out[key] = v;
    }
  }
  enclosing.delete(input);
  return out;
}

/** Validates (and fills defaults of) a possibly nested config object. */
export function parseConfig(input: unknown = {}): Config {
  const flat = flattenConfig(input);
  const result = configSchema.safeParse(flat);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    // the closest key, not all ~90 of them (~1,900 characters); `joinlab config` lists every key
    throw new ConfigError(`unknown config key '${key}'${didYouMean(key, CONFIG_KEYS)} (joinlab config lists every key)`, key);
  }
  const key = issue.path.join('.');
  const value = key in flat ? ` (got ${JSON.stringify(flat[key])})` : '';
  throw new ConfigError(`invalid config value for '${key}'${value}: ${issue.message}`, key);
}

/** Applies `key=value` overrides (from `--set`) on top of a flat or nested config object. */
export function applyOverrides(base: unknown, overrides: readonly string[]): Record<string, unknown> {
  const flat = flattenConfig(base ?? {});
  for (const o of overrides) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set expects KEY=VALUE, got '${o}'`);
    const key = o.slice(0, eq).trim();
    flat[key] = fromCommandLine(key, o.slice(eq + 1).trim());
  }
  return flat;
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

/** The zod type a key's value must have, defaults unwrapped ('number', 'boolean', …). */
function valueType(key: string): string | undefined {
  let s: z.ZodType | undefined = (configSchema.shape as Record<string, z.ZodType>)[key];
  while (s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
  return s?._zod.def.type;
}

/** A `--set` value (text) as the value its key takes; text that does not convert stays text. */
export function fromCommandLine(key: string, text: string): unknown {
  if (key === 'extensions') return text.split(',').filter(Boolean);
  switch (valueType(key)) {
    case 'number':
      return NUMBER_TEXT.test(text) ? Number(text) : text;
    case 'boolean': {
      const w = text.toLowerCase();
      return TRUE_WORDS.includes(w) ? true : FALSE_WORDS.includes(w) ? false : text;
    }
    default:
      return text;
  }
}
