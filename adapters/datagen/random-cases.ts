/**
 * Random join cases for differential testing: one generator shared by the parity tests and the
 * `joinlab parity` fuzzer, so "what a random case looks like" is defined once and every consumer
 * fuzzes the same space.
 *
 * A case is (left table, right table, join spec, engine config), derived deterministically from
 * (seed, index) with the repo's own `Rng` — no test framework involved, so the CLI fuzzer can use
 * it and a failing case is reproduced by its two numbers alone. It covers:
 *  - schemas: 1–2 key pairs from COMPATIBLE_KEY_PAIRS (widened and mixed types, strings, floats
 *    with -0.0/NaN, timestamps of mixed units, decimals, dictionaries), payload columns `v`
 *    (float64), `s`/`w` (the filters use them) and sometimes a payload `p` of a random type (the
 *    same name on both sides, so output renaming is exercised);
 *  - data: NULLs, duplicates, skew, shared or independent key domains, 0..60 rows per side
 *    (biased towards tiny and empty inputs), input batches of 1..64 rows;
 *  - the spec: every join type, NULL = NULL, NOT IN, residual filters (a fixed set, or — one
 *    filtered case in two — random arithmetic `+ - * / // %` over the tables' integer, decimal and
 *    float columns, see `arithmeticFilter`), range predicates (three in ten with a second
 *    inequality `l.v OP r.v` in the filter: two conditions, what the IEJoin runs), one equi-join in
 *    four with a range `v OP v` beside its keys (hash and sort-merge: part of the residual filter),
 *    and (three cases in ten) a `select` of a random subset of the output columns in random order;
 *  - ASOF cases (`ASOF_SHARE` of the cases, or all when `asof` is the only algorithm drawn):
 *    `join=asof`, an inner or left join on `=` keys and one range predicate, no filter; the right
 *    rows made distinct on (keys, t) so the closest row is unique (DuckDB picks an arbitrary one of
 *    a tie), and the answer compared with DuckDB's `ASOF [LEFT] JOIN` (`asofJoinToSql`);
 *  - the config: `join`, `pushdown`, `hashmap` drawn from the REGISTRY (so a strategy added by an
 *    extension is fuzzed without touching this file; `join` includes the planner `auto`, asked
 *    about support through the algorithm it chooses), `hash.mode` collect-left / partitioned with
 *    1..8 partitions, `hash.build`, `batchSize` in {1, 7, 64, 8192} (or, one case in four, any of
 *    1..64), plus `pushdown.keyRangeBitmap`, a small `pushdown.inlistMaxDistinct` now and then
 *    (so the IN list's fallback to the map runs), every `pushdown.rowFilter` mode, and one case in
 *    three the engine policies' thresholds made small (`SMALL_ENGINE_THRESHOLDS`): at their
 *    engines' defaults builds of <= 60 rows only ever take one path of each policy.
 *
 * Validity is asked, never assumed: a drawn spec the chosen algorithm cannot run (per its
 * `unsupportedReason` on the bound join) is repaired: the first runnable of the drawn spec, the
 * same without its filter, without NOT IN, and with the range predicate swapped for the equi-keys
 * (or the other way round) is used — and a hash-map layout is only drawn among those whose `unsupportedReason` accepts the build
 * keys (`array` refuses floats, strings, huge spans, NULL build keys under NULL = NULL). So a
 * case is one the engine can run; anything still unsupported is reported, not hidden.
 *
 * `shrinkCase` is the matching minimiser: greedy delta debugging over the rows of each side and
 * the filter, for a predicate "does it still fail"; `describeCase` prints a case (data as JSON,
 * bigints as strings) so a failure can be replayed by hand or in DuckDB.
 */
import { makeVector, Precision, Table, Type, type Data, type Decimal, type Float, type Int, type Vector } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { ExpressionError, isJoinlabError } from '../../core/errors.ts';
import { arith, type ArithOp, cmp, col, type CompareOp, type Expr, isNull, lit, or } from '../../core/expr/ast.ts';
import { formatExpr } from '../../core/expr/parse.ts';
import {
  bindArithmetic,
  bindComparison,
  decimalType,
  DOUBLE,
  FLOAT,
  intRange,
  intType,
  isExact,
  literalType,
  type IntKind,
  type NumType,
} from '../../core/expr/numeric-types.ts';
import { joinUnsupportedReason } from '../../core/join-planning.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { bindJoin, type BoundJoin } from '../../core/plan.ts';
import { shareTable } from '../../core/parallel/wire.ts';
import { Rng } from '../../core/random.ts';
import type { Registry, Slot, Strategy } from '../../core/registry/registry.ts';
import { HASHMAP, JOIN, PUSHDOWN, PWMJ_SEARCH, SIP, SMJ_EXISTENCE } from '../../core/registry/slots.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { isAntiJoin, JOIN_TYPES, RANGE_OPS, type JoinType, type RangeOp } from '../../core/types.ts';
import { decimalText } from '../duckdb/compare.ts';
import { bigIntFromWords } from '../duckdb/session.ts';
import { COMPATIBLE_KEY_PAIRS, LOGICAL_TYPES, randomTable, rebatch, type ColumnGen, type LogicalType } from './random-tables.ts';

/** Residual filters over the payload columns (`l.v`, `l.s`, `r.v`, `r.w`). */
export const CASE_FILTERS = [
  'l.v < r.v',
  'l.v + r.w > 0 OR r.w IS NULL',
  "NOT (l.s = 'a') AND r.w <> 2",
  'l.v = r.v OR l.v IS NULL',
] as const;

/** Output batch sizes: one row, an odd size, a small power of two, the default. */
export const CASE_BATCH_SIZES = [1, 7, 64, 8192] as const;

export const MAX_CASE_ROWS = 60;

