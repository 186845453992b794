/**
 * The bitwise existence stream (`smj.existence=bitwise`, the default): a sort-merge semi / anti /
 * mark join answered with one bit per outer row, never with (outer, inner) pairs.
 *
 * Without a residual filter an inner key group that exists matches every outer row of the group,
 * so the merge need not even keep the inner rows (`buffersInnerGroup(false)` is false) and marks
 * the group with one `setRange`. With a filter, each inner row is evaluated against the whole
 * outer group at once — several inner rows per filter call, up to BLOCK pairs — and each inner
 * row's results are packed into bits and ORed into the batch's bitset at the group's bit offset
 * (`Bitset.orRange`, 32 bits per step whatever the offset); a popcount over the group's bits after
 * each call stops the group as soon as every outer row has matched, so the rest of the inner group
 * (and its spill file) is never read. Once fewer than a quarter of the group's rows are unmatched,
 * only those rows are evaluated (listed with `nextClearBit`): the tail of a selective filter costs
 * what is left to find, not the group's size. DataFusion's `BitwiseSortMergeJoinStream`
 * (datafusion/physical-plan/src/joins/sort_merge_join/bitwise_stream.rs) is the model: per-batch
 * bitset, OR of filter results in u64 chunks, popcount for the early exit.
 */
import { Bitset } from '../../core/bitset.ts';
import type { CompiledFilter } from '../../core/expr/evaluate.ts';
import type { ExistenceOptions, ExistenceProbe, ExistenceStats, SmjExistenceStream } from '../../core/smj-existence.ts';
import type { RecordBatch } from 'apache-arrow';
import type { Side } from '../../core/types.ts';

/** Pairs per filter call. */
const BLOCK = 4096;

class BitwiseProbe implements ExistenceProbe {
  readonly stats: ExistenceStats = { pairsEvaluated: 0, pairsMaterialized: 0 };
  readonly #outerIdx = new Int32Array(BLOCK);
  readonly #innerIdx = new Int32Array(BLOCK);
  readonly #pass = new Uint8Array(BLOCK);
  readonly #rowBits = new Bitset(BLOCK);
  readonly #unmatched = new Int32Array(BLOCK);

  constructor(
    private readonly filter: CompiledFilter | null,
    private readonly outerSide: Side,
  ) {}

  match(outer: RecordBatch, outerStart: number, outerEnd: number, inner: RecordBatch, innerStart: number, innerEnd: number, matched: Bitset): boolean {
    const len = outerEnd - outerStart;
    if (len <= 0) return true;
    if (innerEnd <= innerStart) return matched.popcount(outerStart, outerEnd) === len;
    if (this.filter === null) {
      matched.setRange(outerStart, outerEnd);
      return true;
    }
    let remaining = len - matched.popcount(outerStart, outerEnd);
    let j = innerStart;
    while (remaining > 0 && j < innerEnd) {
      j = remaining * 4 >= len ? this.#dense(outer, outerStart, outerEnd, inner, j, innerEnd, matched) : this.#sparse(outer, outerStart, outerEnd, inner, j, innerEnd, matched);
      remaining = len - matched.popcount(outerStart, outerEnd);
    }
    return remaining === 0;
  }

  /** Inner rows from `j` against every outer row of the range, ORed in at the range's offset; returns the next inner row. */
  #dense(outer: RecordBatch, os: number, oe: number, inner: RecordBatch, j: number, ie: number, matched: Bitset): number {
    const width = Math.min(oe - os, BLOCK);
    const m = Math.max(1, Math.min(ie - j, Math.floor(BLOCK / width)));
    for (let a = os; a < oe; a += width) {
      const w = Math.min(width, oe - a);
      let n = 0;
      for (let t = 0; t < m; t++) {
        for (let r = 0; r < w; r++) {
          this.#outerIdx[n] = a + r;
          this.#innerIdx[n++] = j + t;
        }
      }
      const pass = this.#evaluate(outer, inner, n);
      for (let t = 0; t < m; t++) {
        this.#rowBits.setFromBytes(t === 0 ? pass : pass.subarray(t * w), w);
        matched.orRange(this.#rowBits, 0, a, w);
      }
    }
    return j + m;
  }

  /** Only the still-unmatched outer rows (at most BLOCK of them) against inner rows from `j`. */
  #sparse(outer: RecordBatch, os: number, oe: number, inner: RecordBatch, j: number, ie: number, matched: Bitset): number {
    const rows = this.#unmatched;
    let u = 0;
    for (let r = matched.nextClearBit(os); r !== -1 && r < oe && u < BLOCK; r = matched.nextClearBit(r + 1)) rows[u++] = r;
    const m = Math.max(1, Math.min(ie - j, Math.floor(BLOCK / u)));
    let n = 0;
    for (let t = 0; t < m; t++) {
      for (let k = 0; k < u; k++) {
        this.#outerIdx[n] = rows[k]!;
        this.#innerIdx[n++] = j + t;
      }
    }
    const pass = this.#evaluate(outer, inner, n);
    for (let k = 0; k < n; k++) if (pass[k] === 1) matched.set(this.#outerIdx[k]!);
    return j + m;
  }

  #evaluate(outer: RecordBatch, inner: RecordBatch, n: number): Uint8Array {
    this.stats.pairsEvaluated += n;
    const f = this.filter!;
    return this.outerSide === 'left'
      ? f.evaluate(outer, this.#outerIdx, inner, this.#innerIdx, n, this.#pass)
      : f.evaluate(inner, this.#innerIdx, outer, this.#outerIdx, n, this.#pass);
  }
}

export const bitwiseExistence: SmjExistenceStream = {
  name: 'bitwise',
  description: 'one bit per outer row: filter results ORed into a bitset a word at a time, a key group stops when a popcount says all matched',
  buffersInnerGroup: (hasFilter) => hasFilter,
  open: (options: ExistenceOptions) => new BitwiseProbe(options.filter, options.outerSide),
};
