/**
 * `duckdb`: DuckDB v1.5's join filter pushdown, per build partition. Read at tag v1.5.5
 * (d8cdaa33, 2026-07-21; the rules are the same since v1.5.0 apart from the deferred Bloom push):
 * `src/execution/operator/join/physical_hash_join.cpp` (`JoinFilterPushdownInfo::FinalizeFilters`,
 * `CanUseInFilter`, `PushInFilter`, `CanUseBloomFilter`, `PushBloomFilter`),
 * `src/planner/filter/bloom_filter.cpp` (sizing, `CheckStatistics`),
 * `src/planner/filter/selectivity_optional_filter.cpp` (the pause, see selectivity-pause.ts),
 * `src/optimizer/filter_combiner.cpp` (`IsDenseRange`), `src/common/settings.json`
 * (`dynamic_or_filter_threshold` = 50), `perfect_hash_join_executor.cpp` (`CanDoPerfectHashJoin`),
 * `src/optimizer/join_filter_pushdown_optimizer.cpp` (`build_side_has_filter`).
 * (In 1.5 there is no `join_filter_pushdown.cpp`; the code lives in physical_hash_join.cpp.)
 *
 * What DuckDB 1.5 pushes for each key column, and how joinlab models it:
 *  1. min/max. min == max: `k = v` (a ConstantFilter, never paused). Otherwise `k >= min` and
 *     `k <= max`, each a SelectivityOptionalFilter(0.75, 30 vectors). joinlab: the partition's
 *     `boundsFilter` (all key columns), paused as ONE filter unless every column is constant —
 *     DuckDB keeps a pause state per conjunct and per column; the conjunction's pass rate is at most
 *     each conjunct's, so joinlab pauses a little later, never earlier. Containers: always pruned.
 *  2. IN list, when the hash table holds more than 1 and at most `dynamic_or_filter_threshold`
 *     (50, `pushdown.duckdb.inlistMaxRows`) ROWS (`ht->Count()`, duplicates counted, NULL-key rows
 *     only when the table keeps them: null-equals-null / outer build), per key column (also for
 *     multi-column keys: `CanUseInFilter` does not look at the condition count), over that
 *     column's distinct values — skipped when they contain NULL (`FilterCombiner::ContainsNull`:
 *     joinlab: the table kept NULL-key rows and this column has one) or form a dense integer range
 *     (`IsDenseRange`: integral types, not UHUGEINT, every gap 1 — min/max is already exact).
 *     DuckDB pushes it as an `OptionalFilter`: "we push the OR filter as an OptionalFilter so that
 *     we can use it for zonemap pruning only — the IN-list is expensive to execute otherwise". So
 *     joinlab's IN list prunes containers and never runs per row (`test` keeps every row, `perRow`
 *     is null). NOTE the difference from the brief's model: 1.5 has no row-level IN filter.
 *  3. Bloom filter (`BFTableFilter`), in the min != max branch, when `CanUseBloomFilter`: ONE key
 *     column, equality, no cast between the probe column's storage type and the join type
 *     (`has_cast`), not a perfect hash join (`CanDoPerfectHashJoin`: an integer-typed key, max - min
 *     <= MAX_BUILD_SIZE = 2^20 and count <= max - min), the build side is filtered
 *     (`build_side_has_filter`: a filter, Top-N or filtered scan below the build) and the probe's
 *     estimated cardinality exceeds the build's row count. joinlab cannot see the plan: the last two
 *     are config (`pushdown.duckdb.buildSideFiltered`, `pushdown.duckdb.probeLargerThanBuild`,
 *     default true), and the join is taken to be INNER for the perfect-hash rule. Sizing
 *     (`BloomFilter::Initialize(ht.Count())`): bits = max(512, 12 * rows), rounded up to a power of
 *     two, in 64-bit sectors, at most 2^26 sectors. joinlab keeps that byte size but uses its
 *     split-block layout (bloom.ts: 256-bit blocks, 8 bits per key) instead of DuckDB's one 64-bit
 *     sector with 4 bits per key, so its false-positive rate is lower at the same size. The filter is
 *     a SelectivityOptionalFilter(0.25, 75 vectors). Containers (`BFTableFilter::CheckStatistics`):
 *     an integer column whose [min, max] spans at most 2048 values is pruned when none of them
 *     is in the filter — joinlab does the same over its join hashes (int kinds of <= 64 bits).
 *  Pauses: selectivity-pause.ts (`pushdown.duckdb.*PausePercent`, `*CheckVectors`,
 *  `vectorRows`; `pauseResume` switches to main's re-checking pauses).
 *
 * A partition whose keys are all NULL publishes FALSE (and.ts), as every joinlab policy does.
 */
