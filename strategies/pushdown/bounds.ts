/**
 * `bounds`: per key column, the min and max of the build partition's keys; a probe row may match
 * only if `bmin <= v <= bmax` in every column, a container only if its [min, max] overlaps
 * [bmin, bmax] in every column. The cheapest filter there is, and the only one a min/max
 * statistic can always be tested against — which is why DataFusion ANDs it into every filter.
 *
 * Invariants and degenerate cases:
 *  - Bounds come from build rows with no NULL in ANY key column: the rows a KeyFilter tests have
 *    no NULL, and such a row can only equal a NULL-free build row. No such row => FALSE.
 *  - Row tests compare normalised words (no BigInt, no per-row allocation): ints as (signed high,
 *    unsigned low) words, uint unsigned, HUGEINT/decimal top word signed then unsigned words,
 *    floats as doubles with NaN above every number (a NaN row passes only if the build max is
 *    NaN; -0.0 was folded to 0 by normalisation), bool 0/1, bytes byte-wise (a dictionary column
 *    is tested once per entry when that is cheaper).
 *  - Container tests go through core/scan/key-stats.ts (stats in the probe column's own type, converted into the
 *    key kind's domain); an unknown side never prunes.
 */
import type { BuildPartition, KeyFilter, PushdownContext, PushdownPolicy, SharedKeyFilter } from '../../core/pushdown/policy.ts';
import { registerKeyFilterKind } from '../../core/pushdown/shared-filters.ts';
import { floatKeyView } from '../../core/keys/byte-order.ts';
import { compareWords } from '../../core/keys/extremes.ts';
import { anyNullMask } from '../../core/keys/normalize.ts';
import type { BytesKeyColumn, FixedKeyColumn, KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { isBytesKey } from '../../core/keys/types.ts';
import type { ColumnStats } from '../../core/scan/scan.ts';
import { FALSE_FILTER } from './and.ts';
import {
  extremeRows,
  formatKeyValue,
  keyValueAt,
  rangeMayOverlap,
  statsToKeyRange,
  type KeyValue,
} from '../../core/scan/key-stats.ts';

const SIGN = 0x80000000;

/** The build rows a filter may consider: `skip[r] = 1` for rows with a NULL key; their count. */
export interface UsableRows {
  readonly skip: Uint8Array | null;
  readonly count: number;
}

export function usableRows(build: BuildPartition): UsableRows {
  const skip = anyNullMask(build.keys);
  let count = build.rows;
  if (skip !== null) for (let r = 0; r < build.rows; r++) count -= skip[r]!;
  return { skip, count };
}

/** One key column's build bounds: values in the kind's domain plus the raw words of min / max. */
export interface ColumnBounds {
  readonly kind: KeyKind;
  readonly min: KeyValue;
  readonly max: KeyValue;
  /** `kind.width` words of the min / max row (fixed kinds; empty for bytes). */
  readonly minWords: Int32Array;
  readonly maxWords: Int32Array;
}

/** Per-column bounds of the partition's NULL-free rows, or null when there is none. */
export function partitionBounds(build: BuildPartition, usable: UsableRows = usableRows(build)): ColumnBounds[] | null {
  if (usable.count === 0) return null;
  const out: ColumnBounds[] = [];
  for (const col of build.keys) {
    const ext = extremeRows(col, build.rows, usable.skip);
    if (ext === null) return null;
    const w = col.kind.width;
    const words = isBytesKey(col) ? null : col.words;
    out.push({
      kind: col.kind,
      min: keyValueAt(col, ext.minRow),
      max: keyValueAt(col, ext.maxRow),
      minWords: words === null ? new Int32Array(0) : words.slice(ext.minRow * w, ext.minRow * w + w),
      maxWords: words === null ? new Int32Array(0) : words.slice(ext.maxRow * w, ext.maxRow * w + w),
    });
  }
  return out;
}

/** The bounds filter of one partition (FALSE when it has no NULL-free row). */
export function boundsFilter(build: BuildPartition, ctx: PushdownContext, usable?: UsableRows): KeyFilter {
  const bounds = partitionBounds(build, usable);
  return bounds === null ? FALSE_FILTER : new BoundsFilter(bounds, ctx);
}

export class BoundsFilter implements KeyFilter {
  readonly description: string;
  readonly label = 'bounds';
  readonly needsHashes = false;
  readonly #bounds: readonly ColumnBounds[];
  readonly #ctx: PushdownContext;

  constructor(bounds: readonly ColumnBounds[], ctx: PushdownContext) {
    this.#bounds = bounds;
    this.#ctx = ctx;
    this.description = bounds
      .map((b, c) => `${ctx.probeColumns[c] ?? `key${c}`} BETWEEN ${formatKeyValue(b.kind, b.min)} AND ${formatKeyValue(b.kind, b.max)}`)
      .join(' AND ');
  }

  get bounds(): readonly ColumnBounds[] {
    return this.#bounds;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    const b = this.#bounds;
    for (let c = 0; c < b.length; c++) {
      const type = this.#ctx.probeTypes[c];
      if (type === undefined) continue;
      const range = statsToKeyRange(stats[c], type, b[c]!.kind);
      if (!rangeMayOverlap(range, b[c]!.min, b[c]!.max)) return false;
    }
    return true;
  }

  test(keys: readonly KeyColumn[], _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    const b = this.#bounds;
    for (let c = 0; c < b.length; c++) testColumn(keys[c]!, b[c]!, rows, keep);
  }

  /** One int32 key (`rawInt32Keys`): compared as the doubles its 64-bit bounds are (exact within ±2^53; see test64). */
  testInt32(values: Int32Array, _hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    const b = this.#bounds[0]!;
    testInt32Range(values, wordsToDouble(b.minWords[0]!, b.minWords[1]!, true), wordsToDouble(b.maxWords[0]!, b.maxWords[1]!, true), rows, keep);
  }

  /** The bounds are a few values per key column: copied to the worker as they are. */
  share(): SharedKeyFilter {
    return { kind: 'bounds', state: this.#bounds };
  }
}

registerKeyFilterKind('bounds', (state, env) => new BoundsFilter(state as ColumnBounds[], env.ctx));

function testColumn(col: KeyColumn, b: ColumnBounds, rows: Int32Array | null, keep: Uint8Array): void {
  if (isBytesKey(col)) return testBytes(col, b.min as Uint8Array, b.max as Uint8Array, rows, keep);
  const kind = col.kind;
  switch (kind.order) {
    case 'float':
      return testFloat(col, b.min as number, b.max as number, rows, keep);
    case 'bool':
      return testWord(col.words, b.minWords[0]!, b.maxWords[0]!, col.length, rows, keep);
    case 'int':
    case 'uint':
      if (kind.width === 2) {
        const flip = kind.order === 'int' ? SIGN : 0;
        return test64(col.words, flip, b.minWords, b.maxWords, col.length, rows, keep);
      }
      return testWide(col.words, kind.width, b.minWords, b.maxWords, col.length, rows, keep);
    case 'decimal':
      return testWide(col.words, kind.width, b.minWords, b.maxWords, col.length, rows, keep);
  }
}

const TWO_32 = 4294967296;
const TWO_53 = 2 ** 53;

/**
 * 64-bit ints. When both bounds lie strictly inside ±2^53 a row's value is compared as one double
 * (hi * 2^32 + lo): exact below 2^53, and beyond it rounding is monotone and cannot carry a value
 * across a bound inside ±2^53 — so the answer is exact — and the loop is branch-free (the outcome
 * is ANDed into `keep`; about half the rows fail on typical probes, so a branch would mispredict).
 * Wider bounds compare (signed high, unsigned low) words.
 */
function test64(words: Int32Array, flip: number, minW: Int32Array, maxW: Int32Array, n: number, rows: Int32Array | null, keep: Uint8Array): void {
  const signed = flip !== 0;
  const min = wordsToDouble(minW[0]!, minW[1]!, signed);
  const max = wordsToDouble(maxW[0]!, maxW[1]!, signed);
  const count = rows === null ? n : rows.length;
  if (min > -TWO_53 && max < TWO_53) {
    if (signed && rows === null) {
      for (let r = 0; r < count; r++) {
        const v = words[2 * r + 1]! * TWO_32 + (words[2 * r]! >>> 0);
        keep[r] &= +(v >= min) & +(v <= max);
      }
      return;
    }
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      const v = wordsToDouble(words[2 * r]!, words[2 * r + 1]!, signed);
      keep[r] &= +(v >= min) & +(v <= max);
    }
    return;
  }
  const minH = (minW[1]! ^ flip) >>> 0;
  const minL = minW[0]! >>> 0;
  const maxH = (maxW[1]! ^ flip) >>> 0;
  const maxL = maxW[0]! >>> 0;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    if (keep[r] === 0) continue;
    const h = (words[2 * r + 1]! ^ flip) >>> 0;
    const l = words[2 * r]! >>> 0;
    if (h < minH || (h === minH && l < minL) || h > maxH || (h === maxH && l > maxL)) keep[r] = 0;
  }
}