/** A join spec in its text form (what `joinlab join` flags say; prints as readable JSON). */
export interface CaseSpec {
  readonly type: JoinType;
  readonly on?: string;
  readonly range?: string;
  readonly filter?: string;
  readonly nullEqualsNull?: boolean;
  readonly nullAware?: boolean;
  /** Output columns to keep (comma-separated output names), in this order. */
  readonly select?: string;
}

/** The engine configuration of a case (flat, dotted keys; accepted by `Engine.create`). */
export interface CaseConfig {
  readonly join: string;
  readonly pushdown: string;
  readonly hashmap: string;
  readonly 'hash.mode': 'collect-left' | 'partitioned';
  readonly 'hash.partitions': number;
  readonly 'hash.build': 'left' | 'right' | 'auto';
  readonly 'hash.payloadLayout': 'auto' | 'rows' | 'columns';
  /** A quarter of the cases run the hash join's grace path (`spillDraw`). */
  readonly 'hash.spill'?: 'always';
  readonly 'hash.spillPartitions'?: number;
  readonly batchSize: number;
  readonly 'pushdown.keyRangeBitmap': boolean;
  readonly 'pushdown.inlistMaxDistinct': number;
  readonly 'pushdown.rowFilter': 'auto' | 'always' | 'never';
  readonly 'smj.existence': string;
  readonly 'pwmj.search': string;
  readonly 'pwmj.prefilter': boolean;
  readonly 'pwmj.partitions': number;
  /** Worker threads (drawn from `CaseSpace.threads`; 1 runs on the calling thread). */
  readonly threads: number;
  /** 0 when `threads` > 1: the tiny random inputs run on the workers too. */
  readonly 'parallel.minProbeRows'?: number;
  readonly 'parallel.minStartRows'?: number;
  readonly extensions?: readonly string[];
  /** The engine policies' thresholds, when drawn small (`SMALL_ENGINE_THRESHOLDS`). */
  readonly [engineThreshold: `pushdown.${'duckdb' | 'trino' | 'spark' | 'velox'}.${string}`]: number | boolean;
}

/**
 * Engine-policy thresholds small enough that the tiny random builds take every path: DuckDB's
 * Bloom filter (no perfect-hash exemption) and its pauses after one 2-row vector; Trino's min/max
 * past 2 distinct values and nothing past 8 rows; Spark's row-count-sized Bloom filters of one or
 * two blocks, nothing past a 256-byte build; Velox's bitmask, value table and nothing past 5
 * distinct values, strings included.
 */
export const SMALL_ENGINE_THRESHOLDS = {
  'pushdown.duckdb.perfectHashMaxRange': 1,
  'pushdown.duckdb.vectorRows': 2,
  'pushdown.duckdb.minMaxCheckVectors': 1,
  'pushdown.duckdb.bloomCheckVectors': 1,
  'pushdown.duckdb.pauseResume': true,
  'pushdown.trino.maxDistinctPerDriver': 2,
  'pushdown.trino.rangeRowLimitPerDriver': 8,
  'pushdown.trino.partitionedMaxDistinctPerDriver': 2,
  'pushdown.trino.partitionedRangeRowLimitPerDriver': 8,
  'pushdown.spark.rowCountStats': true,
  'pushdown.spark.maxNumBits': 512,
  'pushdown.spark.creationSideThreshold': 256,
  'pushdown.velox.maxDistinct': 5,
  'pushdown.velox.bitmaskSmallRange': 4,
  'pushdown.velox.bitmaskBitsPerValue': 2,
  'pushdown.velox.stringFilters': true,
} as const;

export interface JoinCase {
  /** The run seed and case index this case was derived from. */
  readonly seed: number;
  readonly index: number;
  readonly left: Table;
  readonly right: Table;
  /** Rows per input record batch, per side (kept when rows are dropped while shrinking). */
  readonly leftBatch: number;
  readonly rightBatch: number;
  readonly spec: CaseSpec;
  readonly config: CaseConfig;
  /**
   * Why the case's algorithm cannot run even the simplest variant of the drawn spec (then running
   * it throws UnsupportedJoinError and a runner counts it as skipped); null for a runnable case.
   */
  readonly unsupported: string | null;
  /** The inputs are in shared memory (`shareTable`): drawn for half the cases with `threads` > 1. */
  readonly sharedInputs?: boolean;
}

/** What cases are drawn from: strategy names (from a registry) and how to ask about support. */
export interface CaseSpace {
  readonly registry: Registry;
  readonly joins: readonly string[];
  readonly pushdowns: readonly string[];
  readonly hashmaps: readonly string[];
  readonly existences: readonly string[];
  readonly searches: readonly string[];
  /** Information-passing strategies (slot `sip`) the SQL cases draw from. */
  readonly sips: readonly string[];
  /** Extension modules the registry was loaded with (absolute specifiers), copied into configs. */
  readonly extensions: readonly string[];
  /** Thread counts to draw `threads` from (default: 1 only). */
  readonly threads: readonly number[];
  /**
   * Whether ASOF cases are drawn (`asofCase`): `join=asof` on an ASOF-shaped spec, compared with
   * DuckDB's `ASOF [LEFT] JOIN`. Default: when `asof` is registered and among `algorithms` (or
   * those are not restricted).
   */
  readonly asof?: boolean;
}

export interface CaseSpaceOptions {
  /** Restrict the join algorithms (default: every registered one). */
  readonly algorithms?: readonly string[];
  readonly pushdowns?: readonly string[];
  readonly hashmaps?: readonly string[];
  readonly existences?: readonly string[];
  readonly searches?: readonly string[];
  readonly sips?: readonly string[];
  /** Extensions the registry was loaded with, so each case's config loads them too. */
  readonly extensions?: readonly string[];
  /**
   * Thread counts to draw each case's `threads` from, uniformly (default `[1]`). Drawn from a
   * stream of its own, so adding thread counts leaves every other draw of a seed unchanged.
   */
  readonly threads?: readonly number[];
}

