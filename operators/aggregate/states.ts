/**
 * Per-group aggregate states, one object per aggregate call, each a few typed arrays indexed by
 * group id: `update` folds one batch in (one loop over the batch's rows, reading the group id of
 * each row from `groups`), `finish` turns a range of groups into an Arrow column.
 *
 * Inputs are value columns as values.ts reads them: `numbers` (one exact JS number per row: the
 * narrow integers, floats, Date32, booleans as 0/1), `words` (2 or 4 little-endian words per row:
 * 64-bit integers, timestamps, Date64, Decimal64/128) or `bytes` (strings, binary); NULL rows are
 * a byte mask (`nulls[r] = 1`). `rows` null means every row of the batch (the common case), else
 * the rows to fold in (a DISTINCT aggregate's first occurrences).
 *
 * Exactness without BigInt (DuckDB: `sum` of integers is a HUGEINT, of DECIMAL(p, s) a
 * DECIMAL(38, s), summed exactly — extension/core_functions/aggregate/distributive/sum.cpp):
 * an exact sum is kept as limbs in a Float64Array — limb j counts units of 2^(32 j) — and every
 * row adds its 32-bit words to the limbs (unsigned words, the top one signed; a narrow integer
 * adds its whole value, |v| < 2^32, to the first limb). A limb stays an
 * exact double while it is below 2^53; the update carries a limb into the next once it passes
 * 2^52 (one predictable branch per limb per row), so no sum of any length loses a bit. Integer
 * sums use three limbs (the third absorbs the carries: 2^117 of headroom), decimal sums five (the
 * fifth holds what went past 128 bits), and the group's count of values sits right after its
 * limbs, so a row touches one cache line of state. `finish` normalises the limbs into four 32-bit words —
 * the Decimal128 value — and reports a sum that does not fit 128 bits as DuckDB's "Overflow in
 * HUGEINT addition" (DuckDB checks each addition, so it may also fail on an intermediate sum
 * that later comes back into range; joinlab only on the final one).
 *
 * `sum`/`avg` of FLOAT/DOUBLE is a double sum in input order (DuckDB's `NumericSumOperation`:
 * plain `+=`, no Kahan), so with one DuckDB thread the two agree bit for bit; `avg` of exact
 * types divides at the end exactly as DuckDB does (avg-finalize.ts).
 *
 * min/max follow DuckDB's orders (core/keys/compare.ts): NaN above every number, strings
 * byte-wise; a strictly better value replaces the state, so ties keep the first seen. String
 * states live in an append-only arena; replaced values become garbage, and the arena is compacted
 * (live values copied in group order) when garbage would otherwise double it.
 */
import type { Data, DataType } from 'apache-arrow';
import { ExpressionError } from '../../core/errors.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { exactAvg, type AvgRule } from './avg-finalize.ts';
import { bytesValueData, countData, decimal128Data, doubleColumn, numberValueData, validityOf, wordValueData } from './output.ts';
import type { ValueView } from './values.ts';

/** One batch's input of an aggregate: its values, or for counts only its NULLs. */
export interface AggregateInput {
  readonly values: ValueView | null;
  /** 1 = NULL; null when no row is NULL. */
  readonly nulls: Uint8Array | null;
}

export interface AggregateState {
  /** Bytes of the per-group arrays, per group (reserved by the operator before `resize`). */
  readonly bytesPerGroup: number;
  /** Make room for `capacity` groups (keeps the states of the existing ones; new ones are empty). */
  resize(capacity: number): void;
  /** Fold rows `rows[0 .. count)` (rows 0 .. count - 1 when null) in; `groups[row]` is each row's group. */
  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void;
  /**
   * Optional fast path of an aggregate without GROUP BY: fold rows 0 .. count - 1, all of group 0
   * (capacity is at least 1), with the same result as `update` with every group id 0 — no group id
   * read per row, and sums kept in locals.
   */
  updateAll?(input: AggregateInput, count: number): void;
  /** Groups [start, start + count) as an output column. */
  finish(start: number, count: number): Data;
}

const TWO32 = 4294967296;
/** Carry threshold: a limb above it is carried before it can lose exactness. */
const LIMB_MAX = 4503599627370496; // 2^52
/**
 * Rows a fast path sums in a local before folding it into the limbs: 2^20 words below 2^32 sum to
 * below 2^52, so the local stays exact, and limb + local stays below 2^53.
 */
