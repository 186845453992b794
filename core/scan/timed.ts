/**
 * The time a scan spends producing its output, without the consumer's: `elapsedMs` of
 * `ScanMetrics` counts from each resumption of the scan to its next yield, and not from a yield to
 * the consumer asking for more (a join probing a batch is the join's time, not the scan's). Every
 * scan needs that bookkeeping around its loop — the memory scan's batches and morsels
 * (operators/), the Parquet scan's (adapters/io) — so it is written once here, in core/, which all
 * of them may import, and a scan writes its loop without it.
 *
 * Degenerate cases: a scan that throws still counts the time up to the throw; a consumer that
 * stops early (`return()` on the generator) closes the inner loop, whose time after its last yield
 * is not counted (it did not resume).
 */
import type { ScanMetrics } from '../metrics.ts';

/** `inner`'s items, adding the time spent inside `inner` (not in the consumer) to `metrics.elapsedMs`. */
export async function* timedScan<T>(metrics: ScanMetrics, inner: AsyncIterable<T>): AsyncGenerator<T> {
  let t0 = performance.now();
  let inScan = true;
  try {
    for await (const item of inner) {
      metrics.elapsedMs += performance.now() - t0;
      inScan = false;
      yield item;
      inScan = true;
      t0 = performance.now();
    }
  } finally {
    if (inScan) metrics.elapsedMs += performance.now() - t0;
  }
}
