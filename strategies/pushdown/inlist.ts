/**
 * `inlist`: the exact set of a build partition's distinct keys, pushed as `k IN (...)` — only
 * while the set is small: at most `pushdown.inlistMaxDistinct` distinct values (DataFusion: 150)
 * and at most `pushdown.inlistMaxBytes` bytes of packed keys (128 kB). Past either limit the
 * partition falls back to the `map` filter (DataFusion's behaviour); bounds are ANDed in both ways.
 *
 * Representation: a multi-column key is ONE packed value per distinct key — the fixed-width
 * columns' words concatenated, then each bytes column as (4-byte length, bytes). Its size in
 * bytes (4 * words + sum(4 + length)) is what `inlistMaxBytes` limits. The set is an
 * open-addressing table (linear probing, power-of-two capacity >= 2x entries) over those entries,
 * addressed by `hashKeys` with the partition's seed: the composer hands the filter the probe
 * hashes with that seed (`needsHashes`), so a probe row costs one slot walk and a word/byte compare
 * against a packed entry — no JS Set, no strings. Building stops as soon as a limit is exceeded,
 * so a huge build costs at most (limit + 1) entries before it falls back.
 *
 * Containers: the set may contain a match only if some listed value lies within the container's
 * [min, max] in EVERY key column. Entries are kept sorted by the first column's value, so that is
 * a binary search plus a walk over the entries inside the first column's range.
 */
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../core/pushdown/policy.ts';
import { registerKeyFilterKind } from '../../core/pushdown/shared-filters.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import { andFilters, FALSE_FILTER } from './and.ts';
import { boundsFilter, usableRows, type UsableRows } from './bounds.ts';
import { mapFilter } from './map.ts';
import { compareKeyValues, formatKeyValue, keyValueAt, rangeContains, statsToKeyRange, type KeyRange, type KeyValue } from '../../core/scan/key-stats.ts';

export interface InListLimits {
  readonly maxDistinct: number;
  readonly maxBytes: number;
}

export function inlistLimits(ctx: PushdownContext): InListLimits {
  return { maxDistinct: ctx.config['pushdown.inlistMaxDistinct'], maxBytes: ctx.config['pushdown.inlistMaxBytes'] };
}

/** The IN list of a partition, or why there is none (too many values / bytes, no usable row). */
export type InListOutcome = { readonly list: InList; readonly reason: null } | { readonly list: null; readonly reason: string };

export class InList implements KeyFilter {
  readonly needsHashes = true;
  readonly description: string;
  readonly label: string;
  /** Distinct packed keys. */
  readonly size: number;
  /** Packed key bytes (what `inlistMaxBytes` limits). */
  readonly bytes: number;
  readonly #ctx: PushdownContext;
  readonly #kinds: readonly KeyKind[];
  /** Column index of each fixed column, its width, its word offset within an entry. */
  readonly #fixedCols: Int32Array;
  readonly #fixedWidth: Int32Array;
  readonly #fixedOffset: Int32Array;
  readonly #entryWords: number;
  readonly #bytesCols: Int32Array;
  readonly #fixed: Int32Array;
  readonly #varOffsets: Int32Array;
  readonly #varBytes: Uint8Array;
  readonly #hashes: Uint32Array;
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** Entry values per column, entries sorted by column 0 (for containers). */
  readonly #sorted: readonly (readonly KeyValue[])[];
  /** Everything above as one record: what `share` hands a worker. */
  readonly #packed: PackedInList;