const LOCAL_ROWS = 1 << 20;

/**
 * Adds v (|v| < 2^52) to the first limb at `o`, carrying into the next two past 2^52 either way
 * (the limbs stay exact doubles; a carry is one predictable branch not taken per row).
 */
function addToFirstLimb(L: Float64Array, o: number, v: number): void {
  let a = L[o]! + v;
  if (a >= LIMB_MAX || a <= -LIMB_MAX) {
    const c = Math.floor(a / TWO32);
    a -= c * TWO32;
    let b = L[o + 1]! + c;
    if (b >= LIMB_MAX || b <= -LIMB_MAX) {
      const c2 = Math.floor(b / TWO32);
      b -= c2 * TWO32;
      L[o + 2]! += c2;
    }
    L[o + 1] = b;
  }
  L[o] = a;
}

function grown<T extends Float64Array | Int32Array | Uint8Array>(old: T, length: number): T {
  const Ctor = old.constructor as new (n: number) => T;
  const out = new Ctor(length);
  out.set(old.subarray(0, Math.min(old.length, length)) as never);
  return out;
}

// ---- counts -------------------------------------------------------------------------------------

/** count(*) and count(x): a BIGINT per group, 0 over no rows (never NULL). */
export class CountState implements AggregateState {
  readonly bytesPerGroup = 8;
  private counts = new Float64Array(0);

  constructor(private readonly skipNulls: boolean) {}

  resize(capacity: number): void {
    this.counts = grown(this.counts, capacity);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const c = this.counts;
    const nulls = this.skipNulls ? input.nulls : null;
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls === null || nulls[r] === 0) c[groups[r]!]! += 1;
    }
  }

  updateAll(input: AggregateInput, count: number): void {
    const nulls = this.skipNulls ? input.nulls : null;
    let n = count;
    if (nulls !== null) for (let r = 0; r < count; r++) n -= nulls[r]!;
    this.counts[0]! += n;
  }

  finish(start: number, count: number): Data {
    return countData(this.counts, start, count);
  }
}

// ---- exact sums (integers, booleans, decimals) ---------------------------------------------------

export type ExactFinish = { readonly fn: 'sum'; readonly scale: number } | { readonly fn: 'avg'; readonly rule: AvgRule; readonly divisorScale: number };

/**
 * sum/avg of an integer, boolean or decimal column: limbs of an exact sum plus the count of
 * values. `width`: 0 for `numbers` (|value| < 2^32), 2 for 64-bit words (`unsigned` for
 * UBIGINT), 4 for Decimal128.
 */
export class ExactSumState implements AggregateState {
  readonly bytesPerGroup: number;
  private readonly limbs: number;
  /** Per group: the limbs, then the count of values (one cache line touched per row). */
  private readonly stride: number;
  private sums = new Float64Array(0);

  constructor(
    private readonly width: 0 | 2 | 4,
    private readonly unsigned: boolean,
    private readonly out: ExactFinish,
    private readonly label: string,
  ) {
    this.limbs = width === 4 ? 5 : 3;
    this.stride = this.limbs + 1;
    this.bytesPerGroup = 8 * this.stride;
  }