/**
 * Clears `keep` for the int32 values outside [min, max]. Bounds beyond ±2^53 round to doubles that
 * still lie beyond every int32, so the comparison stays exact for these values.
 */
function testInt32Range(values: Int32Array, min: number, max: number, rows: Int32Array | null, keep: Uint8Array): void {
  if (rows === null) {
    for (let r = 0; r < values.length; r++) {
      const v = values[r]!;
      keep[r] &= +(v >= min) & +(v <= max);
    }
    return;
  }
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    const v = values[r]!;
    keep[r] &= +(v >= min) & +(v <= max);
  }
}

/** The (possibly rounded) double of a 64-bit value given as (lo, hi) words. */
function wordsToDouble(lo: number, hi: number, signed: boolean): number {
  return (signed ? hi : hi >>> 0) * TWO_32 + (lo >>> 0);
}

function testWord(words: Int32Array, min: number, max: number, n: number, rows: Int32Array | null, keep: Uint8Array): void {
  const count = rows === null ? n : rows.length;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const v = words[r]!;
    keep[r] &= +(v >= min) & +(v <= max);
  }
}

/** Wide keys (HUGEINT, decimals: w words, top signed): clears `keep` for rows outside [minW, maxW]. */
function testWide(words: Int32Array, w: number, minW: Int32Array, maxW: Int32Array, n: number, rows: Int32Array | null, keep: Uint8Array): void {
  const count = rows === null ? n : rows.length;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    if (keep[r] === 0) continue;
    if (compareWords(words, r * w, minW, 0, w, false) < 0 || compareWords(words, r * w, maxW, 0, w, false) > 0) keep[r] = 0;
  }
}

