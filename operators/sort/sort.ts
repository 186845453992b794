/**
 * The sort operator, in memory: every row of a scan in the order of its sort keys (ORDER BY k1
 * [ASC|DESC] [NULLS FIRST|LAST], …), emitted in `batchSize` batches. Stable: rows with equal keys
 * keep their input order, so a sort by (a) after a sort by (b) is a sort by (a, b), and DuckDB's
 * `ORDER BY …, rowid` is the reference order in the tests.
 *
 * How: the input is drained under the run's pool (each batch reserved before it is kept); each
 * key column is normalised once over all batches (core/keys/normalize.ts, the same words the
 * joins compare), so the order of every type is the one `core/keys/order.ts` defines — DuckDB's:
 * -0.0 = 0.0, NaN above every number, NULLs first or last whatever the direction. The row order
 * is one `argsortKeys` (a radix sort over fixed-width keys, a typed-array merge sort otherwise —
 * no comparator closure per row pair, no `Array.prototype.sort`), and the output is gathered from
 * the kept batches by index, a batch at a time, under the gather's allocation guard.
 *
 * Degenerate cases: an empty input yields no batch; no sort keys is refused (a typed
 * `UsageError`), as is a key column the input does not have (`MissingColumnError`) or a type
 * no key order exists for (`UnsupportedTypeError`, from key resolution) — all before any row is
 * read.
 *
 * Not yet: past `memoryLimit` this sort fails with a `MemoryLimitError` naming it; sorted runs
 * spilled as Arrow IPC and k-way merged are the next step (issue 11), which keeps this module's
 * contract and metrics (runs and bytes spilled stay 0 here).
 */
import { Vector, type RecordBatch, type Schema } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { MissingColumnError, UsageError } from '../../core/errors.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import type { KeySortOrder } from '../../core/keys/order.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import { keyColumnBytes, type KeyColumn, type KeyKind } from '../../core/keys/types.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { collectScan } from '../common/collect.ts';

/** One sort key: a column of the input and its order (default ASC NULLS LAST, DuckDB's). */
export interface SortKey {
  readonly column: string;
  readonly descending?: boolean;
  readonly nullsFirst?: boolean;
}

export interface SortMetrics {
  rows: number;
  outputBatches: number;
  runsSpilled: number;
  bytesSpilled: number;
  peakReservedBytes: number;
}

export interface SortOptions {
  readonly pool: MemoryPool;
  /** Rows per output batch. */
  readonly batchSize: number;
  readonly signal?: AbortSignal;
  /** Filled while the output is consumed. */
  readonly metrics?: SortMetrics;
}

export function newSortMetrics(): SortMetrics {
  return { rows: 0, outputBatches: 0, runsSpilled: 0, bytesSpilled: 0, peakReservedBytes: 0 };
}

/** The sort keys resolved against a schema: column indices, key kinds and orders. */
export interface BoundSort {
  readonly columns: readonly string[];
  readonly kinds: readonly KeyKind[];
  readonly orders: readonly KeySortOrder[];
}

/** Checks `keys` against `schema` without reading data (typed errors, see the module doc). */
export function bindSort(schema: Schema, keys: readonly SortKey[], source = 'input'): BoundSort {
  if (keys.length === 0) throw new UsageError('a sort needs at least one sort key');
  const names = schema.fields.map((f) => f.name);
  const kinds = keys.map((k) => {
    const field = schema.fields.find((f) => f.name === k.column);
    if (field === undefined) throw new MissingColumnError(k.column, source, names);
    return keyKindOf(field.type, k.column);
  });
  return {
    columns: keys.map((k) => k.column),
    kinds,
    orders: keys.map((k) => ({ descending: k.descending === true, nullsFirst: k.nullsFirst === true })),
  };
}

/** The rows of `scan` in sort-key order, `options.batchSize` rows a batch. */
export async function* sortScan(scan: Scan, keys: readonly SortKey[], options: SortOptions): AsyncGenerator<RecordBatch> {
  const bound = bindSort(scan.schema, keys, scan.source);
  const metrics = options.metrics ?? newSortMetrics();
  const { pool } = options;
  if (!Number.isInteger(options.batchSize) || options.batchSize < 1) throw new RangeError(`sort batchSize must be a positive integer, got ${options.batchSize}`);
  const input = pool.reservation('sort input');
  const scratch = pool.reservation('sort keys');
  try {
    const batches = await collectScan(scan, input);
    options.signal?.throwIfAborted();
    const n = batches.reduce((s, b) => s + b.numRows, 0);
    if (n === 0) return;
    const keyCols: KeyColumn[] = bound.columns.map((name, k) => {
      const col = normalizeKeyColumn(new Vector(batches.map((b) => b.getChild(name)!.data[0]!)), bound.kinds[k]!, name);
      scratch.grow(keyColumnBytes(col));
      return col;
    });
    scratch.grow(4 * n);
    const order = argsortKeys(keyCols, bound.orders);
    keyCols.length = 0; // the gather needs only the order: the normalised keys are let go
    scratch.resize(order.byteLength);
    const src = new RowSource(batches, scan.schema);
    for (let start = 0; start < n; start += options.batchSize) {
      options.signal?.throwIfAborted();
      const count = Math.min(options.batchSize, n - start);
      const columns = gatherColumns(src, order, start, count, undefined, pool);
      metrics.rows += count;
      metrics.outputBatches++;
      metrics.peakReservedBytes = Math.max(metrics.peakReservedBytes, pool.peak);
      yield makeRecordBatch(scan.schema, columns, count);
    }
  } finally {
    metrics.peakReservedBytes = Math.max(metrics.peakReservedBytes, pool.peak);
    scratch.free();
    input.free();
  }
}
