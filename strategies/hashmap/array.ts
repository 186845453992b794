/**
 * `array`: DataFusion's ArrayMap — a perfect hash for ONE integer key over a small or dense range.
 *
 *   slot[key - min]  (Int32Array, one per value of [min, max])  first build row + 1 (0 = none)
 *   next[r]          (Int32Array, one per build row)             next row + 1 with r's key (0 = end)
 *
 * A slot is a key, so a probe never compares keys and never reads hashes (the join need not even
 * hash the probe side for it): a row outside [min, max] misses on one subtraction and compare, a
 * row inside reads one slot. Rows are inserted last to first, so a slot's chain is in ascending
 * row order — the order the contract wants and the order a resumed probe relies on. When no key is
 * duplicated `next` is dropped (and the probe emits one row per hit without chasing it).
 *
 * Key arithmetic without BigInt: a 64-bit key is two words (lo, hi). Keys are only ever used
 * RELATIVE to min: offset = (hi' - minHi') * 2^32 + (lo - minLo), where hi' is the high word with
 * the sign bit flipped for unsigned keys (so signed int32 order is the key's order). For any key
 * within 2^26 of min that is an exact small integer; for any key farther away it is a double whose
 * sign and magnitude (>= 2^32 or < 0) still say "outside" even if rounded. So keys anywhere in the
 * int64/uint64 domain — ±2^63 included — are handled exactly; what limits the layout is only the
 * span max - min + 1 (<= 2^26 slots, 256 MB at most), checked with the same arithmetic.
 *
 * Usable for: exactly one key column of kind int/uint width 2, or bool / int width 1. Not usable
 * (see `unsupportedReason`): several keys, floats/bytes/decimals/HUGEINT, a span over 2^26, or
 * NULL = NULL with a NULL build key (a NULL has no slot). Under null-equals-nothing NULL build rows
 * are skipped and NULL probe rows miss; under null-equals-null without NULL build keys a NULL
 * probe row can match nothing either. An empty build (0 non-NULL rows) is a table of 0 slots.
 */
import type { BuildInput, HashMapLayout, JoinHashTable, ProbeCursor, ProbeInput } from '../../core/hashmap.ts';
import { keyExtremes } from '../../core/keys/extremes.ts';
import type { FixedKeyColumn, KeyColumn } from '../../core/keys/types.ts';
import { checkBuildInput, checkProbeArgs, checkProbeKeys } from './chained.ts';

/** Largest span (max - min + 1) the array layout indexes: 2^26 slots = 256 MB of Int32. */
export const ARRAY_MAX_SPAN = 2 ** 26;
const TWO_32 = 4294967296;
const SIGN = 0x80000000 | 0;

/** What the array layout learned from one pass over the build keys (cached per BuildInput). */
export interface ArrayKeyAnalysis {
  /** Why the array layout cannot index these keys, or null. */
  readonly reason: string | null;
  /**
   * The part of `reason` that is about the key itself (columns, type, NULL rule), not its span:
   * null when only the span is too wide, in which case count/span/width/flip/min are all set (the
   * `rank` layout indexes wider spans from the same analysis).
   */
  readonly keyReason: string | null;
  /** Non-NULL build rows (the rows that would be inserted). */
  readonly count: number;
  /** max - min + 1 over non-NULL keys (0 when none; may be inexact above 2^53 — only compared). */
  readonly span: number;
  /** Words per key (1 or 2) when supported. */
  readonly width: number;
  /** Sign-bit flip applied to the high word (0 signed, 0x80000000 unsigned). */
  readonly flip: number;
  /** min's high word (flipped) and unsigned low word; for width 1, minLo is the signed value. */
  readonly minHi: number;
  readonly minLo: number;
}

const cache = new WeakMap<BuildInput, ArrayKeyAnalysis>();

