/**
 * `trino`: Trino's dynamic filtering for a hash join, per build partition.
 *
 * What Trino does (DynamicFilterSourceOperator + JoinDomainBuilder, one builder per key column,
 * per build-side driver):
 *  1. Collect the column's DISTINCT non-NULL values while at most `max-distinct-values-per-driver`
 *     (the check is `distinctSize > max`, so exactly the limit still publishes values) and while the
 *     builder's retained size is at most `max-size-per-driver`. The result is a `Domain` of discrete
 *     values (`ValueSet.copyOf`); NaN is left out since a join never matches it.
 *  2. Past either limit the values are dropped and the column falls back to its MIN/MAX — only for
 *     orderable types other than DOUBLE and REAL ("to avoid dealing with NaN values"), and only while
 *     min/max collection is enabled: `range-row-limit-per-driver > 0` and the driver has seen at most
 *     that many rows (positions, NULLs included: the operator subtracts each page's position count
 *     and disables min/max once the remainder is negative — at the limit still collects).
 *  3. Otherwise the column is `Domain.all`; once no column collects anything the operator publishes
 *     `TupleDomain.all()` — no filter.
 *  A driver whose keys are all NULL publishes `Domain.none` (FALSE here).
 *  Limits: `dynamic-filtering.small.*` by default, `small-partitioned.*` when the build is
 *  partitioned on the join key (PARTITIONED distribution without fault-tolerant execution; joinlab:
 *  `hash.mode: partitioned`), `large.*` / `large-partitioned.*` when `enable-large-dynamic-filters`
 *  is on (default off).
 *
 * What Trino publishes for a value set is only the discrete Domain — no separate min/max — but a
 * discrete domain still prunes by range: a connector tests each value against a row group's
 * [min, max] (or the domain's span once it compacts a large set). The IN list's `mayContain` is that
 * per-value range test (inlist.ts), so nothing is ANDed to it: a BETWEEN would change no row's
 * outcome and prune no container the list does not.
 *
 * Mapping onto joinlab:
 *  - "Per driver" = per build partition: collect-left has one partition (the whole build, where Trino
 *    splits a broadcast build over its task's drivers, each with its own limits — joinlab falls back
 *    at or before Trino would); partitioned mode has one per hash partition, as Trino's partitioned
 *    drivers. Trino unions the drivers' domains into one predicate (one driver over its limits makes
 *    it `all`); joinlab routes each probe row to its own partition's filter (core/pushdown/compose.ts)
 *    — at least as selective, never dropping a match. The per-operator and per-filter limits
 *    (`max-size-per-operator`, `max-size-per-filter`, applied to that union) are not modelled.
 *  - The value set is `InList.build` (strategies/pushdown/inlist.ts). Its byte count is PACKED key
 *    bytes (4 per 32-bit word, 4 + length per string); Trino's limit is on the builder's RETAINED
 *    size: a swiss table of power-of-two capacity (64 at first, doubled when the count reaches 15/16
 *    of it) of control bytes (capacity + 8) and fixed records (the type's flat size: 8 for BIGINT, 4 for
 *    INTEGER/DATE, 16 for a long decimal, 1 for BOOLEAN; a string is a 4-byte length plus a 12-byte
 *    pointer, its bytes beyond 3 in 1 KiB+ doubling chunks), plus array headers — about 18 KiB for
 *    1000 BIGINTs where the packed count is 8000 B. `trinoRetainedBytes` estimates that (the builder's
 *    object header and the chunks' slack approximated), and the list must fit it; packed bytes never
 *    exceed 8x it, so `InList.build` is given 8x the size limit (times the key's columns) only to stop
 *    early. joinlab widens integer keys to 64 bits; the flat size follows the SQL type (INTEGER: 4).
 *  - A multi-column key: Trino keeps one Domain per column (their product), joinlab's IN list holds
 *    key TUPLES — a subset of that product (more selective, never dropping a match). The distinct and
 *    size limits are applied to the tuple count (>= every column's own count), so joinlab falls back
 *    at or before Trino; past them every orderable non-float column publishes min/max (Trino may keep
 *    a column whose own values fit as a value set; its min/max passes a superset of those).
 *
 * NaN: Trino leaves NaN out of a value set (its join never matches NaN); joinlab's list keeps what
 * InList collects — joinlab's key equality decides what matches, and a superset never drops one.
 *
 * Sources: trinodb/trino master (the release was not pinned; stored commits named) —
 * `core/trino-main/src/main/java/io/trino/execution/DynamicFilterConfig.java` (039eb59c; keys and
 * defaults), `core/trino-main/src/main/java/io/trino/operator/DynamicFilterSourceOperator.java`
 * (710f987d; row limit, publishing `TupleDomain.all`), `.../operator/JoinDomainBuilder.java`
 * (00a0fab0; per-column distinct set, retained-size accounting, rehash at 15/16, min/max fallback,
 * DOUBLE/REAL excluded), `.../operator/VariableWidthData.java` (1c7347fb; string chunks, 12-byte
 * pointer), `core/trino-spi/src/main/java/io/trino/spi/type/AbstractVariableWidthType.java`
 * (364e7edb; 4-byte flat length, strings of <= 3 bytes inline),
 * `docs/src/main/sphinx/admin/dynamic-filtering.md` (39f001b3; small / partitioned / large limits).
 */
