/**
 * `auto`: the layout choice, made once per build — DataFusion's ArrayMap rule first, then the
 * fastest hash table that indexes the keys.
 *
 * The array layout wins whenever it applies and is not mostly empty: it never hashes, never
 * compares keys, and a miss costs one subtraction. It loses when the key range is wide and sparse
 * — the slot array would dwarf the rows (1M keys spread over 2^26 values = 256 MB of slots for
 * 4 MB of rows) and every probe would touch a cold cache line of it. DataFusion's rule, kept here:
 *
 *   array  iff  supported  AND  (span <= 1024  OR  rows / span > 0.15)
 *
 * with span = max - min + 1 and rows the non-NULL build rows (the rows the table holds). A small
 * span costs at most 4 kB whatever the density; above it, 0.15 bounds the slot array to
 * ~27 bytes per row.
 *
 * Then `rank`, for the same keys over a range too sparse for `array` (up to 2^30 values): a bitmap
 * over the range plus per-word rank counts, so neither side is hashed and a probe row costs one
 * directory read. Its directory is range/4 bytes; it is used while that is at most
 * AUTO_RANK_BYTES_PER_ROW = 6 bytes per row (range <= ~24 x rows). The worst case for it is a probe
 * spread over the whole range (every row reads a random directory word); 1M keys, 10M probes
 * uniform over the build's range (bench/hashmap-micro.ts --sparse-step S --probe-domain S*1M), ms:
 *   range 10 x rows (2.5 B/row): rank 80, swiss 119 + ~30 of hashing
 *   range 20 x rows (5 B/row):   rank 98, swiss 135 + ~30
 *   range 32 x rows (8 B/row):   rank 130-220, swiss 116-119 + ~30
 *   range 64 x rows (16 B/row):  rank 200-300, swiss 105-111 + ~30
 * so rank wins below ~6 B/row; past that its directory misses cache on most rows, and its time
 * swings with whatever else shares the cache (the wide ranges above are run-to-run).
 *
 * Otherwise `swiss`, which indexes any key (up to 2^26 build rows): open addressing over groups of
 * four 1-byte salts tested with SWAR, so most misses are resolved by one branch-free read of a
 * cache-resident word (1M int64 keys, 10M probes at ~5% hits: ~1.9x faster probes than `linear`
 * and ~4.8x faster than `chained`, bench/hashmap-micro.ts), keys inline when they are one
 * fixed-width column, by hash + comparator otherwise. Past 2^26 rows, `chained`.
 *
 * The table built is the chosen layout's own (its `layout` says `array`, `rank`, `swiss` or `chained`,
 * which is what metrics should show); `explainLayout` gives the decision with its reason.
 */
import type { BuildInput, HashMapLayout, JoinHashTable } from '../../core/hashmap.ts';
import { analyzeArrayKeys, arrayLayout, arrayTableBytes, buildArrayTable } from './array.ts';
import { buildChainedTable, chainedLayout } from './chained.ts';
import { buildRankTable, rankDirectoryBytes, rankLayout, rankTableBytes, rankUnsupportedReason } from './rank.ts';
import { buildSwissTable, swissLayout, swissUnsupportedReason } from './swiss.ts';

/** Spans up to this many values always use the array layout (DataFusion's small-build threshold). */
export const AUTO_SMALL_SPAN = 1024;
/** Above the small span, the array layout needs more than this many rows per slot. */
export const AUTO_MIN_DENSITY = 0.15;

/** Where `array` is not used, `rank` is while its directory is at most this many bytes per row. */
export const AUTO_RANK_BYTES_PER_ROW = 6;

export type AutoLayoutName = 'array' | 'rank' | 'swiss' | 'chained';

export interface LayoutChoice {
  readonly layout: AutoLayoutName;
  readonly reason: string;
}