  resize(capacity: number): void {
    this.sums = grown(this.sums, capacity * this.stride);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const view = input.values!;
    const nulls = view.nulls;
    const L = this.sums;
    if (this.width === 0) {
      // one limb takes the (signed, < 2^32) values; it carries into the next past 2^52
      const x = view.numbers!;
      for (let k = 0; k < count; k++) {
        const r = rows === null ? k : rows[k]!;
        if (nulls !== null && nulls[r] !== 0) continue;
        const g = groups[r]!;
        const o = 4 * g;
        addToFirstLimb(L, o, x[r]!);
        L[o + 3]! += 1;
      }
      return;
    }
    const w = view.words!;
    if (this.width === 2) {
      const unsigned = this.unsigned;
      for (let k = 0; k < count; k++) {
        const r = rows === null ? k : rows[k]!;
        if (nulls !== null && nulls[r] !== 0) continue;
        const g = groups[r]!;
        const o = 4 * g;
        let a = L[o]! + (w[2 * r]! >>> 0);
        let b = L[o + 1]! + (unsigned ? w[2 * r + 1]! >>> 0 : w[2 * r + 1]!);
        if (a >= LIMB_MAX) {
          const c = Math.floor(a / TWO32);
          a -= c * TWO32;
          b += c;
        }
        if (b >= LIMB_MAX || b <= -LIMB_MAX) {
          const c = Math.floor(b / TWO32);
          b -= c * TWO32;
          L[o + 2]! += c;
        }
        L[o] = a;
        L[o + 1] = b;
        L[o + 3]! += 1;
      }
      return;
    }
    // decimals: four words, the top one signed
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls !== null && nulls[r] !== 0) continue;
      const g = groups[r]!;
      const o = 6 * g;
      const i = 4 * r;
      const hi = w[i + 1]!;
      const sign = hi >> 31;
      if (w[i + 2] === sign && w[i + 3] === sign && hi < 0x100000 && hi >= -0x100000) {
        // the common case, a value below 2^52 in magnitude: added whole to the first limb (signed),
        // which carries either way past 2^52 — one limb touched instead of four
        addToFirstLimb(L, o, hi * TWO32 + (w[i]! >>> 0));
        L[o + 5]! += 1;
        continue;
      }
      let a0 = L[o]! + (w[i]! >>> 0);
      let a1 = L[o + 1]! + (w[i + 1]! >>> 0);
      let a2 = L[o + 2]! + (w[i + 2]! >>> 0);
      let a3 = L[o + 3]! + w[i + 3]!;
      if (a0 >= LIMB_MAX || a0 <= -LIMB_MAX) {
        const c = Math.floor(a0 / TWO32);
        a0 -= c * TWO32;
        a1 += c;
      }
      if (a1 >= LIMB_MAX || a1 <= -LIMB_MAX) {
        const c = Math.floor(a1 / TWO32);
        a1 -= c * TWO32;
        a2 += c;
      }
      if (a2 >= LIMB_MAX || a2 <= -LIMB_MAX) {
        const c = Math.floor(a2 / TWO32);
        a2 -= c * TWO32;
        a3 += c;
      }
      if (a3 >= LIMB_MAX || a3 <= -LIMB_MAX) {
        const c = Math.floor(a3 / TWO32);
        a3 -= c * TWO32;
        L[o + 4]! += c;
      }
      L[o] = a0;
      L[o + 1] = a1;
      L[o + 2] = a2;
      L[o + 3] = a3;
      L[o + 5]! += 1;
    }
  }

  updateAll(input: AggregateInput, count: number): void {
    const view = input.values!;
    const nulls = view.nulls;
    const parts = this.width === 4 ? 4 : this.width === 2 ? 2 : 1;
    const local = new Float64Array(parts);
    for (let start = 0; start < count; start += LOCAL_ROWS) {
      const end = Math.min(count, start + LOCAL_ROWS);
      local.fill(0);
      let n = 0;
      if (this.width === 0) {
        const x = view.numbers!;
        let a = 0;
        if (nulls === null) {
          for (let r = start; r < end; r++) a += x[r]!;
          n = end - start;
        } else {
          for (let r = start; r < end; r++) {
            if (nulls[r] !== 0) continue;
            a += x[r]!;
            n++;
          }
        }
        local[0] = a;
      } else if (this.width === 2) {
        const w = view.words!;
        let a = 0;
        let b = 0;
        const unsigned = this.unsigned;
        for (let r = start; r < end; r++) {
          if (nulls !== null && nulls[r] !== 0) continue;
          a += w[2 * r]! >>> 0;
          b += unsigned ? w[2 * r + 1]! >>> 0 : w[2 * r + 1]!;
          n++;
        }
        local[0] = a;
        local[1] = b;
      } else {
        const w = view.words!;
        let a0 = 0;
        let a1 = 0;
        let a2 = 0;
        let a3 = 0;
        for (let r = start; r < end; r++) {
          if (nulls !== null && nulls[r] !== 0) continue;
          const i = 4 * r;
          a0 += w[i]! >>> 0;
          a1 += w[i + 1]! >>> 0;
          a2 += w[i + 2]! >>> 0;
          a3 += w[i + 3]!;
          n++;
        }
        local[0] = a0;
        local[1] = a1;
        local[2] = a2;
        local[3] = a3;
      }
      this.fold(local, n);
    }
  }

  /** Adds per-limb sums (each below 2^52 in magnitude) and `n` values to group 0, carrying. */
  private fold(local: Float64Array, n: number): void {
    const L = this.sums;
    const last = this.limbs - 1; // the top limb absorbs the carries
    for (let j = 0; j < local.length; j++) L[j]! += local[j]!;
    for (let j = 0; j < last; j++) {
      const v = L[j]!;
      if (v < LIMB_MAX && v > -LIMB_MAX) continue;
      const c = Math.floor(v / TWO32);
      L[j] = v - c * TWO32;
      L[j + 1]! += c;
    }
    L[this.limbs]! += n;
  }

  /**
   * Group g's exact sum as four words at `out[o .. o+3]`; false if it does not fit in a signed
   * 128-bit integer.
   */
  private sumWords(g: number, out: Uint32Array, o: number): boolean {
    const n = this.limbs;
    const L = this.sums;
    const o0 = g * this.stride;
    let carry = 0;
    for (let j = 0; j < 4; j++) {
      const v = (j < n ? L[o0 + j]! : 0) + carry;
      const word = v - Math.floor(v / TWO32) * TWO32; // v mod 2^32, in [0, 2^32)
      out[o + j] = word;
      carry = (v - word) / TWO32;
    }
    // what lies beyond 128 bits: the carry out of word 3, plus a decimal sum's fifth limb
    const top = (n === 5 ? L[o0 + 4]! : 0) + carry;
    const negative = out[o + 3]! >= 0x80000000;
    return negative ? top === -1 : top === 0;
  }

  finish(start: number, count: number): Data {
    const cnt = new Float64Array(count);
    for (let k = 0; k < count; k++) cnt[k] = this.sums[(start + k) * this.stride + this.limbs]!;
    if (this.out.fn === 'sum') {
      const words = new Uint32Array(4 * count);
      for (let k = 0; k < count; k++) {
        if (cnt[k] === 0) continue;
        if (!this.sumWords(start + k, words, 4 * k)) throw new ExpressionError(`Out of Range: ${this.label} overflows HUGEINT (the sum needs more than 128 bits; DuckDB: "Overflow in HUGEINT addition")`);
      }
      return decimal128Data(words, this.out.scale, validityOf(cnt, 0, count), count);
    }
    const { rule, divisorScale } = this.out;
    const values = new Float64Array(count);
    const scratch = new Uint32Array(4);
    for (let k = 0; k < count; k++) {
      if (cnt[k] === 0) continue;
      if (!this.sumWords(start + k, scratch, 0)) throw new ExpressionError(`Out of Range: ${this.label} overflows HUGEINT (the sum needs more than 128 bits; DuckDB: "Overflow in HUGEINT addition")`);
      values[k] = exactAvg(scratch, 0, cnt[k]!, divisorScale, rule);
    }
    return doubleColumn(values, validityOf(cnt, 0, count));
  }
}