import { z } from 'zod';
import { byteSize, nonNegativeInt, type Config } from '../../../core/config/schema.ts';
import { defineSettings, settingReader } from '../../../core/config/settings.ts';
import { isBytesKey, type KeyColumn, type KeyKind } from '../../../core/keys/types.ts';
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../../core/pushdown/policy.ts';
import { registerKeyFilterKind, restoreKeyFilter } from '../../../core/pushdown/shared-filters.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import { FALSE_FILTER } from '../and.ts';
import { BoundsFilter, partitionBounds, usableRows } from '../bounds.ts';
import { InList } from '../inlist.ts';
import { annotate } from './annotated.ts';

const KIB = 1024;
const MIB = 1024 * 1024;
/** A byte size of at most `max` (Trino's @MaxDataSize). */
const atMost = (max: number) => z.number().max(max, `at most ${max} bytes`);

/**
 * Trino's dynamic filtering settings (DynamicFilterConfig's defaults; airlift sizes are binary:
 * 100kB = 102400 B), declared by the engines' extension (extension.ts). "Per driver" is per
 * joinlab build partition.
 */
export const TRINO_SETTINGS = defineSettings({
  'pushdown.trino.enableLargeDynamicFilters': { schema: z.boolean(), default: false, description: 'use the large… limits instead of the small ones' },
  'pushdown.trino.maxDistinctPerDriver': { schema: nonNegativeInt, default: 1_000, description: 'dynamic-filtering.small.max-distinct-values-per-driver' },
  'pushdown.trino.maxSizePerDriver': { schema: byteSize.pipe(atMost(MIB)), default: 100 * KIB, description: 'dynamic-filtering.small.max-size-per-driver (at most 1 MiB)' },
  'pushdown.trino.rangeRowLimitPerDriver': { schema: nonNegativeInt, default: 2_000, description: 'dynamic-filtering.small.range-row-limit-per-driver' },
  'pushdown.trino.partitionedMaxDistinctPerDriver': { schema: nonNegativeInt, default: 100, description: 'the same, under hash.mode partitioned' },
  'pushdown.trino.partitionedMaxSizePerDriver': { schema: byteSize.pipe(atMost(MIB)), default: 50 * KIB, description: 'the same, under hash.mode partitioned (at most 1 MiB)' },
  'pushdown.trino.partitionedRangeRowLimitPerDriver': { schema: nonNegativeInt, default: 500, description: 'the same, under hash.mode partitioned' },
  'pushdown.trino.largeMaxDistinctPerDriver': { schema: nonNegativeInt, default: 50_000, description: 'dynamic-filtering.large.max-distinct-values-per-driver' },
  'pushdown.trino.largeMaxSizePerDriver': { schema: byteSize, default: 4 * MIB, description: 'dynamic-filtering.large.max-size-per-driver' },
  'pushdown.trino.largeRangeRowLimitPerDriver': { schema: nonNegativeInt, default: 100_000, description: 'dynamic-filtering.large.range-row-limit-per-driver' },
  'pushdown.trino.largePartitionedMaxDistinctPerDriver': { schema: nonNegativeInt, default: 20_000, description: 'the large set under hash.mode partitioned' },
  'pushdown.trino.largePartitionedMaxSizePerDriver': { schema: byteSize, default: 200 * KIB, description: 'the large set under hash.mode partitioned' },
  'pushdown.trino.largePartitionedRangeRowLimitPerDriver': { schema: nonNegativeInt, default: 30_000, description: 'the large set under hash.mode partitioned' },
});
const setting = settingReader(TRINO_SETTINGS);

/** The limits that apply to one driver (= build partition). */
export interface TrinoLimits {
  /** Which set of Trino's properties: `small`, `small-partitioned`, `large`, `large-partitioned`. */
  readonly set: string;
  readonly maxDistinct: number;
  readonly maxSize: number;
  readonly rangeRowLimit: number;
}