import { z } from 'zod';
import { positiveInt } from '../../../core/config/schema.ts';
import { defineSettings, settingReader } from '../../../core/config/settings.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import { resolveKeyKind } from '../../../core/keys/resolve.ts';
import type { FixedKeyColumn, KeyColumn, KeyKind } from '../../../core/keys/types.ts';
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../../core/pushdown/policy.ts';
import { registerKeyFilterKind } from '../../../core/pushdown/shared-filters.ts';
import { compareKeyValues, statsToKeyRange } from '../../../core/scan/key-stats.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import { andFilters, FALSE_FILTER } from '../and.ts';
import type { SplitBlockBloomFilter } from '../bloom.ts';
import { BloomKeyFilter, buildBloom } from '../bloom-key-filter.ts';
import { BoundsFilter, partitionBounds, usableRows, type ColumnBounds, type UsableRows } from '../bounds.ts';
import { InList } from '../inlist.ts';
import { SelectivityPause, type PauseRule } from './selectivity-pause.ts';

/**
 * DuckDB v1.5's join filter pushdown settings, declared by the engines' extension (extension.ts);
 * the defaults are DuckDB's.
 */
export const DUCKDB_SETTINGS = defineSettings({
  'pushdown.duckdb.inlistMaxRows': { schema: positiveInt, default: 50, description: '`dynamic_or_filter_threshold`: largest hash table, in rows, that gets a zone-map IN list' },
  'pushdown.duckdb.buildSideFiltered': { schema: z.boolean(), default: true, description: "DuckDB's Bloom gate: the build side is filtered (a plan fact)" },
  'pushdown.duckdb.probeLargerThanBuild': { schema: z.boolean(), default: true, description: "DuckDB's Bloom gate: the probe side is larger than the build (a plan fact)" },
  'pushdown.duckdb.bloomBitsPerKey': { schema: positiveInt.max(64), default: 12, description: 'Bloom filter bits per hash-table row' },
  'pushdown.duckdb.perfectHashMaxRange': { schema: positiveInt, default: 1048576, description: 'no Bloom filter for a perfect hash join (integer key range up to this)' },
  'pushdown.duckdb.vectorRows': { schema: positiveInt, default: 2048, description: 'rows per vector (the selectivity pause counts vectors)' },
  'pushdown.duckdb.minMaxPausePercent': { schema: positiveInt.max(100), default: 75, description: 'min/max is paused when it keeps at least this % of rows…' },
  'pushdown.duckdb.minMaxCheckVectors': { schema: positiveInt, default: 30, description: '…after this many vectors' },
  'pushdown.duckdb.bloomPausePercent': { schema: positiveInt.max(100), default: 25, description: 'the Bloom filter is paused when it keeps at least this % of rows…' },
  'pushdown.duckdb.bloomCheckVectors': { schema: positiveInt, default: 75, description: '…after this many vectors' },
  'pushdown.duckdb.pauseResume': { schema: z.boolean(), default: false, description: "true: main's re-checking pauses instead of 1.5's permanent one" },
});
const setting = settingReader(DUCKDB_SETTINGS);