// ---- double sums ----------------------------------------------------------------------------------

/** sum/avg of FLOAT/DOUBLE: a double sum (input order) and a count. */
export class FloatSumState implements AggregateState {
  readonly bytesPerGroup = 16;
  /** Per group: the sum, then the count of values. */
  private sums = new Float64Array(0);

  constructor(private readonly fn: 'sum' | 'avg') {}

  resize(capacity: number): void {
    this.sums = grown(this.sums, 2 * capacity);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const view = input.values!;
    const x = view.numbers!;
    const nulls = view.nulls;
    const s = this.sums;
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls !== null && nulls[r] !== 0) continue;
      const g = groups[r]!;
      s[2 * g]! += x[r]!;
      s[2 * g + 1]! += 1;
    }
  }

  updateAll(input: AggregateInput, count: number): void {
    const view = input.values!;
    const x = view.numbers!;
    const nulls = view.nulls;
    let sum = this.sums[0]!;
    let n = 0;
    for (let r = 0; r < count; r++) {
      if (nulls !== null && nulls[r] !== 0) continue;
      sum += x[r]!; // input order, as `update` and DuckDB add
      n++;
    }
    this.sums[0] = sum;
    this.sums[1]! += n;
  }

  finish(start: number, count: number): Data {
    const out = new Float64Array(count);
    const cnt = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const g = start + k;
      const c = this.sums[2 * g + 1]!;
      cnt[k] = c;
      if (c !== 0) out[k] = this.fn === 'sum' ? this.sums[2 * g]! : this.sums[2 * g]! / c;
    }
    return doubleColumn(out, validityOf(cnt, 0, count));
  }
}