export function trinoLimits(config: Config): TrinoLimits {
  const partitioned = config['hash.mode'] === 'partitioned';
  if (setting(config, 'pushdown.trino.enableLargeDynamicFilters')) {
    return partitioned
      ? {
          set: 'large-partitioned',
          maxDistinct: setting(config, 'pushdown.trino.largePartitionedMaxDistinctPerDriver'),
          maxSize: setting(config, 'pushdown.trino.largePartitionedMaxSizePerDriver'),
          rangeRowLimit: setting(config, 'pushdown.trino.largePartitionedRangeRowLimitPerDriver'),
        }
      : {
          set: 'large',
          maxDistinct: setting(config, 'pushdown.trino.largeMaxDistinctPerDriver'),
          maxSize: setting(config, 'pushdown.trino.largeMaxSizePerDriver'),
          rangeRowLimit: setting(config, 'pushdown.trino.largeRangeRowLimitPerDriver'),
        };
  }
  return partitioned
    ? {
        set: 'small-partitioned',
        maxDistinct: setting(config, 'pushdown.trino.partitionedMaxDistinctPerDriver'),
        maxSize: setting(config, 'pushdown.trino.partitionedMaxSizePerDriver'),
        rangeRowLimit: setting(config, 'pushdown.trino.partitionedRangeRowLimitPerDriver'),
      }
    : {
        set: 'small',
        maxDistinct: setting(config, 'pushdown.trino.maxDistinctPerDriver'),
        maxSize: setting(config, 'pushdown.trino.maxSizePerDriver'),
        rangeRowLimit: setting(config, 'pushdown.trino.rangeRowLimitPerDriver'),
      };
}

/** `instanceSize(JoinDomainBuilder)` (about 30 fields; approximated) and `sizeOf(byte[])`'s header. */
const BUILDER_BYTES = 128;
const ARRAY_HEADER = 16;
/** `VariableWidthData`: instance, chunk list, first chunk size, the 12-byte record pointer. */
const VWD_BYTES = 64;
const MIN_CHUNK = 1024;
const MAX_CHUNK = 8 * 1024 * 1024;
const POINTER_SIZE = 12;

/**
 * Trino's flat fixed size of the key's type (bytes: the 4-byte length, the pointer added
 * separately). joinlab widens every integer key to 64 bits, so the SQL type decides: TINYINT and
 * BOOLEAN 1, SMALLINT 2, INTEGER / DATE / REAL 4, a short decimal (precision <= 18) 8, else the
 * normalised width (BIGINT, DOUBLE, TIMESTAMP 8; HUGEINT, long decimal 16).
 */
