/**
 * `velox`: Velox's hash-join dynamic filters, per build partition. Read at facebookincubator/velox
 * main, commit 4d16851e (2026-08-22):
 *  - `velox/exec/HashProbe.cpp` `pushdownDynamicFilters`: one filter PER KEY COLUMN (each join key
 *    channel the probe scan accepts), from that column's hasher — so a multi-column key gets the
 *    conjunction of per-column filters, not a tuple filter; VARCHAR / VARBINARY keys only when
 *    `hash_probe_string_dynamic_filter_pushdown_enabled` (default false; joinlab
 *    `pushdown.velox.stringFilters`); nothing at all when the table is in kHash mode (below);
 *  - `velox/exec/VectorHasher.cpp` `getFilter(nullAllowed = false)`: TINYINT..BIGINT (DATE is an
 *    INTEGER) -> `createBigintValues` over the distinct values; HUGEINT (long decimals) ->
 *    `createHugeintValues`; VARCHAR/VARBINARY -> `BytesValues`; any other type (REAL, DOUBLE,
 *    BOOLEAN, TIMESTAMP, ...) -> none. No filter once the hasher's distinct set overflowed:
 *    more than `kMaxDistinct` = 100,000 values (`VectorHasher.h`; `pushdown.velox.maxDistinct`), or
 *    for strings more than `kMaxDistinctStringsBytes` = 1 MiB of copied string storage (strings
 *    over 8 bytes are copied into 1 KiB buffers; `pushdown.velox.maxDistinctStringBytes`);
 *  - `velox/type/Filter.cpp` `createBigintValuesFilter`: no value -> AlwaysFalse; one value or a
 *    contiguous block (max - min + 1 == count) -> `BigintRange(min, max)`; else if max - min does
 *    not overflow and (max - min < 32 * 64 or max - min < count * 4 * 64) ->
 *    `BigintValuesUsingBitmask` (one bit per value in [min, max]; `pushdown.velox.bitmaskSmallRange`
 *    = 2048, `pushdown.velox.bitmaskBitsPerValue` = 256); else `BigintValuesUsingHashTable`.
 *    `createHugeintValues`: `HugeintValuesUsingHashTable` for any non-empty set.
 *  - container tests (`testInt64Range` etc.): BigintRange overlaps [min, max]; the bitmask tests
 *    the bit of a one-value container, else overlaps [min, max]; the value hash table finds the
 *    first value >= the container's min (`lower_bound`) — exact; BytesValues tests a one-value
 *    container, else overlaps [lower, upper].
 *
 * joinlab mapping: key kinds `int` of 1-2 words except timestamps take the BIGINT path; `int` of 3
 * words (HUGEINT) and decimals the HUGEINT path (Velox's short decimals, precision <= 18, are
 * BIGINTs and would take the BIGINT path — the membership is the same, only the representation
 * differs); `uint` kinds get nothing (Velox has no unsigned types), nor do floats, booleans and
 * timestamps. The value hash tables and BytesValues are joinlab IN lists (`InList.build` with the
 * Velox limits): exact membership, and their container test (some value inside the container's
 * range) is exact — for strings slightly stronger than Velox's overlap test, never wrong.
 * A column of a multi-column key is tested on that column alone (its own hashes, computed per
 * batch with the partition's seed). The string storage cap is simulated over the distinct values
 * in sorted order (Velox: arrival order), within a buffer of the same total.
 * The table's hash mode (`HashTable::decideHashMode`; HashProbe publishes nothing for a kHash
 * table) is modelled for one-column keys of an inner join (reserve 0): distinct + 1 > 10,000 and
 * no usable range (integers spread over >= 2^59 - 1, any HUGEINT, strings with one longer than 7
 * bytes) -> nothing; for multi-column keys the products over columns are not modelled.
 * Not modelled: Velox's optional Bloom filter fallback (`hash_probe_bloom_filter_pushdown_max_size`,
 * default 0 = off).
 * A partition whose keys are all NULL publishes FALSE (and.ts), as every joinlab policy does.
 */
