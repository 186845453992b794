/**
 * The materializing existence stream (`smj.existence=materializing`): a semi / anti / mark join
 * answered the way an inner join would be, then reduced — every (outer, inner) pair of the key
 * group is written out as a pair of row ids, `batchSize` pairs at a time, the filter keeps the
 * passing pairs, and the pairs are de-duplicated into the outer rows' match bits.
 *
 * It is the baseline the bitwise stream (bitwise.ts) is measured against, and the design
 * DataFusion's sort-merge join used before its bitwise stream: its cost is the number of pairs
 * (10^8 for one key with 10,000 rows a side), with or without a filter, and it never stops a group
 * early. Same answers, by construction of the contract (core/smj-existence.ts): only the work
 * differs, which is what `joinlab` lets you measure on the same query.
 */
import type { RecordBatch } from 'apache-arrow';
import type { Bitset } from '../../core/bitset.ts';
import type { CompiledFilter } from '../../core/expr/evaluate.ts';
import type { ExistenceOptions, ExistenceProbe, ExistenceStats, SmjExistenceStream } from '../../core/smj-existence.ts';
import type { Side } from '../../core/types.ts';

class MaterializingProbe implements ExistenceProbe {
  readonly stats: ExistenceStats = { pairsEvaluated: 0, pairsMaterialized: 0 };
  readonly #outerIdx: Int32Array;
  readonly #innerIdx: Int32Array;
  readonly #pass: Uint8Array;

  constructor(
    private readonly filter: CompiledFilter | null,
    private readonly outerSide: Side,
    batchSize: number,
  ) {
    this.#outerIdx = new Int32Array(batchSize);
    this.#innerIdx = new Int32Array(batchSize);
    this.#pass = new Uint8Array(batchSize);
  }

  match(outer: RecordBatch, outerStart: number, outerEnd: number, inner: RecordBatch, innerStart: number, innerEnd: number, matched: Bitset): boolean {
    const cap = this.#outerIdx.length;
    let n = 0;
    for (let o = outerStart; o < outerEnd; o++) {
      for (let i = innerStart; i < innerEnd; i++) {
        this.#outerIdx[n] = o;
        this.#innerIdx[n] = i;
        if (++n === cap) n = this.#settle(outer, inner, n, matched);
      }
    }
    this.#settle(outer, inner, n, matched);
    return false;
  }

  /** Filters the `n` pairs written so far and de-duplicates the survivors into `matched`. */
  #settle(outer: RecordBatch, inner: RecordBatch, n: number, matched: Bitset): number {
    if (n === 0) return 0;
    this.stats.pairsMaterialized += n;
    let kept = n;
    const o = this.#outerIdx;
    if (this.filter !== null) {
      this.stats.pairsEvaluated += n;
      const pass =
        this.outerSide === 'left'
          ? this.filter.evaluate(outer, o, inner, this.#innerIdx, n, this.#pass)
          : this.filter.evaluate(inner, this.#innerIdx, outer, o, n, this.#pass);
      kept = 0;
      for (let k = 0; k < n; k++) {
        if (pass[k] === 1) {
          o[kept] = o[k]!;
          this.#innerIdx[kept++] = this.#innerIdx[k]!;
        }
      }
    }
    for (let k = 0; k < kept; k++) matched.set(o[k]!);
    return 0;
  }
}

export const materializingExistence: SmjExistenceStream = {
  name: 'materializing',
  description: 'builds the (outer, inner) pairs of each key group in batchSize chunks, filters them, de-duplicates into match bits (the baseline)',
  buffersInnerGroup: () => true,
  open: (options: ExistenceOptions) => new MaterializingProbe(options.filter, options.outerSide, options.batchSize),
};
