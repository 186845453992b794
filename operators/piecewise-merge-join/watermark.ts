/**
 * `minMarked`: the set of matched buffered rows of a piecewise merge join as one index.
 *
 * Every streamed row's matches are a suffix `[k, nonNull)` of the sorted buffered side (plan.ts),
 * so the union of everything any streamed row matched is `[min k, nonNull)`: one integer records
 * it exactly, where a hash or nested-loop join keeps one bit per buffered row and sets a bit per
 * match. The watermark starts at `nonNull` (nothing matched) and is only ever lowered; a reader
 * that sees a stale (higher) value searches a wider range than it had to, never a narrower one,
 * so no ordering between partitions is needed for a correct answer — only that every lowering
 * lands. DataFusion keeps it as an `AtomicUsize` lowered with `fetch_min` in the shared buffered
 * data (piecewise_merge_join/classic_join.rs, existence_join.rs).
 *
 * It lives in an `Int32Array` over a `SharedArrayBuffer`, lowered with a compare-exchange loop
 * (`Atomics` has no fetch-min), so the same object works across worker threads: hand `buffer` to
 * a worker and `attach` it there. A second cell counts the streamed partitions still running; the
 * one whose `finishPartition` brings it to zero is the last, and emits what depends on the final
 * watermark (the unmatched buffered rows, or the semi / anti / mark answer). On worker threads
 * (parallel.ts) every worker attaches and lowers it but none finishes: the count is 1, the main
 * thread's, which finishes once every worker has closed its session.
 *
 * Buffered sides hold fewer than 2^31 rows (global row indices are 32-bit everywhere in joinlab).
 */
const MIN_MARKED = 0;
const RUNNING = 1;

export class MinMarkedWatermark {
  readonly buffer: SharedArrayBuffer;
  readonly #cells: Int32Array;

  private constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.#cells = new Int32Array(buffer, 0, 2);
  }

  /** A new watermark at `initial` (the buffered side's non-NULL row count) for `partitions` partitions. */
  static create(initial: number, partitions: number): MinMarkedWatermark {
    if (!Number.isInteger(initial) || initial < 0 || initial > 0x7fffffff) throw new RangeError(`watermark start ${initial} is not a row count`);
    if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`watermark needs at least one partition, got ${partitions}`);
    const w = new MinMarkedWatermark(new SharedArrayBuffer(8));
    Atomics.store(w.#cells, MIN_MARKED, initial);
    Atomics.store(w.#cells, RUNNING, partitions);
    return w;
  }

  /** The watermark another thread created, over its `buffer`. */
  static attach(buffer: SharedArrayBuffer): MinMarkedWatermark {
    return new MinMarkedWatermark(buffer);
  }

  get value(): number {
    return Atomics.load(this.#cells, MIN_MARKED);
  }

  /** Lowers the watermark to `k` if it is above; true when this call lowered it. */
  lower(k: number): boolean {
    const cells = this.#cells;
    let seen = Atomics.load(cells, MIN_MARKED);
    while (k < seen) {
      const was = Atomics.compareExchange(cells, MIN_MARKED, seen, k);
      if (was === seen) return true;
      seen = was; // another partition moved it first: retry against its value
    }
    return false;
  }

  /** Partitions that have not finished yet. */
  get running(): number {
    return Atomics.load(this.#cells, RUNNING);
  }

  /** Marks one partition finished; true for the last one (which emits the final answer). */
  finishPartition(): boolean {
    const before = Atomics.sub(this.#cells, RUNNING, 1);
    if (before < 1) throw new RangeError('more partitions finished than were started');
    return before === 1;
  }
}
