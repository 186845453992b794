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
 *
 * Core's keys only: a strategy's own keys (`pushdown.duckdb.*`, `pushdown.trino.*`, a user
 * policy's threshold) are declared by its extension (`settings`, core/config/settings.ts), and a
 * run's configuration is validated against the union (`ConfigSchema`): `Engine.create` builds it
 * from the extensions it loads, `loadConfig` from the runtime's and the configured ones, before
 * validating. `parseConfig` without a union knows core's keys alone.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ConfigError } from '../errors.ts';
import { parseByteSize } from '../memory/pool.ts';
import { didYouMean } from '../suggest.ts';
import { CORE_OWNER, type OwnedSettings, type SettingSpec } from './settings.ts';

const strategyName = z.string().regex(/^[A-Za-z0-9_.\-]+$/, 'a strategy name (letters, digits, . _ -)');
/** Value types shared by core's keys and extensions' settings (core/config/settings.ts). */
export const positiveInt = z.number().int().positive();
const bool = z.boolean();
export const nonNegativeInt = z.number().int().nonnegative();
/** A byte size: a number, or text such as `512MB`, `2GiB`, `unlimited` (core/memory/pool.ts). */
export const byteSize = z.unknown().transform((v, ctx) => {
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

export const configSchema = z
  .object({
    extensions: z.array(z.string()).default([]),
    join: strategyName.default('auto'),
    'hash.mode': z.enum(['collect-left', 'partitioned']).default('collect-left'),
    'hash.partitions': positiveInt.max(1024).default(4),
    'hash.build': z.enum(['left', 'right', 'auto']).default('auto'),
    // how the build side's output columns are gathered: row-wise (core/arrow/row-layout.ts), column by column, or auto
    'hash.payloadLayout': z.enum(['auto', 'rows', 'columns']).default('auto'),
    // a build side larger than the pool gives: auto = the grace hash join (operators/hash-join/grace.ts), off = MemoryLimitError, always = grace even when it fits (tests, experiments)
    'hash.spill': z.enum(['auto', 'off', 'always']).default('auto'),
    'hash.spillPartitions': nonNegativeInt.max(1024).refine((v) => v !== 1, { message: 'expected 0 (auto) or at least 2 partitions' }).default(0),
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

/** Core's keys alone, as parsed (`Config` adds the extensions' keys). */
export type CoreConfig = z.output<typeof configSchema>;
/**
 * A validated configuration: core's keys typed, plus the keys of the extensions it was validated
 * with (read them typed with `settingReader`, core/config/settings.ts).
 */
export type Config = CoreConfig & { readonly [key: string]: unknown };
export type ConfigInput = z.input<typeof configSchema> & { readonly [key: string]: unknown };
/** Core's keys (`ConfigSchema.keys` has every key of a union). */
export const CONFIG_KEYS = Object.keys(configSchema.shape) as (keyof CoreConfig)[];

/** One line per core key (docs/configuration.md has the whole story). */
const CORE_DESCRIPTIONS: Readonly<Record<keyof CoreConfig, string>> = {
  extensions: 'extension modules to load (paths relative to the config file)',
  join: 'join algorithm (slot join); auto picks one per join by DuckDB\'s rule',
  'hash.mode': 'collect-left (one shared build) or partitioned',
  'hash.partitions': 'partitions in partitioned mode',
  'hash.build': 'build side: left, right, or auto (fewer rows by metadata)',
  'hash.payloadLayout': "how the build side's output columns are gathered: rows, columns or auto",
  'hash.spill': 'a build side that does not fit: auto (grace hash join: partition both sides to disk) or off (MemoryLimitError); always: grace even when it fits',
  'hash.spillPartitions': 'partitions per level of the grace hash join; 0 = auto (from the build size and the pool)',
  hashmap: 'hash-table layout (slot hashmap)',
  pushdown: 'dynamic-filter policy (slot pushdown)',
  'pushdown.keyRangeBitmap': 'let map/auto add a KeyRangeBitmap for one integer key',
  'pushdown.inlistMaxDistinct': 'largest IN list per partition, in distinct values',
  'pushdown.inlistMaxBytes': 'largest IN list per partition, in key bytes',
  'pushdown.rowFilter': 'how the probe scan runs the filter per row: auto, always, never',
  'pushdown.parquetBloom': "test Parquet row groups' Bloom filters against an exact dynamic filter",
  sip: 'how runtime filters travel across a SQL query (slot sip)',
  'sip.filter': 'what a transfer / lip filter is: auto, bloom, bitmap, exact, bounds, policy',
  'sip.skipWholeKeySets': 'leave out transfers from tables nothing filtered',
  'scan.lateMaterialization': "decode a filter's columns first, the others only where rows survive",
  'scan.pageIndex': "prune and read Parquet pages where a file has a page index (auto) or not (off)",
  'smj.existence': 'sort-merge join stream for semi/anti/mark (slot smj.existence)',
  'pwmj.search': 'piecewise merge join first-match search (slot pwmj.search)',
  'pwmj.prefilter': "piecewise merge join: test rows against the buffered side's extreme key first",
  'pwmj.partitions': 'piecewise merge join: streamed partitions (1-64)',
  batchSize: 'rows per output batch',
  memoryLimit: 'bytes a run may reserve (512MB, 2GiB, unlimited = the system budget)',
  threads: 'worker threads (1-64); 1 runs everything on the calling thread',
  'parallel.minProbeRows': 'work on fewer estimated rows runs on the calling thread',
  'sql.joinOrder': "the SQL front end's join order: cost, written, random or random:SEED",
  'sql.joinOrderSeed': 'the seed of sql.joinOrder random',
  'parallel.minStartRows': 'work on fewer estimated rows does not start a worker pool',
  'parallel.workerCode': 'what worker threads load: bundle (compiled ahead) or source',
};

/** A dotted config key: words of letters, digits, `_` or `-`, joined by dots. */
const KEY_TEXT = /^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$/;

/** What `ConfigSchema.describe` tells about one key. */
export interface KeyInfo {
  readonly key: string;
  /** `core`, or the name of the extension that declares the key. */
  readonly owner: string;
  readonly default: unknown;
  readonly description: string;
}

/**
 * The keys a configuration is validated against: core's, plus the settings of every extension
 * loaded (core/config/settings.ts), each key with its one owner. `CORE_SCHEMA` is core's alone;
 * `with` adds extensions' fragments and refuses a key declared twice, naming both owners.
 */
export class ConfigSchema {
  readonly #object: z.ZodObject;
  readonly #owners: ReadonlyMap<string, string>;
  readonly #descriptions: ReadonlyMap<string, string>;
  readonly #fragments: readonly OwnedSettings[];
  /** Every key: core's in their order, then each extension's. */
  readonly keys: readonly string[];

  private constructor(fragments: readonly OwnedSettings[]) {
    const shape: Record<string, z.ZodType> = { ...configSchema.shape };
    const owners = new Map<string, string>(CONFIG_KEYS.map((k) => [k, CORE_OWNER]));
    const descriptions = new Map<string, string>(Object.entries(CORE_DESCRIPTIONS));
    for (const { owner, settings } of fragments) {
      for (const [key, spec] of Object.entries(settings)) {
        const known = owners.get(key);
        if (known === owner) throw new ConfigError(`config key '${key}' is declared twice by ${ownerText(owner)} (is it loaded twice?)`, key);
        if (known !== undefined) throw new ConfigError(`config key '${key}' is declared twice: by ${ownerText(known)} and by ${ownerText(owner)}`, key);
        checkSpec(owner, key, spec);
        shape[key] = spec.schema.default(spec.default);
        owners.set(key, owner);
        descriptions.set(key, spec.description);
      }
    }
    this.#object = z.object(shape).strict();
    this.#owners = owners;
    this.#descriptions = descriptions;
    this.#fragments = fragments;
    this.keys = [...owners.keys()];
  }

  /** Core's keys alone. */
  static core(): ConfigSchema {
    return new ConfigSchema([]);
  }

  /** This union plus `fragments` (in order); a key declared twice is a ConfigError naming both owners. */
  with(fragments: readonly OwnedSettings[]): ConfigSchema {
    return fragments.length === 0 ? this : new ConfigSchema([...this.#fragments, ...fragments]);
  }

  /** The extensions' fragments in this union (core's keys are not among them). */
  get fragments(): readonly OwnedSettings[] {
    return this.#fragments;
  }

  has(key: string): boolean {
    return this.#owners.has(key);
  }

  /** `core`, or the extension that declares `key` (undefined for an unknown key). */
  owner(key: string): string | undefined {
    return this.#owners.get(key);
  }

  /** Every key with its owner, default and description, in `keys` order. */
  describe(): KeyInfo[] {
    const defaults = this.parse({});
    return this.keys.map((key) => ({ key, owner: this.#owners.get(key)!, default: defaults[key], description: this.#descriptions.get(key) ?? '' }));
  }

  /** Validates (and fills defaults of) a possibly nested config object. */
  parse(input: unknown = {}): Config {
    const flat = flattenConfig(input, '', {}, new Set(), this.keys);
    const result = this.#object.safeParse(flat);
    if (result.success) return result.data as Config;
    const issue = result.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      // the closest key, not all ~90 of them (~1,900 characters); `joinlab config` lists every key
      throw new ConfigError(`unknown config key '${key}'${didYouMean(key, this.keys)} (joinlab config lists every key)`, key);
    }
    const key = issue.path.join('.');
    const got = flat[key];
    const value = key in flat ? ` (got ${typeof got === 'number' && !Number.isFinite(got) ? String(got) : JSON.stringify(got)})` : '';
    const owner = this.#owners.get(key);
    const declared = owner !== undefined && owner !== CORE_OWNER ? ` (a setting of extension '${owner}')` : '';
    throw new ConfigError(`invalid config value for '${key}'${value}${declared}: ${issue.message}`, key);
  }

  /** The zod type a key's value must have, defaults unwrapped ('number', 'boolean', …). */
  valueType(key: string): string | undefined {
    let def = (this.#object.shape as Record<string, z.ZodType>)[key]?._zod.def as { type: string; innerType?: z.ZodType } | undefined;
    // structurally, not by instanceof: an extension may have been built against another copy of zod
    while (def !== undefined && (def.type === 'default' || def.type === 'optional') && def.innerType !== undefined) {
      def = def.innerType._zod.def as typeof def;
    }
    return def?.type;
  }
}

function ownerText(owner: string): string {
  return owner === CORE_OWNER ? 'core' : `extension '${owner}'`;
}

/** A setting must be `{ schema, default, description }` with a default its schema accepts. */
function checkSpec(owner: string, key: string, spec: SettingSpec): void {
  const where = `setting '${key}' of ${ownerText(owner)}`;
  if (!KEY_TEXT.test(key)) throw new ConfigError(`${where}: a key is dotted words (letters, digits, _ and -)`, key);
  if (spec === null || typeof spec !== 'object') throw new ConfigError(`${where} must be { schema, default, description }`, key);
  const schema = spec.schema as Partial<z.ZodType> | undefined;
  if (schema === undefined || typeof schema.safeParse !== 'function' || typeof schema.default !== 'function') {
    throw new ConfigError(`${where}: 'schema' must be a zod schema (index.ts exports joinlab's z)`, key);
  }
  if (typeof spec.description !== 'string') throw new ConfigError(`${where}: 'description' must be text`, key);
  if (spec.default === undefined) throw new ConfigError(`${where}: 'default' is missing`, key);
  const ok = spec.schema.safeParse(spec.default);
  if (!ok.success) throw new ConfigError(`${where}: its default ${JSON.stringify(spec.default)} does not pass its schema: ${ok.error.issues[0]?.message}`, key);
}

/** Core's keys alone: what `parseConfig` and `applyOverrides` use unless handed a union. */
export const CORE_SCHEMA = ConfigSchema.core();

/**
 * Nested objects become dotted keys: `{hash: {mode: 'x'}}` -> `{'hash.mode': 'x'}`. Arrays stay, and
 * so does an object that is the value of one of `keys` (the known keys). An object that contains
 * itself (a YAML alias to an enclosing node) is a ConfigError naming the key, not a stack overflow.
 */
export function flattenConfig(
  input: unknown,
  prefix = '',
  out: Record<string, unknown> = {},
  enclosing: Set<object> = new Set(),
  keys: readonly string[] = CONFIG_KEYS,
): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ConfigError(`configuration must be an object${prefix ? ` at '${prefix}'` : ''}`);
  }
  enclosing.add(input);
  for (const [k, v] of Object.entries(input)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !keys.includes(key)) {
      if (enclosing.has(v)) throw new ConfigError(`configuration refers to itself at '${key}' (a YAML alias to an enclosing mapping?)`, key);
      flattenConfig(v, key, out, enclosing, keys);
    } else {
      out[key] = v;
    }
  }
  enclosing.delete(input);
  return out;
}

/**
 * Validates (and fills defaults of) a possibly nested config object against `schema`: core's keys
 * alone by default, or a union with extensions' settings (an engine's: `Engine.create` builds it
 * from the extensions it loads; `loadConfig` from the ones a configuration names).
 */
export function parseConfig(input: unknown = {}, schema: ConfigSchema = CORE_SCHEMA): Config {
  return schema.parse(input);
}

/**
 * The configured `extensions` of a raw (nested or dotted) configuration, checked to be a list of
 * text — what has to be known before the rest can be validated against the union of their settings.
 */
export function configuredExtensions(input: unknown): string[] {
  const flat = flattenConfig(input ?? {});
  const result = configSchema.shape.extensions.safeParse(flat.extensions);
  if (result.success) return result.data;
  throw new ConfigError(`invalid config value for 'extensions' (got ${JSON.stringify(flat.extensions)}): ${result.error.issues[0]!.message}`, 'extensions');
}

/** Applies `key=value` overrides (from `--set`) on top of a flat or nested config object. */
export function applyOverrides(base: unknown, overrides: readonly string[], schema: ConfigSchema = CORE_SCHEMA): Record<string, unknown> {
  const flat = flattenConfig(base ?? {}, '', {}, new Set(), schema.keys);
  for (const o of overrides) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set expects KEY=VALUE, got '${o}'`);
    const key = o.slice(0, eq).trim();
    flat[key] = fromCommandLine(key, o.slice(eq + 1).trim(), schema);
  }
  return flat;
}

const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const TRUE_WORDS = ['true', 'yes', 'on', '1'];
const FALSE_WORDS = ['false', 'no', 'off', '0'];

/** A `--set` value (text) as the value its key takes; text that does not convert stays text. */
export function fromCommandLine(key: string, text: string, schema: ConfigSchema = CORE_SCHEMA): unknown {
  if (key === 'extensions') return text.split(',').filter(Boolean);
  switch (schema.valueType(key)) {
    case 'number': {
      if (!NUMBER_TEXT.test(text)) return text;
      // `1e400` is Infinity to Number(); named as written (JSON would print the Infinity as null)
      const n = Number(text);
      if (!Number.isFinite(n)) throw new ConfigError(`invalid config value for '${key}': ${text} is not a finite number`, key);
      return n;
    }
    case 'boolean': {
      const w = text.toLowerCase();
      return TRUE_WORDS.includes(w) ? true : FALSE_WORDS.includes(w) ? false : text;
    }
    default:
      return text;
  }
}