/** The space of every strategy registered in `registry` (unknown names in options throw). */
export function caseSpace(registry: Registry, options: CaseSpaceOptions = {}): CaseSpace {
  const pick = (slot: Slot<Strategy>, names: readonly string[] | undefined): string[] => {
    if (names === undefined) return registry.names(slot);
    for (const n of names) registry.resolve(slot, n); // UnknownStrategyError listing what exists
    if (names.length === 0) throw new RangeError(`no ${slot.name} strategies to draw from`);
    return [...names];
  };
  return {
    registry,
    // by default not the explicit-only algorithms (ASOF): their answer is not the spec's plain join
    joins: options.algorithms === undefined ? registry.names(JOIN).filter((n) => registry.resolve(JOIN, n).explicitOnly !== true) : pick(JOIN, options.algorithms),
    pushdowns: pick(PUSHDOWN, options.pushdowns),
    hashmaps: pick(HASHMAP, options.hashmaps),
    existences: pick(SMJ_EXISTENCE, options.existences),
    searches: pick(PWMJ_SEARCH, options.searches),
    sips: pick(SIP, options.sips),
    extensions: [...(options.extensions ?? [])],
    threads: [...(options.threads ?? [1])],
    asof: registry.has(JOIN, 'asof') && (options.algorithms === undefined || options.algorithms.includes('asof')),
  };
}

/** Mixed into a case's seed for its `threads` draw (a stream apart from the case's other draws). */
const THREADS_STREAM = 0x7e4d_a11e;

/** A case's `threads` (and, above 1, no row threshold, so its tiny inputs really run on the workers). */
export function threadsDraw(space: CaseSpace, seed: number, index: number): { threads: number; 'parallel.minProbeRows'?: number; 'parallel.minStartRows'?: number } {
  const threads = space.threads.length === 1 ? space.threads[0]! : space.threads[new Rng(caseSeed(seed, index) ^ THREADS_STREAM).int(0, space.threads.length - 1)]!;
  return threads > 1 ? { threads, 'parallel.minProbeRows': 0, 'parallel.minStartRows': 0 } : { threads };
}

/** Mixed into a case's seed for its `hash.payloadLayout` draw (another stream of its own). */
const PAYLOAD_LAYOUT_STREAM = 0x5a7_10ad;

/**
 * A case's `hash.payloadLayout`: half the cases lay the build payload out as rows (`auto` would
 * never, on inputs this small), a quarter gather by column, a quarter leave it to `auto`.
 */
export function payloadLayoutDraw(seed: number, index: number): CaseConfig['hash.payloadLayout'] {
  const r = new Rng(caseSeed(seed, index) ^ PAYLOAD_LAYOUT_STREAM).int(0, 3);
  return r <= 1 ? 'rows' : r === 2 ? 'columns' : 'auto';
}

/** Mixed into a case's seed for its `hash.spill` draw (another stream of its own). */
const SPILL_STREAM = 0x6a1_5b11;

/**
 * A case's grace hash join draw: a quarter of the cases partition both inputs to spill files and
 * join the pairs (`hash.spill: always`, 2–5 partitions), so every hash join shape the draw makes
 * also runs through operators/hash-join/grace.ts.
 */
export function spillDraw(seed: number, index: number): Pick<CaseConfig, 'hash.spill' | 'hash.spillPartitions'> {
  const rng = new Rng(caseSeed(seed, index) ^ SPILL_STREAM);
  return rng.int(0, 3) === 0 ? { 'hash.spill': 'always', 'hash.spillPartitions': rng.int(2, 5) } : {};
}

/** The seed of case `index` of a run seeded with `seed` (well mixed: neighbouring cases are unrelated). */
export function caseSeed(seed: number, index: number): number {
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0 || 1;
}

function rows(rng: Rng): number {
  const r = rng.next();
  if (r < 0.06) return 0;
  if (r < 0.2) return rng.int(1, 3);
  return rng.int(0, MAX_CASE_ROWS);
}

function inputBatch(rng: Rng): number {
  return rng.chance(0.2) ? rng.int(1, 3) : rng.int(1, 64);
}

/** Everything drawn for one case, in a fixed order (so a case depends on (seed, index) only). */
interface Draw {
  readonly join: string;
  readonly pairs: readonly (readonly [LogicalType, LogicalType])[];
  readonly leftRows: number;
  readonly rightRows: number;
  readonly leftBatch: number;
  readonly rightBatch: number;
  readonly nullRate: number;
  readonly skew: number;
  readonly leftDomain: number;
  readonly rightDomain: number;
  readonly leftExtra: LogicalType | null;
  readonly rightExtra: LogicalType | null;
  readonly type: JoinType;
  readonly nullEqualsNull: boolean;
  readonly nullAware: boolean;
  readonly useRange: boolean;
  readonly rangeOp: RangeOp;
  readonly filter: string | undefined;
  readonly pushdown: string;
  readonly hashmapDraw: number;
  readonly mode: 'collect-left' | 'partitioned';
  readonly partitions: number;
  readonly build: 'left' | 'right' | 'auto';
  readonly batchSize: number;
  readonly keyRangeBitmap: boolean;
  readonly inlistMaxDistinct: number;
  readonly rowFilter: 'auto' | 'always' | 'never';
  readonly tableSeed: number;
  /** Seed of the output projection (null: every output column). */
  readonly selectSeed: number | null;
  /** Seed of a random arithmetic filter that replaces the drawn one (null: keep it). */
  readonly arithSeed: number | null;
  /** Range cases: the operator of a second inequality `l.v OP r.v` (an IEJoin's second condition), or null. */
  readonly secondInequality: RangeOp | null;
  readonly existence: string;
  readonly search: string;
  readonly prefilter: boolean;
  readonly streamedPartitions: number;
  readonly smallEngineThresholds: boolean;
}

