/**
 * `map`: membership against the build partition's own hash table — the filter for builds too big
 * for an IN list. The table is already built and warm, so the filter costs what the join's probe
 * would have cost anyway (one hash + one lookup per row), hoisted into the scan so a row that
 * cannot match is never decoded further.
 *
 * Invariants:
 *  - Probe hashes MUST be computed with the partition's `seed` (the composer does it, because
 *    `needsHashes` is true): a table built with another seed rejects every row. Tables that
 *    address by the key itself (`needsProbeHashes: false`: array, rank) get no hashes at all.
 *  - A table answers `contains` for the rows listed; the rows the filter sees have no NULL key.
 *  - With `pushdown.keyRangeBitmap` and one integer key column, a KeyRangeBitmap is checked first
 *    per row (cheap, no hashing needed for its rejects) and prunes containers through their
 *    min/max (`mayContainRange`). Without a bitmap a membership test cannot use min/max, so the
 *    filter never prunes a container by itself: the `map` policy ANDs bounds in for that.
 *  - Per row under `pushdown.rowFilter: auto` only the bitmap runs (`perRow`): the table lookup
 *    is exactly the one the join's probe is about to make, so repeating it in the scan costs a
 *    second lookup and saves nothing.
 */
import { NO_PROBE_HASHES, type SharedTable } from '../../core/hashmap.ts';
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../core/pushdown/policy.ts';
import { registerKeyFilterKind } from '../../core/pushdown/shared-filters.ts';
import { shareKeyColumn } from '../../core/parallel/wire.ts';
import { HASHMAP } from '../../core/registry/slots.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import { andFilters, FALSE_FILTER } from './and.ts';
import { liveRows } from '../../core/selection.ts';
import { boundsFilter, usableRows, type UsableRows } from './bounds.ts';
import { KeyRangeBitmap, type SharedKeyRangeBitmap } from './key-range-bitmap.ts';
import { statsToKeyRange } from '../../core/scan/key-stats.ts';

/** The bitmap for a single integer key column when enabled and useful, else null. */
export function keyRangeBitmapFor(build: BuildPartition, ctx: PushdownContext, usable: UsableRows): KeyRangeBitmap | null {
  if (!ctx.config['pushdown.keyRangeBitmap'] || build.keys.length !== 1) return null;
  const col = build.keys[0]!;
  if (isBytesKey(col)) return null;
  // the table's distinct count covers exactly the usable rows when the key is one column
  return KeyRangeBitmap.build(col, usable.skip, build.table.distinctKeys);
}

/**
 * The membership filter of one partition (no bounds). `note` is appended to the description
 * (e.g. why an IN list fell back to the map).
 */
export function mapFilter(build: BuildPartition, ctx: PushdownContext, usable: UsableRows = usableRows(build), note = ''): KeyFilter {
  if (usable.count === 0) return FALSE_FILTER;
  return new MapFilter(build, ctx, keyRangeBitmapFor(build, ctx, usable), note);
}