/** bloom_filter.cpp constants. */
export const BLOOM_MIN_BITS = 512;
export const BLOOM_MAX_SECTORS = 2 ** 26;
/** `TemplatedCheckStatistics`: a container range wider than this is not enumerated. */
export const BLOOM_STATS_MAX_RANGE = 2048;
/** `FilterCombiner::IsDenseRange` applies to these (LogicalType::IsIntegral, minus UHUGEINT). */
const INTEGRAL = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT']);

/** DuckDB's Bloom filter size in bytes for `rows` hash-table rows (`BloomFilter::Initialize`). */
export function duckdbBloomBytes(rows: number, bitsPerKey = 12): number {
  const minBits = Math.max(BLOOM_MIN_BITS, rows * bitsPerKey);
  let bits = 1;
  while (bits < minBits) bits *= 2;
  const sectors = Math.min(bits / 64, BLOOM_MAX_SECTORS);
  return sectors * 8;
}

/** The filter of one partition and why each part was (not) chosen. */
export interface DuckdbPlan {
  readonly filter: KeyFilter | null;
  readonly notes: readonly string[];
}

export function planDuckdb(build: BuildPartition, ctx: PushdownContext): DuckdbPlan {
  const cfg = ctx.config;
  const notes: string[] = [];
  const usable = usableRows(build);
  if (usable.count === 0) return { filter: FALSE_FILTER, notes: ['no non-NULL build key: false'] };
  const bounds = partitionBounds(build, usable)!;
  const vectorRows = setting(cfg, 'pushdown.duckdb.vectorRows');
  const resume = setting(cfg, 'pushdown.duckdb.pauseResume');
  const parts: KeyFilter[] = [];
  // 1. min/max
  const constant = bounds.every((b) => compareKeyValues(b.min, b.max) === 0);
  const minMax = new BoundsFilter(bounds, ctx);
  if (constant) {
    parts.push(minMax);
    notes.push('min = max: constant filter (never paused)');
  } else {
    const rule: PauseRule = { threshold: setting(cfg, 'pushdown.duckdb.minMaxPausePercent') / 100, checkVectors: setting(cfg, 'pushdown.duckdb.minMaxCheckVectors'), vectorRows, resume };
    parts.push(new SelectivityPause(minMax, rule));
    notes.push('min/max: optional, pausable');
  }
  // 2. IN lists (zone maps only)
  const count = build.table.inserted;
  const inlistMax = setting(cfg, 'pushdown.duckdb.inlistMaxRows');
  if (count <= 1) notes.push(`no IN list: ${count} hash-table row(s), needs > 1`);
  else if (count > inlistMax) notes.push(`no IN list: ${count} hash-table rows > ${inlistMax}`);
  else {
    const htHoldsNulls = count > usable.count;
    for (let c = 0; c < build.keys.length; c++) {
      const f = columnInList(build, ctx, c, count, htHoldsNulls ? null : usable, notes);
      if (f !== null) parts.push(f);
    }
  }
  // 3. Bloom
  const gate = bloomGate(build, ctx, bounds, constant, count);
  if (gate !== null) notes.push(`no Bloom filter: ${gate}`);
  else {
    const bytes = duckdbBloomBytes(count, setting(cfg, 'pushdown.duckdb.bloomBitsPerKey'));
    const bloom = new DuckdbBloomFilter(buildBloom(build, { bytes }, usable), build, ctx);
    const rule: PauseRule = { threshold: setting(cfg, 'pushdown.duckdb.bloomPausePercent') / 100, checkVectors: setting(cfg, 'pushdown.duckdb.bloomCheckVectors'), vectorRows, resume };
    parts.push(new SelectivityPause(bloom, rule));
    notes.push(`Bloom filter of ${bytes} bytes for ${count} rows`);
  }
  return { filter: andFilters(parts), notes };
}