function draw(space: CaseSpace, rng: Rng): Draw {
  const join = rng.pick(space.joins);
  const pairCount = rng.int(1, 2);
  const pairs = Array.from({ length: pairCount }, () => COMPATIBLE_KEY_PAIRS[rng.int(0, COMPATIBLE_KEY_PAIRS.length - 1)]!);
  const leftRows = rows(rng);
  const rightRows = rows(rng);
  const leftBatch = inputBatch(rng);
  const rightBatch = inputBatch(rng);
  const nullRate = rng.pick([0, 0.1, 0.3, 0.4]);
  const skew = rng.pick([0, 0, 0.5, 0.6]);
  const shared = rng.chance(0.5);
  const leftDomain = shared ? rng.int(1, 12) : rng.int(1, 40);
  const rightDomain = shared ? leftDomain : rng.int(1, 40);
  const leftExtra = rng.chance(0.3) ? rng.pick(LOGICAL_TYPES) : null;
  const rightExtra = rng.chance(0.3) ? rng.pick(LOGICAL_TYPES) : null;
  const type = rng.pick(JOIN_TYPES);
  const nullEqualsNull = rng.chance(0.5);
  const nullAware = rng.chance(0.5);
  const useRange = rng.chance(0.5);
  const rangeOp = rng.pick(RANGE_OPS);
  const filter = rng.chance(1 / 3) ? undefined : rng.pick(CASE_FILTERS);
  const pushdown = rng.pick(space.pushdowns);
  const hashmapDraw = rng.next();
  const mode = rng.chance(0.5) ? 'collect-left' : 'partitioned';
  const partitions = rng.int(1, 8);
  const build = rng.pick(['left', 'right', 'auto'] as const);
  const batchSize = rng.chance(0.75) ? rng.pick(CASE_BATCH_SIZES) : rng.int(1, 64);
  const keyRangeBitmap = rng.chance(0.8);
  const inlistMaxDistinct = rng.chance(0.75) ? 150 : rng.int(1, 8);
  const tableSeed = rng.int(1, 2 ** 30);
  // drawn last, so every earlier field of a seed's case is what it was before these existed
  const rowFilter = rng.pick(['auto', 'always', 'never'] as const);
  const selectSeed = rng.chance(0.3) ? rng.int(1, 2 ** 30) : null;
  const arithSeed = rng.chance(0.5) ? rng.int(1, 2 ** 30) : null;
  const existence = rng.pick(space.existences);
  const search = rng.pick(space.searches);
  const prefilter = rng.chance(0.75);
  const streamedPartitions = rng.int(1, 3);
  const smallEngineThresholds = rng.chance(1 / 3);
  const secondInequality = rng.chance(0.3) ? rng.pick(RANGE_OPS) : null;
  return {
    join,
    pairs,
    leftRows,
    rightRows,
    leftBatch,
    rightBatch,
    nullRate,
    skew,
    leftDomain,
    rightDomain,
    leftExtra,
    rightExtra,
    type,
    nullEqualsNull,
    nullAware,
    useRange,
    rangeOp,
    filter,
    pushdown,
    hashmapDraw,
    mode,
    partitions,
    build,
    batchSize,
    keyRangeBitmap,
    inlistMaxDistinct,
    rowFilter,
    tableSeed,
    selectSeed,
    arithSeed,
    existence,
    search,
    prefilter,
    streamedPartitions,
    smallEngineThresholds,
    secondInequality,
  };
}

function tables(d: Draw): { left: Table; right: Table } {
  const rng = new Rng(d.tableSeed);
  const gen = (side: 0 | 1): ColumnGen[] => {
    const cols: ColumnGen[] = d.pairs.map((p, k) => ({
      name: `k${k}`,
      type: p[side],
      domain: side ? d.rightDomain : d.leftDomain,
      nullRate: d.nullRate,
      skew: d.skew,
    }));
    cols.push({ name: 'v', type: 'float64', domain: 8, nullRate: d.nullRate });
    cols.push(side === 0 ? { name: 's', type: 'utf8', domain: 4, nullRate: d.nullRate } : { name: 'w', type: 'int32', domain: 6, nullRate: d.nullRate });
    const extra = side === 0 ? d.leftExtra : d.rightExtra;
    if (extra !== null) cols.push({ name: 'p', type: extra, domain: 10, nullRate: d.nullRate });
    return cols;
  };
  const left = randomTable(rng, gen(0), d.leftRows, d.leftBatch);
  const right = randomTable(rng, gen(1), d.rightRows, d.rightBatch);
  return { left, right };
}

/**
 * Spec variants in order of preference: the drawn spec first, then with features dropped one by
 * one. The first one the algorithm supports is used.
 */