function testFloat(col: FixedKeyColumn, min: number, max: number, rows: Int32Array | null, keep: Uint8Array): void {
  const f = floatKeyView(col);
  const minNaN = min !== min; // every build key is NaN
  const maxNaN = max !== max; // some build key is NaN
  const count = rows === null ? col.length : rows.length;
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    const v = f[r]!;
    if (v !== v) {
      if (!maxNaN) keep[r] = 0;
    } else if (minNaN || v < min || (!maxNaN && v > max)) keep[r] = 0;
  }
}

function testBytes(col: BytesKeyColumn, min: Uint8Array, max: Uint8Array, rows: Int32Array | null, keep: Uint8Array): void {
  const { offsets, bytes, codes } = col;
  const count = rows === null ? col.length : rows.length;
  if (codes !== null && offsets.length - 1 <= count) {
    // dictionary: decide each entry once
    const entries = offsets.length - 1;
    const pass = new Uint8Array(entries);
    for (let e = 0; e < entries; e++) pass[e] = inside(bytes, offsets[e]!, offsets[e + 1]!, min, max) ? 1 : 0;
    for (let i = 0; i < count; i++) {
      const r = rows === null ? i : rows[i]!;
      if (pass[codes[r]!] === 0) keep[r] = 0;
    }
    return;
  }
  for (let i = 0; i < count; i++) {
    const r = rows === null ? i : rows[i]!;
    if (keep[r] === 0) continue;
    const e = codes === null ? r : codes[r]!;
    if (!inside(bytes, offsets[e]!, offsets[e + 1]!, min, max)) keep[r] = 0;
  }
}

/** min <= bytes[s, e) <= max, byte-wise. */
function inside(bytes: Uint8Array, s: number, e: number, min: Uint8Array, max: Uint8Array): boolean {
  return compareSlice(bytes, s, e, min) >= 0 && compareSlice(bytes, s, e, max) <= 0;
}

function compareSlice(bytes: Uint8Array, s: number, e: number, ref: Uint8Array): number {
  const len = e - s;
  const n = len < ref.length ? len : ref.length;
  for (let k = 0; k < n; k++) {
    const d = bytes[s + k]! - ref[k]!;
    if (d !== 0) return d;
  }
  return len - ref.length;
}

export const boundsPushdown: PushdownPolicy = {
  name: 'bounds',
  description: 'per key column min <= k <= max of the build partition (rows and container min/max)',
  planPartition: (build, ctx) => boundsFilter(build, ctx),
};