  private constructor(packed: PackedInList, ctx: PushdownContext) {
    this.#packed = packed;
    this.#ctx = ctx;
    this.#kinds = packed.kinds;
    this.size = packed.size;
    this.bytes = packed.bytes;
    this.#slots = packed.slots;
    this.#mask = packed.slots.length - 1;
    this.#hashes = packed.hashes;
    this.#fixedCols = packed.fixedCols;
    this.#fixedWidth = packed.fixedWidth;
    this.#fixedOffset = packed.fixedOffset;
    this.#entryWords = packed.entryWords;
    this.#bytesCols = packed.bytesCols;
    this.#fixed = packed.fixed;
    this.#varOffsets = packed.varOffsets;
    this.#varBytes = packed.varBytes;
    this.#sorted = packed.sorted;
    this.description = describe(ctx, this.#kinds, packed.sorted, packed.size);
    this.label = `in(${packed.size})`;
  }

  /** The list as plain data (a few thousand entries at most: copied to each worker). */
  share(): SharedKeyFilter {
    return { kind: 'inlist', state: this.#packed };
  }

  /** The list a worker rebuilds from `share()`'s state. */
  static restore(state: unknown, ctx: PushdownContext): InList {
    return new InList(state as PackedInList, ctx);
  }

  /** The listed values when the key is one column (what Parquet Bloom-filter pruning tests). */
  exactValues(): readonly KeyValue[] | null {
    if (this.#kinds.length !== 1) return null;
    return this.#sorted.map((v) => v[0]!);
  }

  /**
   * Builds the set for `build` (limits from `ctx.config` unless given), or explains why not: a
   * limit exceeded, or no NULL-free build row.
   */
  static build(build: BuildPartition, ctx: PushdownContext, usable: UsableRows = usableRows(build), limits: InListLimits = inlistLimits(ctx)): InListOutcome {
    const cols = build.keys;
    const rows = build.rows;
    if (usable.count === 0 || cols.length === 0) return { list: null, reason: 'no non-NULL build key' };
    const skip = usable.skip;
    const hashes = build.hashes ?? hashKeys(cols, build.seed);
    const maxEntries = Math.min(usable.count, limits.maxDistinct + 1);
    let cap = 16;
    while (cap < 2 * maxEntries) cap *= 2;
    const mask = cap - 1;
    const slots = new Int32Array(cap).fill(-1);
    const entryRows = new Int32Array(maxEntries);
    const entryHashes = new Uint32Array(maxEntries);
    let fixedBytes = 0;
    for (const c of cols) fixedBytes += 4 * c.kind.width;
    let size = 0;
    let bytes = 0;
    for (let r = 0; r < rows; r++) {
      if (skip !== null && skip[r] !== 0) continue;
      const h = hashes[r]!;
      let s = h & mask;
      for (;;) {
        const e = slots[s]!;
        if (e < 0) {
          if (size >= limits.maxDistinct) return { list: null, reason: `more than ${limits.maxDistinct} distinct values` };
          bytes += fixedBytes + varBytesOfRow(cols, r);
          if (bytes > limits.maxBytes) return { list: null, reason: `more than ${limits.maxBytes} bytes of keys` };
          entryRows[size] = r;
          entryHashes[size] = h;
          slots[s] = size++;
          break;
        }
        if (entryHashes[e] === h && sameRows(cols, entryRows[e]!, r)) break;
        s = (s + 1) & mask;
      }
    }
    return { list: new InList(packInList(build.keys, entryRows, entryHashes, size, bytes, slots), ctx), reason: null };
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    const kinds = this.#kinds;
    const ranges: KeyRange[] = [];
    for (let c = 0; c < kinds.length; c++) {
      const type = this.#ctx.probeTypes[c];
      ranges.push(type === undefined ? { lo: null, hi: null } : statsToKeyRange(stats[c], type, kinds[c]!));
    }
    const sorted = this.#sorted;
    const r0 = ranges[0]!;
    // first entry with column 0 >= lo
    let lo = 0;
    let hi = sorted.length;
    if (r0.lo !== null) {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (compareKeyValues(sorted[mid]![0]!, r0.lo) < 0) lo = mid + 1;
        else hi = mid;
      }
    }
    for (let e = lo; e < sorted.length; e++) {
      const v = sorted[e]!;
      if (r0.hi !== null && compareKeyValues(v[0]!, r0.hi) > 0) return false;
      let all = true;
      for (let c = 1; c < kinds.length && all; c++) all = rangeContains(ranges[c]!, v[c]!);
      if (all) return true;
    }
    return false;
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (hashes === null) throw new RangeError('the IN-list filter needs the probe hashes (computed with the partition seed)');
    const n = keys[0]!.length;
    if (keys.length === 1 && !isBytesKey(keys[0]!) && keys[0]!.kind.width === 2) {
      return this.#test2((keys[0] as FixedKeyColumn).words, hashes, n, rows, keep);
    }
    const count = rows === null ? n : rows.length;
    const slots = this.#slots;
    const mask = this.#mask;
    const eh = this.#hashes;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      if (keep[r] === 0) continue;
      const h = hashes[r]!;
      let s = h & mask;
      for (;;) {
        const e = slots[s]!;
        if (e < 0) {
          keep[r] = 0;
          break;
        }
        if (eh[e] === h && this.#equalsEntry(keys, r, e)) break;
        s = (s + 1) & mask;
      }
    }
  }

  /** One fixed column of two words (BIGINT, DOUBLE, dates, timestamps, ...): raw word compare. */
  #test2(words: Int32Array, hashes: Uint32Array, n: number, rows: Int32Array | null, keep: Uint8Array): void {
    const slots = this.#slots;
    const mask = this.#mask;
    const eh = this.#hashes;
    const fixed = this.#fixed;
    const count = rows === null ? n : rows.length;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      if (keep[r] === 0) continue;
      const h = hashes[r]!;
      const lo = words[2 * r]!;
      const hi = words[2 * r + 1]!;
      let s = h & mask;
      for (;;) {
        const e = slots[s]!;
        if (e < 0) {
          keep[r] = 0;
          break;
        }
        if (eh[e] === h && fixed[2 * e] === lo && fixed[2 * e + 1] === hi) break;
        s = (s + 1) & mask;
      }
    }
  }