function refuse(reason: string): ArrayKeyAnalysis {
  return { reason, keyReason: reason, count: 0, span: 0, width: 0, flip: 0, minHi: 0, minLo: 0 };
}

/** One pass over the build key: min, max, non-NULL count, and whether the array layout applies. */
export function analyzeArrayKeys(input: BuildInput): ArrayKeyAnalysis {
  let a = cache.get(input);
  if (a === undefined) cache.set(input, (a = analyze(input)));
  return a;
}

function analyze(input: BuildInput): ArrayKeyAnalysis {
  const { keys, rows } = input;
  if (keys.length !== 1) return refuse(`the array layout needs exactly one key column, got ${keys.length}`);
  const col = keys[0]!;
  const { order, width, sqlType } = col.kind;
  const integer = ((order === 'int' || order === 'uint') && width === 2) || ((order === 'int' || order === 'bool') && width === 1);
  if (!integer) return refuse(`the array layout needs an integer or boolean key, got ${sqlType}`);
  const fixed = col as FixedKeyColumn;
  const nulls = fixed.nulls;
  if (input.nullEqualsNull && nulls !== null) {
    for (let r = 0; r < rows; r++) {
      if (nulls[r] !== 0) return refuse('the array layout cannot index NULL build keys under null-equals-null');
    }
  }
  const w = fixed.words;
  const flip = order === 'uint' ? SIGN : 0;
  if (width === 2 && fixed.length === rows) {
    // the shared (cached) extremes pass: the swiss layout and the bounds pushdown read it too
    const e = keyExtremes(fixed);
    if (e === null) return { reason: null, keyReason: null, count: 0, span: 0, width, flip, minHi: 0, minLo: 0 };
    const minHi = w[2 * e.minRow + 1]! ^ flip;
    const minLo = w[2 * e.minRow]! >>> 0;
    const span = ((w[2 * e.maxRow + 1]! ^ flip) - minHi) * TWO_32 + ((w[2 * e.maxRow]! >>> 0) - minLo) + 1;
    return { reason: spanReason(span, sqlType), keyReason: null, count: e.count, span, width, flip, minHi, minLo };
  }
  let count = 0;
  // min/max as (hi', lo) pairs compared lexicographically: hi' signed, lo unsigned
  let minHi = 0;
  let minLo = 0;
  let maxHi = 0;
  let maxLo = 0;
  for (let r = 0; r < rows; r++) {
    if (nulls !== null && nulls[r] !== 0) continue;
    let hi: number;
    let lo: number;
    if (width === 2) {
      hi = w[2 * r + 1]! ^ flip;
      lo = w[2 * r]! >>> 0;
    } else {
      hi = 0;
      lo = w[r]!;
    }
    if (count === 0) {
      minHi = maxHi = hi;
      minLo = maxLo = lo;
    } else {
      if (hi < minHi || (hi === minHi && lo < minLo)) {
        minHi = hi;
        minLo = lo;
      }
      if (hi > maxHi || (hi === maxHi && lo > maxLo)) {
        maxHi = hi;
        maxLo = lo;
      }
    }
    count++;
  }
  const span = count === 0 ? 0 : (maxHi - minHi) * TWO_32 + (maxLo - minLo) + 1;
  return { reason: spanReason(span, sqlType), keyReason: null, count, span, width, flip, minHi, minLo };
}

function spanReason(span: number, sqlType: string): string | null {
  return span > ARRAY_MAX_SPAN ? `the array layout needs a key range of at most 2^26 values, got ~${formatSpan(span)} (${sqlType})` : null;
}

export function formatSpan(span: number): string {
  return span < 1e9 ? String(span) : span.toExponential(3);
}