import { z } from 'zod';
import { positiveInt } from '../../../core/config/schema.ts';
import { defineSettings, settingReader } from '../../../core/config/settings.ts';
import { hashKeys } from '../../../core/keys/hash.ts';
import type { FixedKeyColumn, KeyColumn, KeyKind } from '../../../core/keys/types.ts';
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../../core/pushdown/policy.ts';
import { registerKeyFilterKind, restoreKeyFilter, shareFilter } from '../../../core/pushdown/shared-filters.ts';
import { shareView } from '../../../core/parallel/wire.ts';
import { formatKeyValue, rangeMayOverlap, statsToKeyRange, type KeyValue } from '../../../core/scan/key-stats.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import { andFilters, FALSE_FILTER } from '../and.ts';
import { BoundsFilter, partitionBounds, usableRows, type ColumnBounds, type UsableRows } from '../bounds.ts';
import { InList } from '../inlist.ts';

/** Velox's hash-join dynamic filter settings, declared by the engines' extension (extension.ts). */
export const VELOX_SETTINGS = defineSettings({
  'pushdown.velox.maxDistinct': { schema: positiveInt, default: 100000, description: '`kMaxDistinct`: no filter past this many distinct values' },
  'pushdown.velox.bitmaskSmallRange': { schema: positiveInt, default: 2048, description: 'a bitmask for ranges narrower than this…' },
  'pushdown.velox.bitmaskBitsPerValue': { schema: positiveInt, default: 256, description: '…or under this many bits per value (else a hash table of values)' },
  'pushdown.velox.stringFilters': { schema: z.boolean(), default: false, description: '`hash_probe_string_dynamic_filter_pushdown_enabled`' },
  'pushdown.velox.maxDistinctStringBytes': { schema: positiveInt, default: 1048576, description: 'no string filter when the distinct strings need more bytes' },
});
const setting = settingReader(VELOX_SETTINGS);

const TWO_32 = 4294967296;
const INT64_MAX = (1n << 63n) - 1n;
/** VectorHasher.h: `kMaxRange = ~0UL >> 5`, `kStringASRangeMaxSize = 7`; HashTable.cpp: a one-key table past 10,000 distinct values without a range goes kHash. */
const K_MAX_RANGE = (1n << 59n) - 1n;
const STRING_AS_RANGE_MAX = 7;
const KHASH_MIN_DISTINCTS = 10_000;

/** Which of Velox's `getFilter` paths a key kind takes. */
export type VeloxPath = 'bigint' | 'hugeint' | 'bytes' | 'none';

export function veloxPath(kind: KeyKind): VeloxPath {
  if (kind.order === 'int') {
    if (kind.width <= 2) return kind.sqlType.startsWith('TIMESTAMP') ? 'none' : 'bigint';
    return 'hugeint';
  }
  if (kind.order === 'decimal') return 'hugeint';
  if (kind.order === 'bytes') return 'bytes';
  return 'none'; // uint (no unsigned types in Velox), float, bool
}

/** The filter of one partition and why each column got what it got. */
export interface VeloxPlan {
  readonly filter: KeyFilter | null;
  readonly notes: readonly string[];
}

export function planVelox(build: BuildPartition, ctx: PushdownContext): VeloxPlan {
  const usable = usableRows(build);
  if (usable.count === 0) return { filter: FALSE_FILTER, notes: ['no non-NULL build key: false'] };
  const notes: string[] = [];
  const parts: KeyFilter[] = [];
  const total = build.keys.length;
  for (let c = 0; c < total; c++) {
    const f = columnFilter(build, ctx, c, usable, notes);
    if (f !== null) parts.push(new OnColumn(f, c, build.seed, total === 1));
  }
  return { filter: andFilters(parts), notes };
}

interface ColumnChoice {
  readonly inner: KeyFilter;
  /** Velox's filter class, e.g. `BigintValuesUsingBitmask`. */
  readonly kind: string;
  readonly label: string;
}