// ---- min / max of fixed-width values ---------------------------------------------------------------

/**
 * min/max over `numbers` (narrow integers, floats, Date32, booleans, Decimal32): one double per
 * group, NaN above every number.
 */
export class NumberMinMaxState implements AggregateState {
  readonly bytesPerGroup = 9;
  private values = new Float64Array(0);
  private has = new Uint8Array(0);

  constructor(
    private readonly isMax: boolean,
    private readonly type: DataType,
    private readonly label: string,
  ) {}

  resize(capacity: number): void {
    this.values = grown(this.values, capacity);
    this.has = grown(this.has, capacity);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const view = input.values!;
    const x = view.numbers!;
    const nulls = view.nulls;
    const has = this.has;
    const st = this.values;
    const max = this.isMax;
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls !== null && nulls[r] !== 0) continue;
      const g = groups[r]!;
      const v = x[r]!;
      if (has[g] === 0) {
        has[g] = 1;
        st[g] = v;
        continue;
      }
      const cur = st[g]!;
      // NaN sorts above every number (and equals NaN); a tie keeps the value seen first
      if (max ? v > cur || (v !== v && cur === cur) : v < cur || (cur !== cur && v === v)) st[g] = v;
    }
  }

  finish(start: number, count: number): Data {
    return numberValueData(this.type, this.values, this.has, start, count, this.label);
  }
}

/**
 * min/max over `words`: 64-bit integers (signed, or unsigned for UBIGINT), timestamps, Date64,
 * Decimal64 (2 words) and Decimal128 (4): the top word compared signed (unsigned for UBIGINT),
 * the lower words unsigned.
 */
export class WordMinMaxState implements AggregateState {
  readonly bytesPerGroup: number;
  private words = new Int32Array(0);
  private has = new Uint8Array(0);

  constructor(
    private readonly width: 2 | 4,
    private readonly unsigned: boolean,
    private readonly isMax: boolean,
    private readonly type: DataType,
    private readonly label: string,
  ) {
    this.bytesPerGroup = 4 * width + 1;
  }

  resize(capacity: number): void {
    this.words = grown(this.words, capacity * this.width);
    this.has = grown(this.has, capacity);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const view = input.values!;
    const w = view.words!;
    const nulls = view.nulls;
    const has = this.has;
    const st = this.words;
    const max = this.isMax;
    if (this.width === 2) {
      const unsigned = this.unsigned;
      for (let k = 0; k < count; k++) {
        const r = rows === null ? k : rows[k]!;
        if (nulls !== null && nulls[r] !== 0) continue;
        const g = groups[r]!;
        const vh = w[2 * r + 1]!;
        const vl = w[2 * r]!;
        if (has[g] === 0) {
          has[g] = 1;
          st[2 * g] = vl;
          st[2 * g + 1] = vh;
          continue;
        }
        const ch = st[2 * g + 1]!;
        let cmp: number;
        if (vh !== ch) cmp = unsigned ? (vh >>> 0 < ch >>> 0 ? -1 : 1) : vh < ch ? -1 : 1;
        else {
          const a = vl >>> 0;
          const b = st[2 * g]! >>> 0;
          cmp = a < b ? -1 : a > b ? 1 : 0;
        }
        if (max ? cmp > 0 : cmp < 0) {
          st[2 * g] = vl;
          st[2 * g + 1] = vh;
        }
      }
      return;
    }
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls !== null && nulls[r] !== 0) continue;
      const g = groups[r]!;
      let replace = has[g] === 0;
      if (!replace) {
        let cmp = 0;
        const vt = w[4 * r + 3]!;
        const ct = st[4 * g + 3]!;
        if (vt !== ct) cmp = vt < ct ? -1 : 1;
        else {
          for (let j = 2; j >= 0 && cmp === 0; j--) {
            const a = w[4 * r + j]! >>> 0;
            const b = st[4 * g + j]! >>> 0;
            if (a !== b) cmp = a < b ? -1 : 1;
          }
        }
        replace = max ? cmp > 0 : cmp < 0;
      }
      if (replace) {
        has[g] = 1;
        for (let j = 0; j < 4; j++) st[4 * g + j] = w[4 * r + j]!;
      }
    }
  }

  finish(start: number, count: number): Data {
    return wordValueData(this.type, this.width, this.words, this.has, start, count, this.label);
  }
}

