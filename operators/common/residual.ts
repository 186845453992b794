/**
 * The residual filter over candidate pairs, for any join that finds pairs by its keys first (hash,
 * sort-merge, piecewise merge) and then tests the rest of the ON clause on them.
 *
 * A `CompiledFilter` is written in (left, right) order; an operator holds its pairs as two
 * parallel row-id arrays named by its own roles (probe/build, outer/inner). `evaluatePairs` is the
 * one place that turns a role order back into (left, right): `first` is the side `firstSide`, the
 * other array the other side. Pairs are always evaluated a block at a time (vectorised, like
 * every filter evaluation), never per row.
 *
 * - `evaluatePairs` + `keepPassingPairs`: the pairs a probe found, compacted in place to those the
 *   filter passes (row order kept), as inner/outer joins and semi/anti/mark matching need.
 * - `PairEvaluator`: every (outer row, inner row) pair of two row lists, in blocks of `BLOCK`
 *   pairs — for the facts no key lookup can give, e.g. NOT IN's "does a NULL-key inner row pass
 *   the filter with o" (operators/hash-join/not-in.ts). Quadratic by design: callers feed it only
 *   the rows that could matter (the NULL keys).
 *
 * Degenerate cases: `PairEvaluator` never calls the filter with zero pairs (an empty row list on
 * either side costs nothing); a filter that is NULL for a pair does not pass it (SQL's WHERE).
 */
import type { RecordBatch } from 'apache-arrow';
import type { CompiledFilter } from '../../core/expr/evaluate.ts';
import type { Side } from '../../core/types.ts';

/** Pairs evaluated per filter call by `PairEvaluator`. */
const BLOCK = 4096;

/**
 * The filter over `n` pairs (`first[firstIdx[k]]`, `second[secondIdx[k]]`), `first` being the
 * rows of join side `firstSide`: 1 per passing pair (into `out` when given, else a new array).
 */
export function evaluatePairs(
  filter: CompiledFilter,
  firstSide: Side,
  first: RecordBatch,
  firstIdx: Int32Array,
  second: RecordBatch,
  secondIdx: Int32Array,
  n: number,
  out?: Uint8Array,
): Uint8Array {
  return firstSide === 'left' ? filter.evaluate(first, firstIdx, second, secondIdx, n, out) : filter.evaluate(second, secondIdx, first, firstIdx, n, out);
}

/**
 * Compacts the first `n` pairs (`firstIdx[k]`, `secondIdx[k]`) in place to those with
 * `pass[k] === 1` (as `evaluatePairs` returns), keeping their order; returns how many.
 */
export function keepPassingPairs(pass: Uint8Array, firstIdx: Int32Array, secondIdx: Int32Array, n: number): number {
  let w = 0;
  for (let k = 0; k < n; k++) {
    if (pass[k] === 1) {
      firstIdx[w] = firstIdx[k]!;
      secondIdx[w++] = secondIdx[k]!;
    }
  }
  return w;
}

/** Evaluates `filter` over all pairs (outer row, inner row) of two row lists, oriented by side. */
export class PairEvaluator {
  readonly #outerIdx = new Int32Array(BLOCK);
  readonly #innerIdx = new Int32Array(BLOCK);
  readonly #pass = new Uint8Array(BLOCK);
  #n = 0;

  constructor(
    readonly filter: CompiledFilter,
    /** Which join side the outer rows come from. */
    readonly outerSide: Side,
  ) {}

  /**
   * Tests outer rows `outer` against inner rows `inner` of one inner batch, all pairs, calling
   * `onPass(outerRow)` for each pair that passes; `skip(outerRow)` drops outer rows already decided.
   */
  cross(
    outerBatch: RecordBatch,
    outer: Int32Array,
    innerBatch: RecordBatch,
    inner: Int32Array,
    skip: (row: number) => boolean,
    onPass: (row: number) => void,
  ): void {
    for (let a = 0; a < outer.length; a++) {
      const o = outer[a]!;
      if (skip(o)) continue;
      for (let b = 0; b < inner.length; b++) {
        this.#outerIdx[this.#n] = o;
        this.#innerIdx[this.#n] = inner[b]!;
        if (++this.#n === BLOCK) this.#flush(outerBatch, innerBatch, onPass);
      }
    }
    this.#flush(outerBatch, innerBatch, onPass);
  }

  #flush(outerBatch: RecordBatch, innerBatch: RecordBatch, onPass: (row: number) => void): void {
    const n = this.#n;
    if (n === 0) return;
    this.#n = 0;
    const pass = evaluatePairs(this.filter, this.outerSide, outerBatch, this.#outerIdx, innerBatch, this.#innerIdx, n, this.#pass);
    for (let k = 0; k < n; k++) if (pass[k] === 1) onPass(this.#outerIdx[k]!);
  }
}
