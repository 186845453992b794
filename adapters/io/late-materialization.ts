/**
 * Late materialization for the Parquet scan: the columns a filter reads are decoded first, its
 * row test runs on them, and the scan's other columns are decoded only for a run of row groups
 * where some row survived. A run the filter empties never has those columns read or decoded — the
 * bytes and rows saved are counted (`ScanMetrics.rowsNotDecoded`, `bytesNotDecoded`).
 *
 * DuckDB does this inside its Parquet reader (filter columns first, then the rest only for the
 * kept rows: extension/parquet/parquet_reader.cpp, `ParquetReader::Scan` with its filter
 * pushdown), DataFusion through arrow-rs's `RowFilter` (predicate columns decoded first, a
 * `RowSelection` for the projection). Here the granularity is the decode run (one row group on
 * typical files): the decoder behind parquet-file.ts decodes whole column chunks, so a row group
 * with one survivor still decodes its other columns whole; where a page index is available, the
 * kept rows' pages are the finer unit.
 *
 * Invariants: the filter only ever says "maybe" (a row it keeps may still fail later; a row it
 * drops cannot match), so skipping the other columns of a run with no kept row never drops a row;
 * both decodes of a run use the same row groups and batch size, so their batches line up one for
 * one (checked: a mismatch decodes the run again with every column, never zips misaligned rows).
 */
import { makeData, RecordBatch, Schema, Struct, type Data, type Field } from 'apache-arrow';
import type { ScanPredicate } from '../../core/scan/scan.ts';

/**
 * The run's columns split into the filter's and the others — null when late materialization has
 * nothing to gain (no filter, a filter without a row test's columns, or one that reads them all).
 */
export function splitColumns(predicate: ScanPredicate | null, runColumns: readonly string[]): { readonly first: string[]; readonly rest: string[] } | null {
  if (predicate === null || predicate.columns.length === 0) return null;
  const first = runColumns.filter((c) => predicate.columns.includes(c));
  if (first.length !== predicate.columns.length) return null; // a column it reads is not decoded here: it keeps every row anyway
  const rest = runColumns.filter((c) => !predicate.columns.includes(c));
  return rest.length === 0 ? null : { first, rest };
}

/** One batch with the columns of `a` then those of `b` (same rows, zero-copy); null if the row counts differ. */
export function zipBatches(a: RecordBatch, b: RecordBatch): RecordBatch | null {
  if (a.numRows !== b.numRows) return null;
  const fields: Field[] = [...a.schema.fields, ...b.schema.fields];
  const children: Data[] = [...a.data.children, ...b.data.children];
  return new RecordBatch(new Schema(fields, a.schema.metadata), makeData({ type: new Struct(fields), length: a.numRows, nullCount: 0, children }));
}