// ---- min / max of strings and binary -----------------------------------------------------------------

const MAX_ARENA = 0x7fffffff;

/** min/max over bytes (VARCHAR byte order = code point order; BLOB byte order). */
export class BytesMinMaxState implements AggregateState {
  readonly bytesPerGroup = 9;
  private starts = new Int32Array(0);
  private lens = new Int32Array(0);
  private has = new Uint8Array(0);
  private arena = new Uint8Array(0);
  private used = 0;
  private live = 0;

  constructor(
    private readonly isMax: boolean,
    private readonly type: DataType,
    private readonly reservation: Reservation,
    private readonly label: string,
  ) {}

  resize(capacity: number): void {
    this.starts = grown(this.starts, capacity);
    this.lens = grown(this.lens, capacity);
    this.has = grown(this.has, capacity);
  }

  update(input: AggregateInput, groups: Int32Array, rows: Int32Array | null, count: number): void {
    const col = input.values!.bytes!;
    const { offsets, bytes, codes, nulls } = col;
    const has = this.has;
    const max = this.isMax;
    for (let k = 0; k < count; k++) {
      const r = rows === null ? k : rows[k]!;
      if (nulls !== null && nulls[r] !== 0) continue;
      const g = groups[r]!;
      const e = codes === null ? r : codes[r]!;
      const p = offsets[e]!;
      const n = offsets[e + 1]! - p;
      if (has[g] !== 0) {
        // compare with the state: memcmp, then length
        const arena = this.arena;
        const q = this.starts[g]!;
        const m = this.lens[g]!;
        const lim = n < m ? n : m;
        let cmp = 0;
        for (let j = 0; j < lim; j++) {
          const a = bytes[p + j]!;
          const b = arena[q + j]!;
          if (a !== b) {
            cmp = a < b ? -1 : 1;
            break;
          }
        }
        if (cmp === 0) cmp = n < m ? -1 : n > m ? 1 : 0;
        if (max ? cmp <= 0 : cmp >= 0) continue;
        this.live -= m;
      }
      this.store(g, bytes, p, n);
    }
  }

  private store(g: number, bytes: Uint8Array, p: number, n: number): void {
    if (this.used + n > this.arena.length) this.makeRoom(n);
    this.arena.set(bytes.subarray(p, p + n), this.used);
    this.starts[g] = this.used;
    this.lens[g] = n;
    this.has[g] = 1;
    this.used += n;
    this.live += n;
  }

  /** Compact (when at least half the arena is garbage) or grow, so that `n` more bytes fit. */
  private makeRoom(n: number): void {
    const need = this.live + n;
    if (need > MAX_ARENA) throw new ExpressionError(`${this.label}: more than 2^31-1 bytes of min/max values`);
    const size = need <= this.arena.length / 2 ? this.arena.length : Math.min(MAX_ARENA, Math.max(2 * need, 2 * this.arena.length, 4096));
    if (size > this.arena.length) this.reservation.grow(size - this.arena.length);
    const next = new Uint8Array(size);
    let at = 0;
    const { starts, lens, has } = this;
    for (let g = 0; g < has.length; g++) {
      if (has[g] === 0) continue;
      const q = starts[g]!;
      const m = lens[g]!;
      next.set(this.arena.subarray(q, q + m), at);
      starts[g] = at;
      at += m;
    }
    this.arena = next;
    this.used = at;
  }

  finish(start: number, count: number): Data {
    return bytesValueData(this.type, this.arena, this.starts, this.lens, this.has, start, count, this.label);
  }
}
