/**
 * The one comparison the piecewise merge join makes, `buffered OP streamed`, in three uses built
 * once per streamed batch: the first-match predicate the search strategy calls (`predicate`), the
 * prefilter against the buffered side's extreme key (`matchable`), and the reduction of a batch to
 * the one row whose match set contains every other's (`extremeRow`, for the existence joins).
 *
 * The three must agree exactly with the order the buffered side was sorted in, or the prefilter
 * or the search would drop a matching row: all of them compare through the sort order of
 * core/keys/order.ts (DuckDB's: -0.0 = 0.0, NaN above every number and equal to NaN, ints of any
 * width widened to one kind, decimals at a common scale, strings and binary byte-wise, dates and
 * timestamps as their integers, false < true). When both sides' keys are exact doubles
 * (`orderedNumbers`: ints within 2^53, booleans, finite floats) the same order is plain `<` on
 * numbers and the comparisons are a typed-array loop; otherwise (decimals, strings, wide ints,
 * infinities or NaN in the batch) the comparator decides. A NULL streamed key matches nothing,
 * and the buffered keys searched are the non-NULL ones only.
 *
 * The extreme key is the last sorted non-NULL buffered key (DataFusion's `matchable_rows`): every
 * match set is a suffix of the sorted keys, so a streamed row matches anything iff it matches
 * that one.
 */
import { ASC_NULLS_LAST, makeSortComparator } from '../../core/keys/order.ts';
import { orderedNumbers } from '../../core/keys/ordered-numbers.ts';
import { wordExtremes } from '../../core/keys/extremes.ts';
import { isBytesKey, type KeyColumn, type KeyComparator } from '../../core/keys/types.ts';
import type { MatchPredicate } from '../../core/pwmj-search.ts';
import type { RangeOp } from '../../core/types.ts';

/** The buffered side's non-NULL keys in sorted order, and the same as exact numbers if they are. */
export interface SortedKeys {
  readonly key: KeyColumn;
  readonly nums: Float64Array | null;
}

/** `SortedKeys` over `key` (already sorted, no NULLs). */
export function sortedKeys(key: KeyColumn): SortedKeys {
  return { key, nums: orderedNumbers(key, ASC_NULLS_LAST) };
}

/**
 * The buffered keys a streamed batch is compared with, and which of them are the ends of the sorted
 * order: `extreme` the last (a row matches anything iff it matches it), `first` the first (a row
 * that matches it matches every non-NULL key). Sorted: positions, `first` 0 and `extreme`
 * nonNull - 1. Before the sort: the unsorted column's rows holding those two keys.
 */
export interface BufferedKeys {
  readonly keys: SortedKeys;
  readonly extreme: number;
  readonly first: number;
}

const SIGN = 0x80000000 | 0;

/** Where a matcher may put its numbers (reused across batches), asked only when it needs them. */
export interface NumberScratch {
  nums(n: number): Float64Array;
}

/** A first-match predicate for one streamed row at a time (`row`), over sorted buffered positions. */
export interface StreamRowPredicate extends MatchPredicate {
  row: number;
}

// One class per operator over numbers, so `matches` is a single typed-array comparison.
class NumLt implements StreamRowPredicate {
  row = 0;
  constructor(
    private readonly b: Float64Array,
    private readonly s: Float64Array,
  ) {}
  matches(i: number): boolean {
    return this.b[i]! < this.s[this.row]!;
  }
}
class NumLe implements StreamRowPredicate {
  row = 0;
  constructor(
    private readonly b: Float64Array,
    private readonly s: Float64Array,
  ) {}
  matches(i: number): boolean {
    return this.b[i]! <= this.s[this.row]!;
  }
}
class NumGt implements StreamRowPredicate {
  row = 0;
  constructor(
    private readonly b: Float64Array,
    private readonly s: Float64Array,
  ) {}
  matches(i: number): boolean {
    return this.b[i]! > this.s[this.row]!;
  }
}
class NumGe implements StreamRowPredicate {
  row = 0;
  constructor(
    private readonly b: Float64Array,
    private readonly s: Float64Array,
  ) {}
  matches(i: number): boolean {
    return this.b[i]! >= this.s[this.row]!;
  }
}