function flatFixedSize(kind: KeyKind, bytes: boolean): number {
  if (bytes) return 4;
  const t = kind.sqlType.toUpperCase();
  if (kind.order === 'bool' || /^U?TINYINT$/.test(t)) return 1;
  if (/^U?SMALLINT$/.test(t)) return 2;
  if (/^(U?INTEGER|DATE|FLOAT|REAL)$/.test(t)) return 4;
  const dec = /^DECIMAL\((\d+)/.exec(t);
  if (dec !== null) return Number(dec[1]) <= 18 ? 8 : 16;
  return 4 * kind.width;
}

/**
 * Packed IN-list bytes per value are at most 8x Trino's record bytes (a TINYINT packs 8 bytes into a
 * 1-byte record; a string packs 4 + length against 16 + length), so a list whose packed bytes exceed
 * 8x the size limit (per column) cannot fit it: `InList.build` may stop there.
 */
const PACKED_PER_RECORD = 8;

/**
 * Estimated `JoinDomainBuilder.getRetainedSizeInBytes()` after `n` distinct values of one column,
 * `varBytes` of them stored out of line (string values longer than 3 bytes).
 */
export function trinoRetainedBytes(kind: KeyKind, bytes: boolean, n: number, varBytes = 0): number {
  let capacity = 64;
  while (n >= (capacity / 16) * 15) capacity *= 2;
  const record = (bytes ? POINTER_SIZE : 0) + flatFixedSize(kind, bytes);
  let size = BUILDER_BYTES + (ARRAY_HEADER + capacity + 8) + (ARRAY_HEADER + capacity * record);
  if (bytes) {
    size += VWD_BYTES;
    // chunks of max(32 values, 2x the previous) clamped to [1 KiB, 8 MiB]; approximated by doubling
    let left = varBytes;
    let chunk = MIN_CHUNK;
    while (left > 0) {
      size += ARRAY_HEADER + chunk;
      left -= chunk;
      chunk = Math.min(2 * chunk, MAX_CHUNK);
    }
  }
  return size;
}

/** Out-of-line string bytes of the list's entries: what the packed count holds beyond 4 + len <= 3. */
function outOfLineBytes(list: InList, cols: readonly KeyColumn[]): number {
  let fixed = 0;
  let bytesCols = 0;
  for (const c of cols) {
    if (isBytesKey(c)) bytesCols++;
    else fixed += 4 * c.kind.width;
  }
  if (bytesCols === 0) return 0;
  // packed = size * (fixed + 4 * bytesCols) + sum of string lengths (an upper bound for any one column)
  return Math.max(0, list.bytes - list.size * (fixed + 4 * bytesCols));
}

/** Trino's retained size of the largest column's builder, for the list's `size` tuples (an upper bound). */
function largestColumnBytes(list: InList, cols: readonly KeyColumn[]): number {
  const varBytes = outOfLineBytes(list, cols);
  let max = 0;
  for (const c of cols) max = Math.max(max, trinoRetainedBytes(c.kind, isBytesKey(c), list.size, isBytesKey(c) ? varBytes : 0));
  return max;
}

/**
 * A BoundsFilter over some of the key columns (Trino collects no min/max for DOUBLE / REAL): the
 * other columns are simply not tested.
 */
class ColumnSubsetFilter implements KeyFilter {
  readonly needsHashes = false;
  readonly label = 'bounds';
  readonly description: string;
  readonly #cols: readonly number[];
  readonly #inner: BoundsFilter;
  constructor(inner: BoundsFilter, cols: readonly number[]) {
    this.#inner = inner;
    this.#cols = cols;
    this.description = inner.description;
  }
  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    return this.#inner.mayContain(this.#cols.map((c) => stats[c]));
  }
  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.#inner.test(
      this.#cols.map((c) => keys[c]!),
      hashes,
      rows,
      keep,
    );
  }

  share(): SharedKeyFilter {
    return { kind: 'trino-column-subset', state: { inner: this.#inner.share(), cols: this.#cols } };
  }
}

registerKeyFilterKind('trino-column-subset', (raw, env) => {
  const s = raw as { readonly inner: SharedKeyFilter; readonly cols: readonly number[] };
  return new ColumnSubsetFilter(restoreKeyFilter(s.inner, env) as BoundsFilter, s.cols);
});

/** Min/max of the orderable non-float columns, or null when there is none. */
function rangeFilter(build: BuildPartition, ctx: PushdownContext, usable: ReturnType<typeof usableRows>): KeyFilter | null {
  const bounds = partitionBounds(build, usable);
  if (bounds === null) return FALSE_FILTER;
  const cols = bounds.map((_, c) => c).filter((c) => bounds[c]!.kind.order !== 'float');
  if (cols.length === 0) return null;
  if (cols.length === bounds.length) return new BoundsFilter(bounds, ctx);
  const sub: PushdownContext = {
    config: ctx.config,
    keyKinds: cols.map((c) => ctx.keyKinds[c]!),
    probeTypes: cols.map((c) => ctx.probeTypes[c]!),
    probeColumns: cols.map((c) => ctx.probeColumns[c] ?? `key${c}`),
  };
  return new ColumnSubsetFilter(
    new BoundsFilter(
      cols.map((c) => bounds[c]!),
      sub,
    ),
    cols,
  );
}

export const trinoPushdown: PushdownPolicy = {
  name: 'trino',
  description:
    "Trino's dynamic filter per driver (= build partition): the distinct values while <= max-distinct-values-per-driver and <= max-size-per-driver, else min/max (not DOUBLE/REAL) while the driver saw <= range-row-limit-per-driver rows, else nothing; small / small-partitioned / large limits (pushdown.trino.*)",
  planPartition(build, ctx) {
    const usable = usableRows(build);
    if (usable.count === 0) return FALSE_FILTER; // Domain.none: every value was NULL
    const lim = trinoLimits(ctx.config);
    const cols = build.keys;
    const tag = `trino ${lim.set}`;
    // 1. the value set
    const out = InList.build(build, ctx, usable, { maxDistinct: lim.maxDistinct, maxBytes: PACKED_PER_RECORD * lim.maxSize * cols.length });
    let why: string;
    if (out.list !== null) {
      const retained = largestColumnBytes(out.list, cols);
      if (retained <= lim.maxSize) {
        return annotate(out.list, {
          description: `${out.list.description} [${tag}: value set, ${out.list.size} <= ${lim.maxDistinct} distinct, ~${retained} <= ${lim.maxSize} bytes]`,
        });
      }
      why = `~${retained} > ${lim.maxSize} bytes`;
    } else {
      why = out.reason.endsWith('distinct values') ? `> ${lim.maxDistinct} distinct` : `> ${lim.maxSize} bytes`;
    }
    // 2. min/max, when collection was enabled and the driver's rows stayed within the limit
    if (lim.rangeRowLimit <= 0 || build.rows > lim.rangeRowLimit) return null;
    const range = rangeFilter(build, ctx, usable);
    if (range === null || range === FALSE_FILTER) return range;
    return annotate(range, { description: `${range.description} [${tag}: min/max (values ${why}), ${build.rows} <= ${lim.rangeRowLimit} rows]`, label: 'bounds' });
  },
};
