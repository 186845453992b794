/**
 * `writeSortedParquet`: a table written as Parquet in a given order, with that order declared in
 * the footer (`sorting_columns` in every row group), for tests and benchmarks of what consumes
 * `Scan.sortedOn` (the sort-merge join). The rows are sorted first — stably, in DuckDB's order of
 * each column's type (core/keys/order.ts), so ties keep their input order — and the writer
 * checks them against the declaration as it writes (parquet-write.ts), so the file never
 * declares an order its rows do not have. Read back, `ParquetScan.sortedOn` is the declared
 * order: consecutive row groups of sorted rows cannot overlap.
 *
 * In memory: the table, one normalised key column per sort column and the permutation; the sorted
 * copy is gathered a batch at a time as the writer pulls it.
 */
import { type RecordBatch, type Table } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { UsageError } from '../../core/errors.ts';
import { argsortKeys } from '../../core/keys/argsort.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import type { ScanSortColumn } from '../../core/scan/scan.ts';
import { resolveSortedOn, type SortColumnInput } from '../../core/scan/sort-order.ts';
import { writeParquetBatches, type ParquetWriteOptions } from '../io/parquet.ts';

/** Rows per batch handed to the writer (the writer groups them into `rowGroupSize` row groups). */
const BATCH_ROWS = 1 << 16;

/**
 * Writes `table` sorted on `sortedOn` (flags default to ASC NULLS LAST) to `path`, atomically,
 * declaring the order in the footer. `options` as for `writeParquetFile` (row-group size,
 * compression). Returns the order declared, as `ParquetScan.sortedOn` will read it back.
 */
export async function writeSortedParquet(
  path: string,
  table: Table,
  sortedOn: readonly SortColumnInput[],
  options: Omit<ParquetWriteOptions, 'sortedOn'> = {},
): Promise<readonly ScanSortColumn[]> {
  const order = resolveSortedOn(table.schema, sortedOn, path);
  if (order === undefined) throw new UsageError(`writeSortedParquet(${path}): sortedOn names no column`);
  await writeParquetBatches(path, table.schema, sortedBatches(table, order), { ...options, sortedOn: order });
  return order;
}

/** The rows of `table` in `order` (stable), `BATCH_ROWS` a batch. */
export function* sortedBatches(table: Table, order: readonly ScanSortColumn[]): Generator<RecordBatch> {
  const n = table.numRows;
  if (n === 0) return;
  const keys = order.map((c) => {
    const field = table.schema.fields.find((f) => f.name === c.column)!;
    return normalizeKeyColumn(table.getChild(c.column)!, keyKindOf(field.type, c.column), c.column);
  });
  const perm = argsortKeys(keys, order);
  keys.length = 0;
  const src = new RowSource(table.batches, table.schema);
  for (let start = 0; start < n; start += BATCH_ROWS) {
    const count = Math.min(BATCH_ROWS, n - start);
    yield makeRecordBatch(table.schema, gatherColumns(src, perm, start, count), count);
  }
}