function specVariants(d: Draw, filter: string | undefined, keyedRange: RangeOp | null = null): CaseSpec[] {
  const on = d.pairs.map((_, k) => `k${k}=k${k}`).join(',');
  const range = `k0 ${d.rangeOp} k0`;
  const notIn = d.nullAware && isAntiJoin(d.type) && d.pairs.length === 1;
  const equi = (filter: string | undefined, nullAware: boolean): CaseSpec => ({
    type: d.type,
    on,
    ...(filter !== undefined ? { filter } : {}),
    nullEqualsNull: d.nullEqualsNull && !nullAware,
    nullAware,
  });
  const ranged = (filter: string | undefined): CaseSpec => ({ type: d.type, range, ...(filter !== undefined ? { filter } : {}) });
  // two inequalities (what the IEJoin runs): the range predicate and `l.v OP r.v`, before the filter
  const second = `l.v ${d.secondInequality ?? '<'} r.v`;
  const twoRanges = (filter: string | undefined): CaseSpec => ({ type: d.type, range, filter: filter !== undefined ? `${second} AND (${filter})` : second });
  const f = filter;
  // an equi-key plus a range `v OP v` (hash and sort-merge run it as part of the residual filter)
  const keyed = (s: CaseSpec): CaseSpec[] => (keyedRange === null ? [] : [{ ...s, range: `v ${keyedRange} v` }]);
  const preferred = d.useRange
    ? (d.secondInequality !== null ? [twoRanges(f), twoRanges(undefined)] : []).concat([ranged(f), ranged(undefined)])
    : [...keyed(equi(f, notIn)), ...keyed(equi(undefined, notIn)), equi(f, notIn), equi(undefined, notIn)];
  const all = [...preferred, equi(f, false), equi(undefined, false), ranged(f), ranged(undefined), twoRanges(f), twoRanges(undefined)];
  const seen = new Set<string>();
  return all.filter((s) => {
    const k = JSON.stringify(s);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function bindCase(spec: CaseSpec, left: Table, right: Table): BoundJoin | string {
  try {
    return bindJoin(toJoinSpec(spec), left.schema, right.schema);
  } catch (e) {
    if (isJoinlabError(e)) return e.message;
    throw e;
  }
}

/**
 * Why `algorithm` cannot run `spec` on these tables, or null when it can. A planner (`auto`) is
 * asked the way the engine asks it: the algorithm it chooses for the join answers, and a chosen
 * algorithm the registry lacks is a reason too (core/join-planning.ts).
 */
export function unsupportedReason(space: CaseSpace, algorithm: string, spec: CaseSpec, left: Table, right: Table): string | null {
  const bound = bindCase(spec, left, right);
  if (typeof bound === 'string') return bound;
  return joinUnsupportedReason(space.registry, algorithm, bound);
}

/**
 * The hash-map layouts that can index the build keys of this join — checked on the whole side
 * (a partition's keys are a subset, which no layout refuses when it accepts the whole), for
 * both sides when the build side is `auto`. An empty side never reaches a layout.
 */
export function usableHashmaps(space: CaseSpace, bound: BoundJoin, left: Table, right: Table, build: 'left' | 'right' | 'auto'): string[] {
  if (bound.spec.on.length === 0) return [...space.hashmaps];
  const sides = build === 'auto' ? (['left', 'right'] as const) : [build];
  const inputs = sides
    .map((side) => {
      const table = side === 'left' ? left : right;
      if (table.numRows === 0) return null;
      const names = side === 'left' ? bound.leftKeys : bound.rightKeys;
      const keys = names.map((n, k) => normalizeKeyColumn(table.getChild(n)! as Vector, bound.keyKinds[k]!, n));
      return { keys, hashes: hashKeys(keys, TABLE_SEED), rows: table.numRows, nullEqualsNull: bound.spec.nullEquality === 'null-equals-null' };
    })
    .filter((x) => x !== null);
  return space.hashmaps.filter((name) => {
    const layout = space.registry.resolve(HASHMAP, name);
    return inputs.every((input) => layout.unsupportedReason(input) === null);
  });
}

/** Case `index` of the run seeded with `seed`. */
export function randomCase(space: CaseSpace, seed: number, index: number): JoinCase {
  const drawn = draw(space, new Rng(caseSeed(seed, index)));
  const asof = asofDraw(space, seed, index, drawn);
  const d: Draw = asof === null ? drawn : { ...drawn, join: 'asof' };
  const { left, right: all } = tables(d);
  // ASOF: the right rows distinct on (keys, t), so the closest one is unique (DuckDB picks any of a tie)
  const right = asof === null ? all : distinctRows(all, asofRightColumns(asof), d.rightBatch);
  const filter = d.filter !== undefined && d.arithSeed !== null ? (arithmeticFilter(new Rng(d.arithSeed), left, right) ?? d.filter) : d.filter;
  const variants = asof === null ? specVariants(d, filter, keyedRangeDraw(seed, index)) : [asof];
  let spec = variants[0]!;
  let unsupported = unsupportedReason(space, d.join, spec, left, right);
  if (unsupported !== null) {
    const runnable = variants.find((v) => unsupportedReason(space, d.join, v, left, right) === null);
    if (runnable !== undefined) {
      spec = runnable;
      unsupported = null;
    }
  }
  let hashmap = space.hashmaps[Math.floor(d.hashmapDraw * space.hashmaps.length)]!;
  const bound = bindCase(spec, left, right);
  if (d.selectSeed !== null && typeof bound !== 'string') spec = { ...spec, select: randomSelect(new Rng(d.selectSeed), bound.outputSchema.fields.map((f) => f.name)) };
  if (typeof bound !== 'string') {
    const usable = usableHashmaps(space, bound, left, right, d.build);
    if (usable.length > 0) hashmap = usable[Math.floor(d.hashmapDraw * usable.length)]!;
  }
  const config: CaseConfig = {
    join: d.join,
    pushdown: d.pushdown,
    hashmap,
    'hash.mode': d.mode,
    'hash.partitions': d.partitions,
    'hash.build': d.build,
    'hash.payloadLayout': payloadLayoutDraw(seed, index),
    ...spillDraw(seed, index),
    batchSize: d.batchSize,
    'pushdown.keyRangeBitmap': d.keyRangeBitmap,
    'pushdown.inlistMaxDistinct': d.inlistMaxDistinct,
    'pushdown.rowFilter': d.rowFilter,
    'smj.existence': d.existence,
    'pwmj.search': d.search,
    'pwmj.prefilter': d.prefilter,
    'pwmj.partitions': d.streamedPartitions,
    ...threadsDraw(space, seed, index),
    ...(d.smallEngineThresholds ? SMALL_ENGINE_THRESHOLDS : {}),
    ...(space.extensions.length > 0 ? { extensions: [...space.extensions] } : {}),
  };
  // half the cases on worker threads read their inputs from shared memory, as tables read by
  // `readTable` are: the workers then take the probe morsels where they are, and a collect-left
  // build of several batches is concatenated on the workers (operators/hash-join/concat-task.ts)
  const shared = config.threads > 1 && new Rng(caseSeed(seed, index) ^ SHARED_INPUT_STREAM).int(0, 1) === 1;
  const inputs = shared ? { left: shareTable(left), right: shareTable(right) } : { left, right };
  return { seed, index, ...inputs, leftBatch: d.leftBatch, rightBatch: d.rightBatch, spec, config, unsupported, sharedInputs: shared };
}

/** Mixed into a case's seed for its shared-input draw. */
const SHARED_INPUT_STREAM = 0x54a_12ed;

/** Mixed into a case's seed for its equi-key-plus-range draw. */
const KEYED_RANGE_STREAM = 0x4e7_a4e5;

/** One equi-join case in four also has a range predicate `v OP v` beside its keys: OP, or null. */
function keyedRangeDraw(seed: number, index: number): RangeOp | null {
  const rng = new Rng(caseSeed(seed, index) ^ KEYED_RANGE_STREAM);
  return rng.chance(0.25) ? rng.pick(RANGE_OPS) : null;
}

// ---------------------------------------------------------------------------------------------
// ASOF cases
// ---------------------------------------------------------------------------------------------

/** Mixed into a case's seed for its ASOF draw (a stream of its own: other cases stay as they were). */
const ASOF_STREAM = 0xa50f_0a5f;

/** The share of cases that are ASOF cases when the space draws them (and `asof` is not the only algorithm). */
export const ASOF_SHARE = 0.08;

/**
 * The ASOF spec of case `index`, or null when it is not an ASOF case: every case whose drawn
 * algorithm is `asof` (named in `algorithms`), else `ASOF_SHARE` of them when `space.asof`. An
 * inner or left join (what DuckDB's ASOF answers reliably, docs/asof.md) on `=` keys and one
 * range predicate: every key pair and `v OP v`; all pairs but the last and the last key column as
 * the range (its types vary: widened, mixed, strings, floats, timestamps); or no key at all.
 */
function asofDraw(space: CaseSpace, seed: number, index: number, d: Draw): CaseSpec | null {
  const rng = new Rng(caseSeed(seed, index) ^ ASOF_STREAM);
  const share = rng.next();
  if (d.join !== 'asof' && !(space.asof === true && share < ASOF_SHARE)) return null;
  const type: JoinType = rng.chance(0.5) ? 'inner' : 'left';
  const op = d.rangeOp;
  const keys = d.pairs.map((_, k) => `k${k}=k${k}`);
  const shape = rng.int(0, 2);
  if (shape === 0) return { type, on: keys.join(','), range: `v ${op} v` };
  if (shape === 1) return { type, ...(keys.length > 1 ? { on: keys.slice(0, -1).join(',') } : {}), range: `k${keys.length - 1} ${op} k${keys.length - 1}` };
  return { type, range: rng.chance(0.5) ? `v ${op} v` : `k0 ${op} k0` };
}

/** The right input's columns an ASOF spec matches on: its keys and the range's column. */
function asofRightColumns(spec: CaseSpec): string[] {
  const keys = spec.on === undefined ? [] : spec.on.split(',').map((p) => p.split('=')[1]!);
  return [...keys, spec.range!.split(' ')[2]!];
}

/** One canonical text per value, equal exactly when DuckDB's `=` holds (-0.0 = 0.0, NaN = NaN). */
function canonicalValue(v: unknown): string {
  if (typeof v === 'number') return Object.is(v, -0) ? '0' : String(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as unknown as ArrayLike<number | bigint>, String).join(',')}]`;
  return String(v);
}

/**
 * `table` without the rows that repeat an earlier row's values in `columns` (rows with a NULL in
 * one of them are kept: they never match), in batches of `batch` rows.
 */
function distinctRows(table: Table, columns: readonly string[], batch: number): Table {
  const vectors = columns.map((c) => table.getChild(c)!);
  const seen = new Set<string>();
  const keep: number[] = [];
  for (let i = 0; i < table.numRows; i++) {
    const values = vectors.map((v) => v.get(i) as unknown);
    if (values.some((x) => x === null || x === undefined)) {
      keep.push(i);
      continue;
    }
    const key = values.map(canonicalValue).join('|');
    if (seen.has(key)) continue;
    seen.add(key);
    keep.push(i);
  }
  return keep.length === table.numRows ? table : takeRows(table, keep, batch);
}

// ---------------------------------------------------------------------------------------------
// random arithmetic filters
// ---------------------------------------------------------------------------------------------

/** A numeric operand: its expression, DuckDB type, and (exact types) the range of its unscaled values. */
interface Operand {
  readonly expr: Expr;
  readonly t: NumType;
  /** Inclusive bounds of the unscaled values; null for floats. */
  readonly range: readonly [bigint, bigint] | null;
  /** The value when the operand is an integer literal (it adapts its type). */
  readonly lit: bigint | null;
}

function numericType(type: Vector['type']): NumType | null {
  switch (type.typeId) {
    case Type.Int: {
      const t = type as Int;
      return intType(`${t.isSigned ? 'i' : 'u'}${t.bitWidth}` as IntKind);
    }
    case Type.Float:
      return (type as Float).precision === Precision.DOUBLE ? DOUBLE : FLOAT;
    case Type.Decimal: {
      const t = type as Decimal;
      return t.precision <= 38 ? decimalType(t.precision, t.scale) : null;
    }
    default:
      return null;
  }
}

/** [min, max] of a column's unscaled values over every row (valid or not: conservative), [0, 0] when empty. */
function columnRange(table: Table, name: string): [bigint, bigint] {
  let lo: bigint | null = null;
  let hi: bigint | null = null;
  for (const b of table.batches) {
    const data = b.getChild(name)!.data[0]!;
    for (let i = 0; i < data.length; i++) {
      let v: bigint;
      if (data.type.typeId === Type.Decimal) {
        const stride = (data.type as Decimal).bitWidth / 32;
        v = bigIntFromWords(data.values as Uint32Array, i * stride, stride);
      } else v = BigInt((data.values as ArrayLike<number | bigint>)[i]!);
      if (lo === null || v < lo) lo = v;
      if (hi === null || v > hi) hi = v;
    }
  }
  return [lo ?? 0n, hi ?? 0n];
}

const pow10 = (k: number) => 10n ** BigInt(k);
const scaleOf = (t: NumType) => (t.k === 'dec' ? t.s : 0);

/** Whether every value of `range` fits type `t` (an integer type's range, a decimal's width). */
function fits(range: readonly [bigint, bigint], t: NumType): boolean {
  if (t.k === 'int') {
    const [min, max] = intRange(t.int);
    return range[0] >= min && range[1] <= max;
  }
  if (t.k === 'dec') return -pow10(t.p) < range[0] && range[1] < pow10(t.p);
  return true;
}

/** `x` (an exact operand) cast to `to`: its range at to's scale, or null when some value would not fit. */
function castRange(x: Operand, to: NumType): [bigint, bigint] | null {
  const f = pow10(scaleOf(to) - scaleOf(x.t));
  const r: [bigint, bigint] = [x.range![0] * f, x.range![1] * f];
  return to.k !== 'dec' || scaleOf(to) === scaleOf(x.t) || fits(r, to) ? r : null;
}

/** `a op b` with its range, or null when some pair of values could overflow (or the types do not bind). */
function arithOperand(op: ArithOp, a: Operand, b: Operand): Operand | null {
  const expr = arith(op, a.expr, b.expr);
  let bound;
  try {
    bound = bindArithmetic(op, a.t, b.t, a.lit, b.lit, 'filter');
  } catch (e) {
    if (e instanceof ExpressionError) return null;
    throw e;
  }
  const t = bound.result;
  if (!isExact(t)) return { expr, t, range: null, lit: null };
  const ra = op === '*' ? a.range : castRange(a, bound.left);
  const rb = op === '*' ? b.range : castRange(b, bound.right);
  if (ra === null || rb === null) return null;
  const [alo, ahi] = ra;
  const [blo, bhi] = rb;
  let range: [bigint, bigint];
  if (op === '+') range = [alo + blo, ahi + bhi];
  else if (op === '-') range = [alo - bhi, ahi - blo];
  else if (op === '*') {
    const c = [alo * blo, alo * bhi, ahi * blo, ahi * bhi];
    range = [c.reduce((x, y) => (y < x ? y : x)), c.reduce((x, y) => (y > x ? y : x))];
  } else {
    // `//` and `%`: |result| <= |dividend| (this also rules out MIN // -1)
    const m = (alo < 0n ? -alo : alo) > (ahi < 0n ? -ahi : ahi) ? (alo < 0n ? -alo : alo) : ahi < 0n ? -ahi : ahi;
    range = [-m, m];
  }
  return fits(range, t) ? { expr, t, range, lit: null } : null;
}