/** The layout `auto` builds for `input`, with a one-line reason (for metrics and EXPLAIN). */
export function explainLayout(input: BuildInput): LayoutChoice {
  const a = analyzeArrayKeys(input);
  let notArray: string;
  if (a.reason !== null) notArray = a.reason;
  else {
    if (a.span <= AUTO_SMALL_SPAN) return { layout: 'array', reason: `key range ${a.span} <= ${AUTO_SMALL_SPAN}` };
    const density = a.count / a.span;
    const d = density.toPrecision(3);
    if (density > AUTO_MIN_DENSITY) return { layout: 'array', reason: `dense keys: ${a.count} rows over a range of ${a.span} (${d} > ${AUTO_MIN_DENSITY})` };
    notArray = `sparse keys: ${a.count} rows over a range of ${a.span} (${d} <= ${AUTO_MIN_DENSITY})`;
  }
  // rank indexes the keys array does (keyReason null) over wider spans
  if (a.keyReason === null) {
    const notRank = rankUnsupportedReason(input);
    const perRow = rankDirectoryBytes(a.span) / a.count;
    if (notRank !== null) notArray += `; ${notRank}`;
    else if (perRow <= AUTO_RANK_BYTES_PER_ROW) return { layout: 'rank', reason: `${notArray}; rank directory ${perRow.toPrecision(3)} bytes per row (<= ${AUTO_RANK_BYTES_PER_ROW})` };
    else notArray += `; rank directory ${perRow.toPrecision(3)} bytes per row (> ${AUTO_RANK_BYTES_PER_ROW})`;
  }
  const notSwiss = swissUnsupportedReason(input);
  if (notSwiss === null) return { layout: 'swiss', reason: `${notArray}; swiss table` };
  return { layout: 'chained', reason: `${notArray}; ${notSwiss}` };
}

export function chooseLayout(input: BuildInput): AutoLayoutName {
  return explainLayout(input).layout;
}

export const autoLayout: HashMapLayout = {
  name: 'auto',
  description: `array when one integer key spans <= ${AUTO_SMALL_SPAN} values or is dense (rows/range > ${AUTO_MIN_DENSITY}), else rank while range <= ~24 x rows, else swiss (chained past 2^26 build rows)`,
  unsupportedReason: (input) => (input.keys.length === 0 ? 'no key columns' : null),
  /** The range-addressed choices are bounded by their rule (<= ~27 and 6 bytes per row of slots or directory); hash tables by rows. */
  estimateBytes(input): number {
    const layout = chooseLayout(input);
    if (layout === 'array') return arrayTableBytes(analyzeArrayKeys(input), input.rows);
    return layout === 'rank' ? rankTableBytes(analyzeArrayKeys(input), input.rows) : 0;
  },
  build(input): JoinHashTable {
    const layout = chooseLayout(input);
    if (layout === 'array') return buildArrayTable(input, analyzeArrayKeys(input));
    if (layout === 'rank') return buildRankTable(input, analyzeArrayKeys(input));
    return layout === 'swiss' ? buildSwissTable(input) : buildChainedTable(input);
  },
  /** `build` as steps: its choice's steps. */
  *buildSteps(input): Generator<void, JoinHashTable> {
    const layout = chooseLayout(input);
    if (layout === 'array') return yield* arrayLayout.buildSteps!(input);
    if (layout === 'rank') return yield* rankLayout.buildSteps!(input);
    return yield* (layout === 'swiss' ? swissLayout : chainedLayout).buildSteps!(input);
  },
  /** A table auto built is one of its choices' tables: `shared.layout` names which restores it. */
  restore(shared, input): JoinHashTable {
    const by: Record<string, HashMapLayout> = { array: arrayLayout, rank: rankLayout, swiss: swissLayout, chained: chainedLayout };
    const layout = by[shared.layout];
    if (layout?.restore === undefined) throw new RangeError(`hashmap 'auto' cannot restore a '${shared.layout}' table`);
    return layout.restore(shared, input);
  },
};