function columnFilter(build: BuildPartition, ctx: PushdownContext, c: number, usable: UsableRows, notes: string[]): ColumnChoice | null {
  const cfg = ctx.config;
  const col = build.keys[c]!;
  const name = ctx.probeColumns[c] ?? `key${c}`;
  const path = veloxPath(col.kind);
  if (path === 'none') {
    notes.push(`${name}: no filter for ${col.kind.sqlType} keys`);
    return null;
  }
  if (path === 'bytes' && !setting(cfg, 'pushdown.velox.stringFilters')) {
    notes.push(`${name}: string filters are off (hash_probe_string_dynamic_filter_pushdown_enabled)`);
    return null;
  }
  const maxDistinct = setting(cfg, 'pushdown.velox.maxDistinct');
  const sub: BuildPartition = { index: build.index, rows: build.rows, keys: [col], table: build.table, seed: build.seed };
  const subCtx: PushdownContext = { config: cfg, keyKinds: [col.kind], probeTypes: ctx.probeTypes[c] === undefined ? [] : [ctx.probeTypes[c]!], probeColumns: [name] };
  // One BIGINT key whose table knows its distinct count: decide from (count, min, max) and only
  // collect the values when a value table is chosen — collecting up to 100,000 values just to
  // count them cost more than the join it filters (measured: 2x on a 100K-key build).
  const bounds = build.keys.length === 1 && path === 'bigint' ? partitionBounds(sub, usable) : null;
  const distinct = bounds === null ? undefined : (build.table.distinctKeys ?? distinctInSpan(col as FixedKeyColumn, usable.skip, bounds[0]!));
  if (bounds !== null && distinct !== undefined) {
    const min = bounds[0]!.min as bigint;
    const max = bounds[0]!.max as bigint;
    if (distinct > maxDistinct) {
      notes.push(`${name}: no filter, more than ${maxDistinct} distinct values`);
      return null;
    }
    if (distinct + 1 > KHASH_MIN_DISTINCTS && max - min >= K_MAX_RANGE) {
      notes.push(`${name}: no filter, the table is in kHash mode (${distinct} distinct values, no usable range)`);
      return null;
    }
    const range = max - min;
    if (range <= INT64_MAX && range + 1n === BigInt(distinct)) {
      notes.push(`${name}: BigintRange(${min}, ${max})`);
      return { inner: new RangeFilter(new BoundsFilter(bounds, subCtx)), kind: 'BigintRange', label: 'range' };
    }
    if (range <= INT64_MAX && (range < BigInt(setting(cfg, 'pushdown.velox.bitmaskSmallRange')) || range < BigInt(distinct) * BigInt(setting(cfg, 'pushdown.velox.bitmaskBitsPerValue')))) {
      notes.push(`${name}: BigintValuesUsingBitmask(${min}..${max}, ${distinct} values)`);
      const bm = BitmaskFilter.build(col as FixedKeyColumn, usable.skip, min, Number(range) + 1, subCtx);
      return { inner: bm, kind: 'BigintValuesUsingBitmask', label: bm.label };
    }
  }
  const out = InList.build(sub, subCtx, usable, { maxDistinct, maxBytes: Number.MAX_SAFE_INTEGER });
  if (out.list === null) {
    notes.push(`${name}: no filter, more than ${maxDistinct} distinct values`);
    return null;
  }
  const list = out.list;
  const values = list.exactValues()!;
  if (build.keys.length === 1 && singleKeyHashMode(path, values)) {
    notes.push(`${name}: no filter, the table is in kHash mode (${values.length} distinct values, no usable range)`);
    return null;
  }
  if (path === 'bytes') {
    const storage = stringStorage(values as readonly Uint8Array[], setting(cfg, 'pushdown.velox.maxDistinctStringBytes'));
    if (storage === null) {
      notes.push(`${name}: no filter, distinct strings need more than ${setting(cfg, 'pushdown.velox.maxDistinctStringBytes')} bytes`);
      return null;
    }
    notes.push(`${name}: BytesValues(${values.length})`);
    return { inner: list, kind: 'BytesValues', label: `bytes(${values.length})` };
  }
  if (path === 'hugeint') {
    notes.push(`${name}: HugeintValuesUsingHashTable(${values.length})`);
    return { inner: list, kind: 'HugeintValuesUsingHashTable', label: `hash128(${values.length})` };
  }
  // BIGINT: createBigintValuesFilter
  const sorted = values as readonly bigint[];
  const min = sorted[0]!;
  const max = sorted[sorted.length - 1]!;
  const range = max - min;
  const n = sorted.length;
  if (range <= INT64_MAX) {
    if (range + 1n === BigInt(n)) {
      notes.push(`${name}: BigintRange(${min}, ${max})`);
      const bounds = partitionBounds(sub, usable)!;
      return { inner: new RangeFilter(new BoundsFilter(bounds, subCtx)), kind: 'BigintRange', label: 'range' };
    }
    if (range < BigInt(setting(cfg, 'pushdown.velox.bitmaskSmallRange')) || range < BigInt(n) * BigInt(setting(cfg, 'pushdown.velox.bitmaskBitsPerValue'))) {
      notes.push(`${name}: BigintValuesUsingBitmask(${min}..${max}, ${n} values)`);
      const bm = BitmaskFilter.build(col as FixedKeyColumn, usable.skip, min, Number(range) + 1, subCtx);
      return { inner: bm, kind: 'BigintValuesUsingBitmask', label: bm.label };
    }
  }
  notes.push(`${name}: BigintValuesUsingHashTable(${n})`);
  return { inner: list, kind: 'BigintValuesUsingHashTable', label: `hash(${n})` };
}