/** Why DuckDB would not build a Bloom filter (null: it would). */
function bloomGate(build: BuildPartition, ctx: PushdownContext, bounds: readonly ColumnBounds[], constant: boolean, count: number): string | null {
  const cfg = ctx.config;
  if (build.keys.length !== 1) return 'more than one key column';
  if (constant) return 'min = max (the constant filter is exact)';
  const kind = ctx.keyKinds[0]!;
  if (hasCast(ctx.probeTypes[0], kind, ctx.probeColumns[0] ?? 'k')) return `the probe column is cast to ${kind.sqlType}`;
  const perfect = perfectHash(bounds[0]!, count, setting(cfg, 'pushdown.duckdb.perfectHashMaxRange'));
  if (perfect) return 'perfect hash join (min/max prunes well)';
  if (!setting(cfg, 'pushdown.duckdb.buildSideFiltered')) return 'the build side is not filtered';
  if (!setting(cfg, 'pushdown.duckdb.probeLargerThanBuild')) return 'the probe side is not larger than the build';
  return null;
}

/** `CanDoPerfectHashJoin` for an INNER join: integer-typed key, range <= MAX_BUILD_SIZE, count <= range. */
function perfectHash(b: ColumnBounds, count: number, maxRange: number): boolean {
  const o = b.kind.order;
  if (o !== 'int' && o !== 'uint' && o !== 'decimal') return false; // TypeIsInteger(internal type)
  const range = (b.max as bigint) - (b.min as bigint);
  return range <= BigInt(maxRange) && BigInt(count) <= range;
}

/** Whether DuckDB's probe-side condition casts the scanned column (its own type differs from the join's). */
function hasCast(probeType: PushdownContext['probeTypes'][number] | undefined, kind: KeyKind, name: string): boolean {
  if (probeType === undefined) return true;
  let own: KeyKind;
  try {
    own = resolveKeyKind(probeType, probeType, name, name);
  } catch {
    return true;
  }
  return own.order !== kind.order || own.width !== kind.width || own.sqlType !== kind.sqlType || own.scale !== kind.scale || own.timeUnit !== kind.timeUnit;
}

/** The IN list of column c as DuckDB 1.5 pushes it (zone maps only), or null with a note. */
function columnInList(build: BuildPartition, ctx: PushdownContext, c: number, count: number, usable: UsableRows | null, notes: string[]): KeyFilter | null {
  const col = build.keys[c]!;
  const name = ctx.probeColumns[c] ?? `key${c}`;
  let skip: Uint8Array | null;
  let rows: number;
  if (usable === null) {
    // the table kept NULL-key rows: this column's list holds NULL if any row has one here
    if (col.nulls !== null && col.nulls.includes(1)) {
      notes.push(`no IN list on ${name}: the hash table holds a NULL key`);
      return null;
    }
    skip = null;
    rows = build.rows;
  } else {
    skip = usable.skip;
    rows = usable.count;
  }
  const sub: BuildPartition = { index: build.index, rows: build.rows, keys: [col], table: build.table, seed: build.seed };
  const subCtx: PushdownContext = { config: ctx.config, keyKinds: [col.kind], probeTypes: ctx.probeTypes[c] === undefined ? [] : [ctx.probeTypes[c]!], probeColumns: [name] };
  const out = InList.build(sub, subCtx, { skip, count: rows }, { maxDistinct: count, maxBytes: Number.MAX_SAFE_INTEGER });
  if (out.list === null) {
    notes.push(`no IN list on ${name}: ${out.reason}`);
    return null;
  }
  const values = out.list.exactValues()!;
  if (INTEGRAL.has(col.kind.sqlType) && isDense(values as readonly bigint[])) {
    notes.push(`no IN list on ${name}: ${values.length} value(s) form a dense range`);
    return null;
  }
  notes.push(`IN list on ${name}: ${values.length} values (zone maps only)`);
  return new ZoneMapOnly(out.list, c);
}

/** Sorted distinct integers with every gap 1 (`IsDenseRange`; one value is dense). */
function isDense(sorted: readonly bigint[]): boolean {
  for (let i = 1; i < sorted.length; i++) if (sorted[i]! - sorted[i - 1]! !== 1n) return false;
  return true;
}