const ARITH_OPS: readonly ArithOp[] = ['+', '-', '*', '+', '-', '*', '//', '%', '//', '%', '/'];
const FILTER_COMPARE_OPS: readonly CompareOp[] = ['=', '<>', '<', '<=', '>', '>='];
const SMALL_LITERALS: readonly number[] = [0, 1, 2, 3, 7, -1, -2, 100, 0.5, 1.25, -2.5];

/**
 * A random filter comparing arithmetic over the numeric columns of both tables (`l.k0 * 2 - r.w
 * >= r.k0 % 7`), with DuckDB's typing. Only expressions that cannot overflow (or fail a decimal
 * cast) on any row are drawn: the value ranges are computed from the actual column data, over all
 * rows — DuckDB may evaluate a one-sided part of a filter on every row of that side (pushed below
 * the join), joinlab only on candidate pairs, so an overflow would make the two disagree about
 * failing rather than about the answer. Null when the tables have no numeric columns on both
 * sides, or no safe draw was found.
 */
export function arithmeticFilter(rng: Rng, left: Table, right: Table): string | null {
  const leaves = (table: Table, side: 'left' | 'right'): Operand[] =>
    table.schema.fields.flatMap((f) => {
      const t = numericType(f.type);
      if (t === null) return [];
      return [{ expr: col(side, f.name), t, range: isExact(t) ? columnRange(table, f.name) : null, lit: null }];
    });
  const cols = [...leaves(left, 'left'), ...leaves(right, 'right')];
  if (!cols.some((c) => c.expr.kind === 'column' && c.expr.side === 'left') || !cols.some((c) => c.expr.kind === 'column' && c.expr.side === 'right')) {
    return null;
  }
  const literal = (): Operand => {
    const v = rng.pick(SMALL_LITERALS);
    const lt = literalType(v, String(v));
    return { expr: lit(v), t: lt.t, range: lt.unscaled === null ? null : [lt.unscaled, lt.unscaled], lit: lt.int };
  };
  const exact = cols.filter((c) => isExact(c.t));
  // mostly exact columns (every table has a float64 `v`; a float operand makes the whole thing float)
  const column = (): Operand => (exact.length > 0 && rng.chance(0.85) ? rng.pick(exact) : rng.pick(cols));
  const leaf = (): Operand => (rng.chance(0.7) ? column() : literal());
  const operand = (depth: number): Operand | null => {
    if (depth === 0 || rng.chance(0.3)) return leaf();
    const a = operand(depth - 1);
    const b = operand(depth - 1);
    return a === null || b === null ? null : arithOperand(rng.pick(ARITH_OPS), a, b);
  };
  for (let attempt = 0; attempt < 30; attempt++) {
    const a = operand(2);
    const b = operand(1);
    if (a === null || b === null || a.expr.kind !== 'arith') continue;
    const common = bindComparison(a.t, b.t, a.lit, b.lit);
    if (isExact(common) && (castRange(a, common) === null || castRange(b, common) === null)) continue;
    let e: Expr = cmp(rng.pick(FILTER_COMPARE_OPS), a.expr, b.expr);
    if (rng.chance(0.3)) e = or(e, isNull(a.expr));
    return formatExpr(e);
  }
  return null;
}