/** `b OP s` through the sort comparator: `compare(s, b)` > 0 means s sorts after b. */
class ComparatorPredicate implements StreamRowPredicate {
  row = 0;
  readonly #sign: number;
  readonly #strict: boolean;
  constructor(
    private readonly cmp: KeyComparator,
    op: RangeOp,
  ) {
    this.#sign = op === '<' || op === '<=' ? 1 : -1;
    this.#strict = op === '<' || op === '>';
  }
  matches(i: number): boolean {
    const c = this.cmp.compare(this.row, i) * this.#sign;
    return this.#strict ? c > 0 : c >= 0;
  }
}

/**
 * The comparisons of one streamed batch's key column against the buffered keys. The numbers and
 * the predicate are built on first use: a batch the prefilter rejects whole needs neither (for a
 * 64-bit integer key the prefilter compares the key words themselves).
 */
export class BatchMatcher {
  #predicate: StreamRowPredicate | null = null;
  /** The streamed keys as exact numbers (NULL = +Infinity); null when the comparator decides; undefined until asked. */
  #nums: Float64Array | null | undefined = undefined;
  readonly #nulls: Uint8Array | null;
  readonly #rows: number;
  readonly #buffered: SortedKeys;
  readonly #extreme: number;

  constructor(
    target: BufferedKeys,
    private readonly stream: KeyColumn,
    private readonly op: RangeOp,
    private readonly scratch?: NumberScratch,
  ) {
    const buffered = target.keys;
    if (buffered.key.length === 0) throw new RangeError('BatchMatcher needs a buffered side with a non-NULL key');
    this.#buffered = buffered;
    this.#extreme = target.extreme;
    this.#rows = stream.length;
    this.#nulls = stream.nulls;
  }

  #numbers(): Float64Array | null {
    if (this.#nums === undefined) this.#nums = this.#buffered.nums === null ? null : orderedNumbers(this.stream, ASC_NULLS_LAST, this.scratch?.nums(this.#rows));
    return this.#nums;
  }

  /** The first-match predicate (set its `row`, then ask positions of the buffered keys). */
  get predicate(): StreamRowPredicate {
    if (this.#predicate === null) {
      const nums = this.#numbers();
      const op = this.op;
      if (nums !== null) {
        const b = this.#buffered.nums!;
        this.#predicate = op === '<' ? new NumLt(b, nums) : op === '<=' ? new NumLe(b, nums) : op === '>' ? new NumGt(b, nums) : new NumGe(b, nums);
      } else {
        this.#predicate = new ComparatorPredicate(makeSortComparator([this.stream], [this.#buffered.key], [ASC_NULLS_LAST]), op);
      }
    }
    return this.#predicate;
  }

  /** Whether both sides compare as numbers (the typed-array path). */
  get numeric(): boolean {
    return this.#numbers() !== null;
  }