  #equalsEntry(keys: readonly KeyColumn[], r: number, e: number): boolean {
    const fixed = this.#fixed;
    const base = e * this.#entryWords;
    const fc = this.#fixedCols;
    for (let j = 0; j < fc.length; j++) {
      const words = (keys[fc[j]!] as FixedKeyColumn).words;
      const w = this.#fixedWidth[j]!;
      const o = base + this.#fixedOffset[j]!;
      for (let k = 0; k < w; k++) if (words[r * w + k] !== fixed[o + k]) return false;
    }
    const bc = this.#bytesCols;
    const B = bc.length;
    const vo = this.#varOffsets;
    const vb = this.#varBytes;
    for (let j = 0; j < B; j++) {
      const col = keys[bc[j]!] as BytesKeyColumn;
      const ent = col.codes === null ? r : col.codes[r]!;
      const s = col.offsets[ent]!;
      const len = col.offsets[ent + 1]! - s;
      const vs = vo[e * B + j]!;
      if (vo[e * B + j + 1]! - vs !== len) return false;
      const b = col.bytes;
      for (let k = 0; k < len; k++) if (b[s + k] !== vb[vs + k]) return false;
    }
    return true;
  }
}

/** An IN list's entries packed for its tests: per entry the fixed words, then the bytes columns' bytes. */
interface PackedInList {
  readonly kinds: readonly KeyKind[];
  readonly size: number;
  readonly bytes: number;
  readonly slots: Int32Array;
  readonly hashes: Uint32Array;
  readonly fixedCols: Int32Array;
  readonly fixedWidth: Int32Array;
  readonly fixedOffset: Int32Array;
  readonly entryWords: number;
  readonly bytesCols: Int32Array;
  readonly fixed: Int32Array;
  readonly varOffsets: Int32Array;
  readonly varBytes: Uint8Array;
  readonly sorted: readonly (readonly KeyValue[])[];
}

/** Packs the distinct entries (build rows `entryRows`) found by `InList.build`. */
function packInList(cols: readonly KeyColumn[], entryRows: Int32Array, entryHashes: Uint32Array, size: number, bytes: number, slots: Int32Array): PackedInList {
  const fixed: number[] = [];
  const bytesColList: number[] = [];
  cols.forEach((c, i) => (isBytesKey(c) ? bytesColList : fixed).push(i));
  const fixedCols = Int32Array.from(fixed);
  const fixedWidth = Int32Array.from(fixed, (i) => cols[i]!.kind.width);
  const fixedOffset = new Int32Array(fixed.length);
  let words = 0;
  for (let j = 0; j < fixed.length; j++) {
    fixedOffset[j] = words;
    words += fixedWidth[j]!;
  }
  const bytesCols = Int32Array.from(bytesColList);
  const B = bytesCols.length;
  const packedFixed = new Int32Array(size * words);
  const varOffsets = new Int32Array(size * B + 1);
  let varTotal = 0;
  for (let e = 0; e < size; e++) {
    const r = entryRows[e]!;
    for (let j = 0; j < fixed.length; j++) {
      const col = cols[fixed[j]!] as FixedKeyColumn;
      const w = fixedWidth[j]!;
      for (let k = 0; k < w; k++) packedFixed[e * words + fixedOffset[j]! + k] = col.words[r * w + k]!;
    }
    for (let j = 0; j < B; j++) {
      const col = cols[bytesCols[j]!] as BytesKeyColumn;
      const ent = col.codes === null ? r : col.codes[r]!;
      varTotal += col.offsets[ent + 1]! - col.offsets[ent]!;
      varOffsets[e * B + j + 1] = varTotal;
    }
  }
  const varBytes = new Uint8Array(varTotal);
  for (let e = 0; e < size; e++) {
    const r = entryRows[e]!;
    for (let j = 0; j < B; j++) {
      const col = cols[bytesCols[j]!] as BytesKeyColumn;
      const ent = col.codes === null ? r : col.codes[r]!;
      varBytes.set(col.bytes.subarray(col.offsets[ent]!, col.offsets[ent + 1]!), varOffsets[e * B + j]!);
    }
  }
  // container view: values per entry, sorted by column 0
  const sorted: KeyValue[][] = [];
  for (let e = 0; e < size; e++) sorted.push(cols.map((c) => keyValueAt(c, entryRows[e]!)));
  sorted.sort((a, b) => compareKeyValues(a[0]!, b[0]!));
  return {
    kinds: cols.map((c) => c.kind),
    size,
    bytes,
    slots,
    hashes: entryHashes.slice(0, size),
    fixedCols,
    fixedWidth,
    fixedOffset,
    entryWords: words,
    bytesCols,
    fixed: packedFixed,
    varOffsets,
    varBytes,
    sorted,
  };
}