/** Largest [min, max] span whose distinct keys `distinctInSpan` counts with a bitmap (8 MiB). */
const COUNT_SPAN_MAX = 2 ** 26;

/**
 * Distinct values of a 2-word integer key column over its NULL-free rows, counted in a bitmap
 * over [min, max] when that span is at most COUNT_SPAN_MAX (else undefined: the caller collects
 * the values). For tables that do not count their distinct keys (`array`).
 */
function distinctInSpan(col: FixedKeyColumn, skip: Uint8Array | null, b: ColumnBounds): number | undefined {
  if (col.kind.width !== 2) return undefined;
  const span = (b.max as bigint) - (b.min as bigint);
  if (span >= BigInt(COUNT_SPAN_MAX)) return undefined;
  const minLo = b.minWords[0]! >>> 0;
  const minHi = b.minWords[1]!;
  const bits = new Uint32Array((Number(span) >>> 5) + 1);
  const w = col.words;
  let distinct = 0;
  for (let r = 0; r < col.length; r++) {
    if (skip !== null && skip[r] !== 0) continue;
    const off = (w[2 * r + 1]! - minHi) * 4294967296 + ((w[2 * r]! >>> 0) - minLo);
    const word = off >>> 5;
    const bit = 1 << (off & 31);
    if ((bits[word]! & bit) === 0) {
      bits[word]! |= bit;
      distinct++;
    }
  }
  return distinct;
}

/**
 * `HashTable::decideHashMode` for a one-column join build with duplicates allowed (reserve 0):
 * neither the range (`VectorHasher::cardinality`: max - min < kMaxRange = 2^59 - 1 for integers;
 * none for HUGEINT, nor for strings once one is longer than 7 bytes) nor the distinct count makes
 * an array or normalized key, and distinct + 1 > 10,000 -> kHash, and HashProbe publishes no
 * filter for a kHash table.
 */
export function singleKeyHashMode(path: VeloxPath, sorted: readonly KeyValue[]): boolean {
  if (sorted.length + 1 <= KHASH_MIN_DISTINCTS) return false;
  if (path === 'hugeint') return true;
  if (path === 'bytes') return (sorted as readonly Uint8Array[]).some((v) => v.length > STRING_AS_RANGE_MAX);
  const min = sorted[0] as bigint;
  const max = sorted[sorted.length - 1] as bigint;
  return max - min >= K_MAX_RANGE;
}

/**
 * Velox's string storage (`VectorHasher::copyStringToLocal`): strings longer than 8 bytes are
 * copied into buffers of max(1 KiB, length); the set overflows when the buffers' total exceeds
 * `limit` before a string is copied. Returns the total, or null on overflow.
 */
export function stringStorage(values: readonly Uint8Array[], limit: number): number | null {
  const UNIT = 1024;
  let total = 0;
  let size = 0;
  let cap = 0;
  for (const v of values) {
    const len = v.length;
    if (len <= 8) continue;
    if (total > limit) return null;
    if (cap === 0 || size + len > cap) {
      cap = Math.max(UNIT, len);
      total += cap;
      size = 0;
    }
    size += len;
  }
  return total;
}