/**
 * DuckDB's `OptionalFilter(InFilter)`: used for container statistics only. `test` keeps every row
 * (that is what an optional filter does during the scan) and `perRow` is null.
 */
class ZoneMapOnly implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes = false;
  readonly #list: InList;
  readonly #column: number;
  readonly #one: (ColumnStats | undefined)[] = [undefined];

  constructor(list: InList, column: number) {
    this.#list = list;
    this.#column = column;
    this.description = `OPTIONAL(${list.description}) [zone maps only]`;
    this.label = `${list.label} zonemap`;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    this.#one[0] = stats[this.#column];
    return this.#list.mayContain(this.#one);
  }

  exactValues(): null {
    return null;
  }

  perRow(): null {
    return null;
  }

  test(): void {
    // an optional filter keeps every row
  }

  share(): SharedKeyFilter {
    return { kind: 'keep-all', state: null };
  }
}

/** What a zone-map-only filter is on a worker (which tests no container): a row test that keeps every row. */
const KEEP_ALL: KeyFilter = Object.freeze({
  description: 'true [zone maps only]',
  needsHashes: false,
  mayContain: () => true,
  test(): void {},
});
registerKeyFilterKind('keep-all', () => KEEP_ALL);

/**
 * The Bloom filter with DuckDB's container test: an integer container whose [min, max] spans at
 * most 2048 values is pruned when none of those values is in the filter (`CheckStatistics`).
 */
class DuckdbBloomFilter implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes = true;
  readonly bloom: SplitBlockBloomFilter;
  readonly #inner: BloomKeyFilter;
  readonly #kind: KeyKind;
  readonly #seed: number;
  readonly #ctx: PushdownContext;

  constructor(bloom: SplitBlockBloomFilter, build: BuildPartition, ctx: PushdownContext) {
    this.#inner = new BloomKeyFilter(bloom, ctx);
    this.bloom = bloom;
    this.description = this.#inner.description;
    this.label = this.#inner.label;
    this.#kind = build.keys[0]!.kind;
    this.#seed = build.seed;
    this.#ctx = ctx;
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.#inner.test(keys, hashes, rows, keep);
  }

  /** `test` is the plain Bloom filter's (the DuckDB part is the container test). */
  share(): SharedKeyFilter {
    return this.#inner.share();
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    const kind = this.#kind;
    const type = this.#ctx.probeTypes[0];
    if (type === undefined || !((kind.order === 'int' && (kind.width === 1 || kind.width === 2)) || (kind.order === 'uint' && kind.width === 2))) return true;
    const range = statsToKeyRange(stats[0], type, kind);
    if (typeof range.lo !== 'bigint' || typeof range.hi !== 'bigint') return true;
    const lo = range.lo;
    const span = range.hi - lo;
    if (span < 0n || span > BigInt(BLOOM_STATS_MAX_RANGE)) return true;
    const n = Number(span) + 1;
    const w = kind.width;
    const words = new Int32Array(n * w);
    for (let i = 0; i < n; i++) {
      const v = lo + BigInt(i);
      words[i * w] = Number(BigInt.asIntN(32, v));
      if (w === 2) words[i * w + 1] = Number(BigInt.asIntN(32, v >> 32n));
    }
    const col: FixedKeyColumn = { kind, length: n, words, nulls: null };
    const cols: KeyColumn[] = [col];
    const keep = new Uint8Array(n).fill(1);
    this.bloom.testHashes(hashKeys(cols, this.#seed), null, keep);
    return keep.includes(1);
  }
}

export const duckdbPushdown: PushdownPolicy = {
  name: 'duckdb',
  description:
    "DuckDB 1.5's join filters: min/max (paused at >= 75% kept after 30 vectors), an IN list for zone maps when the hash table has 2..50 rows (pushdown.duckdb.inlistMaxRows; not dense, no NULL), a Bloom filter for one un-cast key unless a perfect hash join (paused at >= 25% after 75 vectors)",
  planPartition: (build, ctx) => planDuckdb(build, ctx).filter,
};