/** Variable part of one row's packed key: (4-byte length + bytes) per bytes column. */
function varBytesOfRow(cols: readonly KeyColumn[], r: number): number {
  let n = 0;
  for (const c of cols) {
    if (!isBytesKey(c)) continue;
    const e = c.codes === null ? r : c.codes[r]!;
    n += 4 + c.offsets[e + 1]! - c.offsets[e]!;
  }
  return n;
}

/** Rows a and b of the same (build) key columns are equal (no NULL in either). */
function sameRows(cols: readonly KeyColumn[], a: number, b: number): boolean {
  for (const c of cols) {
    if (isBytesKey(c)) {
      const ea = c.codes === null ? a : c.codes[a]!;
      const eb = c.codes === null ? b : c.codes[b]!;
      if (ea === eb) continue;
      const pa = c.offsets[ea]!;
      const pb = c.offsets[eb]!;
      const len = c.offsets[ea + 1]! - pa;
      if (c.offsets[eb + 1]! - pb !== len) return false;
      for (let k = 0; k < len; k++) if (c.bytes[pa + k] !== c.bytes[pb + k]) return false;
    } else {
      const w = c.kind.width;
      for (let k = 0; k < w; k++) if (c.words[a * w + k] !== c.words[b * w + k]) return false;
    }
  }
  return true;
}

const SHOWN = 5;

function describe(ctx: PushdownContext, kinds: readonly KeyKind[], sorted: readonly (readonly KeyValue[])[], size: number): string {
  const names = kinds.map((_, i) => ctx.probeColumns[i] ?? `key${i}`);
  const lhs = names.length === 1 ? names[0]! : `(${names.join(', ')})`;
  if (size > SHOWN) return `${lhs} IN (${size} values)`;
  const fmt = (v: readonly KeyValue[]) =>
    v.length === 1 ? formatKeyValue(kinds[0]!, v[0]!) : `(${v.map((x, c) => formatKeyValue(kinds[c]!, x)).join(', ')})`;
  return `${lhs} IN (${sorted.map(fmt).join(', ')})`;
}

registerKeyFilterKind('inlist', (state, env) => InList.restore(state, env.ctx));

/**
 * Membership for one partition: the IN list when within the limits, else the map filter (with a
 * note saying why). No bounds.
 */
export function membershipFilter(build: BuildPartition, ctx: PushdownContext, usable: UsableRows = usableRows(build)): KeyFilter {
  if (usable.count === 0) return FALSE_FILTER;
  const out = InList.build(build, ctx, usable);
  if (out.list !== null) return out.list;
  return mapFilter(build, ctx, usable, ` [IN list fallback: ${out.reason}]`);
}

export const inlistPushdown: PushdownPolicy = {
  name: 'inlist',
  description:
    'exact IN list of the build keys (<= pushdown.inlistMaxDistinct distinct values and <= pushdown.inlistMaxBytes bytes), else falls back to the map filter as DataFusion does; bounds ANDed in',
  planPartition(build, ctx) {
    const usable = usableRows(build);
    if (usable.count === 0) return FALSE_FILTER;
    return andFilters([boundsFilter(build, ctx, usable), membershipFilter(build, ctx, usable)]);
  },
};
