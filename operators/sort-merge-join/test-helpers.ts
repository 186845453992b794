/**
 * Test inputs for the sort-merge join: scans over exactly the given batches (empty ones included,
 * optionally declaring an order) and random slicings of a table, so key groups are cut at random
 * batch boundaries.
 */
import * as arrow from 'apache-arrow';
import { CancelledError } from '../../core/errors.ts';
import { newScanMetrics } from '../../core/metrics.ts';
import type { Rng } from '../../core/random.ts';
import type { Scan, ScanSortColumn } from '../../core/scan/scan.ts';
import { projectBatch } from '../../core/scan/batch-shape.ts';

/** A scan over exactly these batches (empty ones included), optionally declaring an order. */
export function slicedScan(batches: readonly arrow.RecordBatch[], schema: arrow.Schema, name: string, sortedOn?: readonly ScanSortColumn[]): Scan {
  return {
    source: `memory:${name}`,
    schema,
    numRows: batches.reduce((n, b) => n + b.numRows, 0),
    numContainers: batches.length,
    metrics: newScanMetrics(),
    sortedOn,
    async *batches(options = {}) {
      for (const b of batches) {
        // as the memory scan does: an abort is a CancelledError, whatever reason the signal carries
        if (options.signal?.aborted) throw new CancelledError(`scan of memory:${name} cancelled`);
        if (options.columns === undefined) yield b;
        else yield projectBatch(b, options.columns);
      }
    },
  };
}

/** `table`'s rows cut at random points into batches, with empty batches between some of them. */
export function randomSlices(table: arrow.Table, rng: Rng): arrow.RecordBatch[] {
  const whole = table.batches.length === 1 ? table.batches[0]! : new arrow.Table(table.schema, table.batches).batches[0]!;
  const out: arrow.RecordBatch[] = [];
  let at = 0;
  while (at < whole.numRows) {
    if (rng.chance(0.15)) out.push(whole.slice(at, at));
    const n = Math.min(whole.numRows - at, rng.int(1, 120));
    out.push(whole.slice(at, at + n));
    at += n;
  }
  if (rng.chance(0.5)) out.push(whole.slice(at, at));
  return out;
}