export class ArrayHashTable implements JoinHashTable {
  readonly layout = 'array';
  readonly needsProbeHashes = false;
  readonly inserted: number;
  readonly memoryBytes: number;
  /** Slots: max - min + 1. */
  readonly span: number;
  /** Whether some key occurs more than once (otherwise `next` is not kept). */
  readonly hasDuplicates: boolean;
  readonly #slot: Int32Array;
  readonly #next: Int32Array | null;
  readonly #keys: readonly KeyColumn[];
  readonly #width: number;
  readonly #flip: number;
  readonly #minHi: number;
  readonly #minLo: number;

  constructor(input: BuildInput, analysis: ArrayKeyAnalysis = analyzeArrayKeys(input)) {
    checkBuildInput(input);
    if (analysis.reason !== null) throw new RangeError(analysis.reason);
    const col = input.keys[0] as FixedKeyColumn;
    this.#keys = input.keys;
    this.#width = analysis.width;
    this.#flip = analysis.flip;
    this.#minHi = analysis.minHi;
    this.#minLo = analysis.minLo;
    this.span = analysis.span;
    this.inserted = analysis.count;
    this.#slot = new Int32Array(this.span);
    const next = new Int32Array(input.rows);
    const dup =
      this.#width === 2
        ? insertW2(this.#slot, next, col.words, col.nulls, input.rows, this.#flip, this.#minHi, this.#minLo)
        : insertW1(this.#slot, next, col.words, col.nulls, input.rows, this.#minLo);
    this.hasDuplicates = dup;
    this.#next = dup ? next : null;
    this.memoryBytes = this.#slot.byteLength + (this.#next === null ? 0 : this.#next.byteLength);
  }

  probe(input: ProbeInput, cursor: ProbeCursor, outProbe: Int32Array, outBuild: Int32Array, capacity: number): number {
    checkProbeArgs(input, this.#keys, outProbe, outBuild, capacity, false);
    if (cursor.row < 0) return 0;
    const p = input.keys[0] as FixedKeyColumn;
    if (this.#width === 2) {
      return probeW2(this.#slot, this.#next, this.span, this.#flip, this.#minHi, this.#minLo, p.words, p.nulls, input.rows, cursor, outProbe, outBuild, capacity);
    }
    return probeW1(this.#slot, this.#next, this.span, this.#minLo, p.words, p.nulls, input.rows, cursor, outProbe, outBuild, capacity);
  }

  contains(input: ProbeInput, out: Uint8Array, rows: Int32Array | null): void {
    checkProbeKeys(input, this.#keys, false);
    const p = input.keys[0] as FixedKeyColumn;
    if (this.#width === 2) containsW2(this.#slot, this.span, this.#flip, this.#minHi, this.#minLo, p.words, p.nulls, input.rows, out, rows);
    else containsW1(this.#slot, this.span, this.#minLo, p.words, p.nulls, input.rows, out, rows);
  }
}

export function buildArrayTable(input: BuildInput, analysis?: ArrayKeyAnalysis): ArrayHashTable {
  return new ArrayHashTable(input, analysis);
}

export const arrayLayout: HashMapLayout = {
  name: 'array',
  description: 'dense slot[key - min] + next chain (one integer key, range <= 2^26)',
  unsupportedReason: (input) => analyzeArrayKeys(input).reason,
  build: (input) => new ArrayHashTable(input),
};

// --- build ---------------------------------------------------------------------------------------
// Reverse insertion: each row goes in front of its slot's chain, so chains are ascending.
// Returns whether any slot received a second row.

function insertW2(slot: Int32Array, next: Int32Array, w: Int32Array, nulls: Uint8Array | null, rows: number, flip: number, minHi: number, minLo: number): boolean {
  let dup = false;
  for (let r = rows - 1; r >= 0; r--) {
    if (nulls !== null && nulls[r] !== 0) continue;
    const o = ((w[2 * r + 1]! ^ flip) - minHi) * TWO_32 + ((w[2 * r]! >>> 0) - minLo);
    const first = slot[o]!;
    if (first !== 0) dup = true;
    next[r] = first;
    slot[o] = r + 1;
  }
  return dup;
}

function insertW1(slot: Int32Array, next: Int32Array, w: Int32Array, nulls: Uint8Array | null, rows: number, minV: number): boolean {
  let dup = false;
  for (let r = rows - 1; r >= 0; r--) {
    if (nulls !== null && nulls[r] !== 0) continue;
    const o = w[r]! - minV;
    const first = slot[o]!;
    if (first !== 0) dup = true;
    next[r] = first;
    slot[o] = r + 1;
  }
  return dup;
}

// --- probe ---------------------------------------------------------------------------------------
// Cursor protocol as in chained.ts: `j` is the build row to emit next for probe row r (-1: look
// r up). `next === null` means every slot holds one row.

function probeW2(
  slot: Int32Array,
  next: Int32Array | null,
  span: number,
  flip: number,
  minHi: number,
  minLo: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  rows: number,
  cursor: ProbeCursor,
  outP: Int32Array,
  outB: Int32Array,
  cap: number,
): number {
  let r = cursor.row;
  let j = cursor.next;
  let n = 0;
  for (; r < rows; r++) {
    if (j < 0) {
      if (pn !== null && pn[r] !== 0) continue;
      const o = ((pw[2 * r + 1]! ^ flip) - minHi) * TWO_32 + ((pw[2 * r]! >>> 0) - minLo);
      if (!(o >= 0 && o < span)) continue;
      j = slot[o | 0]! - 1;
      if (j < 0) continue;
    }
    do {
      if (n === cap) {
        cursor.row = r;
        cursor.next = j;
        return n;
      }
      outP[n] = r;
      outB[n] = j;
      n++;
      j = next === null ? -1 : next[j]! - 1;
    } while (j >= 0);
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

function probeW1(
  slot: Int32Array,
  next: Int32Array | null,
  span: number,
  minV: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  rows: number,
  cursor: ProbeCursor,
  outP: Int32Array,
  outB: Int32Array,
  cap: number,
): number {
  let r = cursor.row;
  let j = cursor.next;
  let n = 0;
  for (; r < rows; r++) {
    if (j < 0) {
      if (pn !== null && pn[r] !== 0) continue;
      const o = pw[r]! - minV;
      if (!(o >= 0 && o < span)) continue;
      j = slot[o]! - 1;
      if (j < 0) continue;
    }
    do {
      if (n === cap) {
        cursor.row = r;
        cursor.next = j;
        return n;
      }
      outP[n] = r;
      outB[n] = j;
      n++;
      j = next === null ? -1 : next[j]! - 1;
    } while (j >= 0);
  }
  cursor.row = -1;
  cursor.next = -1;
  return n;
}

function containsW2(
  slot: Int32Array,
  span: number,
  flip: number,
  minHi: number,
  minLo: number,
  pw: Int32Array,
  pn: Uint8Array | null,
  rows: number,
  out: Uint8Array,
  list: Int32Array | null,
): void {
  const count = list === null ? rows : list.length;
  for (let k = 0; k < count; k++) {
    const r = list === null ? k : list[k]!;
    let found = 0;
    if (pn === null || pn[r] === 0) {
      const o = ((pw[2 * r + 1]! ^ flip) - minHi) * TWO_32 + ((pw[2 * r]! >>> 0) - minLo);
      if (o >= 0 && o < span && slot[o | 0] !== 0) found = 1;
    }
    out[r] = found;
  }
}

function containsW1(slot: Int32Array, span: number, minV: number, pw: Int32Array, pn: Uint8Array | null, rows: number, out: Uint8Array, list: Int32Array | null): void {
  const count = list === null ? rows : list.length;
  for (let k = 0; k < count; k++) {
    const r = list === null ? k : list[k]!;
    let found = 0;
    if (pn === null || pn[r] === 0) {
      const o = pw[r]! - minV;
      if (o >= 0 && o < span && slot[o] !== 0) found = 1;
    }
    out[r] = found;
  }
}