/** A non-empty random subset of `names` in random order, comma-separated. */
function randomSelect(rng: Rng, names: readonly string[]): string {
  const pool = [...names];
  const count = rng.int(1, pool.length);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]!);
  return out.join(',');
}

// ---------------------------------------------------------------------------------------------
// shrinking
// ---------------------------------------------------------------------------------------------

/** `table` restricted to the rows `keep` (ascending indices), re-cut into batches of `batch` rows. */
export function takeRows(table: Table, keep: readonly number[], batch: number): Table {
  if (keep.length === 0) return new Table(table.schema, []);
  const src = new RowSource(table.batches, table.schema);
  const idx = Int32Array.from(keep);
  const cols = gatherColumns(src, idx, 0, idx.length);
  return rebatch(new Table(table.schema, [makeRecordBatch(table.schema, cols, idx.length)]), batch);
}

/** The same case with only rows `keep` of one side. */
export function withRows(c: JoinCase, side: 'left' | 'right', keep: readonly number[]): JoinCase {
  return side === 'left' ? { ...c, left: takeRows(c.left, keep, c.leftBatch) } : { ...c, right: takeRows(c.right, keep, c.rightBatch) };
}

export function withoutFilter(c: JoinCase): JoinCase {
  if (c.spec.filter === undefined) return c;
  const { filter: _dropped, ...spec } = c.spec;
  return { ...c, spec };
}