  /**
   * `mask[i] = 1` iff streamed row i is not NULL and matches the buffered extreme key (so matches
   * at least one buffered row), else 0, for every row; returns the number of ones.
   */
  matchable(mask: Uint8Array): number {
    const n = this.#rows;
    const ext = this.#extreme;
    const key = this.stream;
    if (this.#nums === undefined && !isBytesKey(key) && key.kind.width === 2 && (key.kind.order === 'int' || key.kind.order === 'uint')) {
      matchWords(key.words, (this.#buffered.key as typeof key).words, ext, key.kind.order === 'uint', this.op, mask, n);
    } else {
      const s = this.#numbers();
      if (s !== null) {
        const e = this.#buffered.nums![ext]!;
        switch (this.op) {
          case '<':
            for (let i = 0; i < n; i++) mask[i] = e < s[i]! ? 1 : 0;
            break;
          case '<=':
            for (let i = 0; i < n; i++) mask[i] = e <= s[i]! ? 1 : 0;
            break;
          case '>':
            for (let i = 0; i < n; i++) mask[i] = e > s[i]! ? 1 : 0;
            break;
          case '>=':
            for (let i = 0; i < n; i++) mask[i] = e >= s[i]! ? 1 : 0;
            break;
        }
      } else {
        const p = this.predicate;
        for (let i = 0; i < n; i++) {
          p.row = i;
          mask[i] = p.matches(ext) ? 1 : 0;
        }
      }
    }
    const nulls = this.#nulls;
    let count = 0;
    if (nulls === null) {
      for (let i = 0; i < n; i++) count += mask[i]!;
    } else {
      for (let i = 0; i < n; i++) {
        const m = mask[i]! & (nulls[i]! ^ 1);
        mask[i] = m;
        count += m;
      }
    }
    return count;
  }

  /**
   * The non-NULL streamed row whose match set contains every other row's — the largest key for
   * `<` / `<=`, the smallest for `>` / `>=` (the first such row on ties) — or -1 if every key is NULL.
   */
  extremeRow(): number {
    return extremeRowOf(this.stream, this.op === '<' || this.op === '<=', this.#nums);
  }
}

/**
 * The prefilter over 64-bit integer key words (2 per row, little-endian: low word unsigned, high
 * word signed, or unsigned for `uint`): `mask[i] = e OP' s[i]` against the buffered key at row
 * `ext` of `bw`, NULL rows included (the caller masks them).
 */
function matchWords(sw: Int32Array, bw: Int32Array, ext: number, unsigned: boolean, op: RangeOp, mask: Uint8Array, n: number): void {
  const flip = unsigned ? SIGN : 0; // unsigned order of a word = signed order of word ^ 2^31
  const eh = bw[2 * ext + 1]! ^ flip;
  const el = bw[2 * ext]! ^ SIGN;
  // s OP' e, high words first, then the low words as unsigned; one loop per operator
  switch (op) {
    case '<': // e < s
      for (let i = 0; i < n; i++) {
        const sh = sw[2 * i + 1]! ^ flip;
        mask[i] = sh > eh || (sh === eh && (sw[2 * i]! ^ SIGN) > el) ? 1 : 0;
      }
      break;
    case '<=':
      for (let i = 0; i < n; i++) {
        const sh = sw[2 * i + 1]! ^ flip;
        mask[i] = sh > eh || (sh === eh && (sw[2 * i]! ^ SIGN) >= el) ? 1 : 0;
      }
      break;
    case '>': // e > s
      for (let i = 0; i < n; i++) {
        const sh = sw[2 * i + 1]! ^ flip;
        mask[i] = sh < eh || (sh === eh && (sw[2 * i]! ^ SIGN) < el) ? 1 : 0;
      }
      break;
    case '>=':
      for (let i = 0; i < n; i++) {
        const sh = sw[2 * i + 1]! ^ flip;
        mask[i] = sh < eh || (sh === eh && (sw[2 * i]! ^ SIGN) <= el) ? 1 : 0;
      }
      break;
  }
}

/** The rows of the smallest and the largest key of `col` (first on ties; -1 when all NULL), in one pass where it can. */
export function extremeRowsOf(col: KeyColumn): { readonly min: number; readonly max: number } {
  if (!isBytesKey(col) && col.kind.order !== 'float') {
    const e = wordExtremes(col.words, col.kind.width, col.kind.order === 'uint', col.length, col.nulls);
    return e === null ? { min: -1, max: -1 } : { min: e.minRow, max: e.maxRow };
  }
  const nums = orderedNumbers(col, ASC_NULLS_LAST);
  return { min: extremeRowOf(col, false, nums), max: extremeRowOf(col, true, nums) };
}

/**
 * The first non-NULL row of `col` with the largest key (`wantMax`) or the smallest, in the sort
 * order; -1 when every row is NULL. `nums`: the column as exact numbers (`orderedNumbers`, NULL =
 * +Infinity), when it has them.
 */
export function extremeRowOf(col: KeyColumn, wantMax: boolean, nums?: Float64Array | null): number {
  const n = col.length;
  const nulls = col.nulls;
  if (nums === undefined) {
    if (!isBytesKey(col) && col.kind.order !== 'float') {
      // int / uint / bool / decimal words order as integers: one pass without a comparator
      const e = wordExtremes(col.words, col.kind.width, col.kind.order === 'uint', n, nulls);
      return e === null ? -1 : wantMax ? e.maxRow : e.minRow;
    }
    nums = orderedNumbers(col, ASC_NULLS_LAST);
  }
  let best = -1;
  if (nums !== null) {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (nulls !== null && nulls[i] === 1) continue;
      const x = nums[i]!;
      if (best < 0 || (wantMax ? x > v : x < v)) {
        best = i;
        v = x;
      }
    }
    return best;
  }
  const self = makeSortComparator([col], [col], [ASC_NULLS_LAST]);
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    if (best < 0) best = i;
    else {
      const c = self.compare(i, best);
      if (wantMax ? c > 0 : c < 0) best = i;
    }
  }
  return best;
}