export class MapFilter implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes: boolean;
  readonly bitmap: KeyRangeBitmap | null;
  readonly #build: BuildPartition;
  readonly #ctx: PushdownContext;
  #out = new Uint8Array(0);
  /** Scratch for the rows the bitmap kept (tests are synchronous; reused across batches). */
  #live = new Int32Array(0);

  constructor(build: BuildPartition, ctx: PushdownContext, bitmap: KeyRangeBitmap | null, note = '') {
    this.#build = build;
    this.#ctx = ctx;
    this.bitmap = bitmap;
    this.needsHashes = build.table.needsProbeHashes !== false;
    const cols = ctx.probeColumns.length === 1 ? ctx.probeColumns[0]! : `(${ctx.probeColumns.join(', ')})`;
    const map = `${cols} IN MAP(${build.table.inserted} rows, ${build.table.layout})`;
    this.description = `${map}${bitmap !== null ? ` + ${bitmap.description}` : ''}${note}`;
    this.label = `map(${build.table.inserted}, ${build.table.layout})${bitmap !== null ? ' + bitmap' : ''}`;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    const bm = this.bitmap;
    if (bm === null) return true;
    const type = this.#ctx.probeTypes[0];
    if (type === undefined) return true;
    const range = statsToKeyRange(stats[0], type, this.#build.keys[0]!.kind);
    return bm.mayContainRange(range.lo as bigint | null, range.hi as bigint | null);
  }

  /** Per row, only the bitmap pays: the table lookup is the one the join's probe makes anyway. */
  perRow(): KeyFilter | null {
    return this.bitmap === null ? null : new BitmapRowFilter(this.bitmap);
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (hashes === null && this.needsHashes) throw new RangeError('the map filter needs the probe hashes (computed with the partition seed)');
    const n = keys[0]!.length;
    // Rows the bitmap rejects skip the table; without a bitmap the listed rows go straight in
    // (an AND lists only rows still kept, so compacting them again would be a wasted pass).
    let live = rows;
    if (this.bitmap !== null) {
      this.bitmap.test(keys[0] as FixedKeyColumn, rows, keep);
      if (this.#live.length < n) this.#live = new Int32Array(n);
      live = liveRows(rows, keep, n, this.#live);
      if (live.length === 0) return;
    }
    if (this.#out.length < n) this.#out = new Uint8Array(n);
    const out = this.#out;
    const table = this.#build.table;
    const input = { keys, hashes: hashes ?? NO_PROBE_HASHES, rows: n };
    // "maybe" is all a filter may say, so the table's cheaper answer (salts only) is enough
    if (table.mayContain !== undefined) table.mayContain(input, out, live);
    else table.contains(input, out, live);
    if (live === null) for (let r = 0; r < n; r++) keep[r] &= out[r]!;
    else {
      for (let i = 0; i < live.length; i++) {
        const r = live[i]!;
        keep[r] &= out[r]!;
      }
    }
  }

  /**
   * The partition's table and keys in shared memory (a table built for worker threads already is,
   * and is not copied; its keys are copied once), the bitmap too; null when the table's layout
   * cannot share. Only `pushdown.rowFilter: always` runs a map filter per row — under `auto`
   * only its bitmap (`perRow`) is shared.
   */
  share(): SharedKeyFilter | null {
    const table = this.#build.table;
    if (table.share === undefined) return null;
    const state: SharedMapFilter = {
      table: table.share(),
      keys: this.#build.keys.map(shareKeyColumn),
      rows: this.#build.rows,
      seed: this.#build.seed,
      bitmap: this.bitmap?.share() ?? null,
    };
    return { kind: 'map', state };
  }
}

interface SharedMapFilter {
  readonly table: SharedTable;
  readonly keys: readonly KeyColumn[];
  readonly rows: number;
  readonly seed: number;
  readonly bitmap: SharedKeyRangeBitmap | null;
}

registerKeyFilterKind('map', (raw, env) => {
  const s = raw as SharedMapFilter;
  const layout = env.registry.resolve(HASHMAP, s.table.layout);
  if (layout.restore === undefined) throw new RangeError(`hashmap '${s.table.layout}' shared a table it cannot restore`);
  // the rows a filter tests have no NULL key, so the NULL rule of the restored table is moot
  const table = layout.restore(s.table, { keys: s.keys, rows: s.rows, nullEqualsNull: false });
  const build: BuildPartition = { index: 0, rows: s.rows, keys: s.keys, table, seed: s.seed };
  return new MapFilter(build, env.ctx, s.bitmap === null ? null : KeyRangeBitmap.restore(s.bitmap));
});

/** A KeyRangeBitmap alone as a row filter (containers answer "maybe": pair it with bounds). */
export function bitmapRowFilter(bitmap: KeyRangeBitmap): KeyFilter {
  return new BitmapRowFilter(bitmap);
}

/** A map filter's KeyRangeBitmap alone: its per-row part (containers stay with the map filter). */
class BitmapRowFilter implements KeyFilter {
  readonly description: string;
  readonly label = 'bitmap';
  readonly needsHashes = false;
  constructor(readonly bitmap: KeyRangeBitmap) {
    this.description = bitmap.description;
  }
  mayContain(): boolean {
    return true;
  }
  test(keys: readonly KeyColumn[], _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.bitmap.test(keys[0] as FixedKeyColumn, rows, keep);
  }
  testInt32(values: Int32Array, _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.bitmap.testInt32(values, rows, keep);
  }
  share(): SharedKeyFilter {
    return { kind: 'bitmap', state: this.bitmap.share() };
  }
}

registerKeyFilterKind('bitmap', (state) => new BitmapRowFilter(KeyRangeBitmap.restore(state as SharedKeyRangeBitmap)));

export const mapPushdown: PushdownPolicy = {
  name: 'map',
  description:
    "membership test against the build's own hash table (same seed), with a KeyRangeBitmap for one integer key when pushdown.keyRangeBitmap; bounds ANDed in",
  planPartition(build, ctx) {
    const usable = usableRows(build);
    if (usable.count === 0) return FALSE_FILTER;
    return andFilters([boundsFilter(build, ctx, usable), mapFilter(build, ctx, usable)]);
  },
};