export interface ShrinkOptions {
  /** Most predicate evaluations (default 400): shrinking is a convenience, never a hang. */
  readonly maxChecks?: number;
}

/**
 * Greedy delta debugging: while `fails` holds, drop the filter, then chunks of rows of each side
 * (halves, quarters, … single rows), repeating until a whole pass removes nothing. Returns the
 * smallest failing case found (`c` itself if nothing could be removed).
 */
export async function shrinkCase(c: JoinCase, fails: (c: JoinCase) => Promise<boolean>, options: ShrinkOptions = {}): Promise<JoinCase> {
  let budget = options.maxChecks ?? 400;
  const check = async (x: JoinCase): Promise<boolean> => {
    if (budget <= 0) return false;
    budget--;
    return fails(x);
  };
  let cur = c;
  if (cur.spec.filter !== undefined) {
    const x = withoutFilter(cur);
    if (await check(x)) cur = x;
  }
  let progress = true;
  while (progress && budget > 0) {
    progress = false;
    for (const side of ['left', 'right'] as const) {
      let n = cur[side].numRows;
      for (let chunk = Math.ceil(n / 2); chunk >= 1 && n > 0 && budget > 0; chunk = chunk === 1 ? 0 : Math.ceil(chunk / 2)) {
        for (let start = 0; start < n && budget > 0; ) {
          const keep: number[] = [];
          for (let r = 0; r < n; r++) if (r < start || r >= start + chunk) keep.push(r);
          const x = withRows(cur, side, keep);
          if (await check(x)) {
            cur = x;
            n = keep.length;
            progress = true;
          } else start += chunk;
        }
      }
    }
  }
  return cur;
}

// ---------------------------------------------------------------------------------------------
// printing
// ---------------------------------------------------------------------------------------------

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function jsonNumber(x: number): number | string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return x;
}

/** Row i (valid) of one chunk as a JSON value: exact, bigints and other 64-bit values as strings. */
function jsonValue(data: Data, vector: Vector, i: number): unknown {
  const t = data.type;
  switch (t.typeId) {
    case Type.Int:
    case Type.Float: {
      const v = (data.values as ArrayLike<number | bigint>)[i]!;
      return typeof v === 'bigint' ? v.toString() : jsonNumber(v);
    }
    case Type.Timestamp:
      return String((data.values as BigInt64Array)[i]!); // raw count in the column's unit
    case Type.Date: {
      const raw = (data.values as ArrayLike<number | bigint>)[i]!;
      const ms = typeof raw === 'bigint' ? Number(raw) : raw * 86_400_000;
      return new Date(ms).toISOString().slice(0, typeof raw === 'bigint' ? 23 : 10);
    }
    case Type.Decimal: {
      const d = t as Decimal;
      const stride = d.bitWidth / 32;
      return decimalText(bigIntFromWords(data.values as Uint32Array, i * stride, stride), d.scale, false);
    }
    case Type.Binary:
    case Type.LargeBinary: {
      const bytes = vector.get(i) as Uint8Array;
      let s = '0x';
      for (const b of bytes) s += HEX[b];
      return s;
    }
    default: {
      const v = vector.get(i);
      return typeof v === 'bigint' ? v.toString() : typeof v === 'number' ? jsonNumber(v) : v;
    }
  }
}

/** A table as `{ types: {col: type}, columns: {col: [values]} }` (exact values, NULL as null). */
export function tableToJson(table: Table): { types: Record<string, string>; columns: Record<string, unknown[]> } {
  const types: Record<string, string> = {};
  const columns: Record<string, unknown[]> = {};
  table.schema.fields.forEach((f, c) => {
    types[f.name] = String(f.type);
    const out: unknown[] = [];
    for (const b of table.batches) {
      const data = b.data.children[c]!;
      const vector = makeVector(data);
      for (let i = 0; i < data.length; i++) out.push(data.getValid(i) ? jsonValue(data, vector, i) : null);
    }
    columns[f.name] = out;
  });
  return { types, columns };
}

/** A case as text: spec, config and both tables as JSON (plus `extra` lines, e.g. the SQL). */
export function describeCase(c: JoinCase, extra: Record<string, string> = {}): string {
  const lines = [
    `case ${c.index} of seed ${c.seed} (${c.left.numRows} x ${c.right.numRows} rows, input batches ${c.leftBatch} / ${c.rightBatch}${c.sharedInputs === true ? ', in shared memory' : ''})`,
    `spec:   ${JSON.stringify(c.spec)}`,
    `config: ${JSON.stringify(c.config)}`,
    `left:   ${JSON.stringify(tableToJson(c.left))}`,
    `right:  ${JSON.stringify(tableToJson(c.right))}`,
  ];
  for (const [k, v] of Object.entries(extra)) lines.push(`${`${k}:`.padEnd(7)} ${v}`);
  return lines.join('\n');
}