/** `BigintRange(min, max)`: the bounds filter of one column, labelled as Velox names it. */
class RangeFilter implements KeyFilter {
  readonly description: string;
  readonly label = 'range';
  readonly needsHashes = false;
  constructor(readonly inner: BoundsFilter) {
    this.description = inner.description;
  }
  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    return this.inner.mayContain(stats);
  }
  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.inner.test(keys, hashes, rows, keep);
  }
  share(): SharedKeyFilter {
    return this.inner.share();
  }
}

/**
 * `BigintValuesUsingBitmask`: one bit per value of [min, max] (bits = max - min + 1, below 2^53
 * by construction: it is < max(bitmaskSmallRange, count * bitmaskBitsPerValue)). One `int` column
 * of 1 or 2 words. A row's offset from min is an exact double for |offset| < 2^53 and, beyond,
 * rounds monotonically — never into [0, bits) — so one branch-free pass decides every row.
 */
export class BitmaskFilter implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes = false;
  readonly bits: number;
  readonly #words: Uint32Array;
  readonly #minHi: number;
  readonly #minLo: number;
  readonly #minNum: number;
  readonly #min: bigint;
  readonly #max: bigint;
  readonly #kind: KeyKind;
  readonly #ctx: PushdownContext;

  /** A bitmask over `bits` values from `min` whose `words` are filled by `build` (or shared by another thread). */
  private constructor(kind: KeyKind, min: bigint, bits: number, words: Uint32Array, ctx: PushdownContext) {
    this.bits = bits;
    this.#kind = kind;
    this.#ctx = ctx;
    this.#min = min;
    this.#max = min + BigInt(bits - 1);
    this.#minLo = Number(BigInt.asUintN(32, min));
    this.#minHi = Number(BigInt.asIntN(32, min >> 32n));
    this.#minNum = kind.width === 1 ? Number(min) : 0;
    this.#words = words;
    const name = ctx.probeColumns[0] ?? 'key0';
    this.description = `${name} IN BITMASK(${formatKeyValue(kind, min)}..${formatKeyValue(kind, this.#max)}, ${bits} bits)`;
    this.label = `bitmask(${bits})`;
  }

  /** The bitmask of `col`'s non-NULL keys (rows with `skip[r] != 0` left out) over [min, min + bits). */
  static build(col: FixedKeyColumn, skip: Uint8Array | null, min: bigint, bits: number, ctx: PushdownContext): BitmaskFilter {
    const f = new BitmaskFilter(col.kind, min, bits, new Uint32Array((bits + 31) >>> 5), ctx);
    const words = f.#words;
    const w = col.kind.width;
    const kw = col.words;
    const nulls = col.nulls;
    for (let r = 0; r < col.length; r++) {
      if ((skip !== null && skip[r] !== 0) || (nulls !== null && nulls[r] !== 0)) continue;
      const off = f.#offset(kw, w, r);
      words[off >>> 5]! |= 1 << (off & 31);
    }
    return f;
  }

  /** The bits in shared memory (copied there once), with the range they cover. */
  share(): SharedKeyFilter {
    return { kind: 'velox-bitmask', state: { kind: this.#kind, min: this.#min, bits: this.bits, words: shareView(this.#words) } };
  }

  static restore(raw: unknown, ctx: PushdownContext): BitmaskFilter {
    const s = raw as { readonly kind: KeyKind; readonly min: bigint; readonly bits: number; readonly words: Uint32Array };
    return new BitmaskFilter(s.kind, s.min, s.bits, s.words, ctx);
  }

  #offset(words: Int32Array, w: number, r: number): number {
    if (w === 1) return words[r]! - this.#minNum;
    return (words[2 * r + 1]! - this.#minHi) * TWO_32 + ((words[2 * r]! >>> 0) - this.#minLo);
  }

  #has(off: number): boolean {
    return off >= 0 && off < this.bits && ((this.#words[off >>> 5]! >>> (off & 31)) & 1) !== 0;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    const type = this.#ctx.probeTypes[0];
    if (type === undefined) return true;
    const range = statsToKeyRange(stats[0], type, this.#kind);
    if (typeof range.lo === 'bigint' && typeof range.hi === 'bigint' && range.lo === range.hi) {
      const off = range.lo - this.#min;
      return off >= 0n && off < BigInt(this.bits) && this.#has(Number(off));
    }
    return rangeMayOverlap(range, this.#min as KeyValue, this.#max as KeyValue);
  }

  test(keys: readonly KeyColumn[], _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    const col = keys[0] as FixedKeyColumn;
    const words = col.words;
    const w = col.kind.width;
    const bits = this.#words;
    const last = this.bits - 1;
    const count = rows === null ? col.length : rows.length;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      const off = this.#offset(words, w, r);
      const inside = +(off >= 0) & +(off <= last);
      const b = off < 0 ? 0 : off > last ? last : off;
      keep[r] &= inside & (bits[b >>> 5]! >>> (b & 31));
    }
  }
}

/**
 * Velox's filter for key column `column`, named as Velox names it. For a one-column key the inner
 * filter sees the probe keys and hashes as they come (`direct`); for a column of a multi-column
 * key it is tested on that column alone (with its own hashes, computed per batch with the
 * partition's seed, when it needs them), and containers on that column's stats.
 */
class OnColumn implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes: boolean;
  readonly inner: KeyFilter;
  readonly #column: number;
  readonly #seed: number;
  readonly #direct: boolean;
  readonly #cols: KeyColumn[] = [];
  readonly #one: (ColumnStats | undefined)[] = [undefined];
  #hashes = new Uint32Array(0);

  readonly #choice: Omit<ColumnChoice, 'inner'>;

  constructor(choice: ColumnChoice, column: number, seed: number, direct: boolean) {
    this.#choice = { kind: choice.kind, label: choice.label };
    this.inner = choice.inner;
    this.#column = column;
    this.#seed = seed;
    this.#direct = direct;
    this.label = choice.label;
    this.description = `${choice.kind}: ${choice.inner.description}`;
    this.needsHashes = direct && choice.inner.needsHashes;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    if (this.#direct) return this.inner.mayContain(stats);
    this.#one[0] = stats[this.#column];
    return this.inner.mayContain(this.#one);
  }

  share(): SharedKeyFilter | null {
    const inner = shareFilter(this.inner);
    if (inner === null) return null;
    const state: SharedOnColumn = { inner, column: this.#column, seed: this.#seed, direct: this.#direct, choice: this.#choice };
    return { kind: 'velox-on-column', state };
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (this.#direct) return this.inner.test(keys, hashes, rows, keep);
    const col = keys[this.#column]!;
    this.#cols[0] = col;
    let h: Uint32Array | null = null;
    if (this.inner.needsHashes) {
      if (this.#hashes.length < col.length) this.#hashes = new Uint32Array(col.length);
      h = hashKeys(this.#cols, this.#seed, this.#hashes);
    }
    this.inner.test(this.#cols, h, rows, keep);
  }
}

interface SharedOnColumn {
  readonly inner: SharedKeyFilter;
  readonly column: number;
  readonly seed: number;
  readonly direct: boolean;
  readonly choice: Omit<ColumnChoice, 'inner'>;
}

registerKeyFilterKind('velox-bitmask', (raw, env) => BitmaskFilter.restore(raw, env.ctx));
registerKeyFilterKind('velox-on-column', (raw, env) => {
  const s = raw as SharedOnColumn;
  return new OnColumn({ ...s.choice, inner: restoreKeyFilter(s.inner, env) }, s.column, s.seed, s.direct);
});

export const veloxPushdown: PushdownPolicy = {
  name: 'velox',
  description:
    "Velox's hash-join filters per key column: BigintRange (contiguous), BigintValuesUsingBitmask (narrow range), BigintValuesUsingHashTable, nothing past pushdown.velox.maxDistinct (100000) distinct values; strings only with pushdown.velox.stringFilters; none for floats, booleans, timestamps, unsigned",
  planPartition: (build, ctx) => planVelox(build, ctx).filter,
};
