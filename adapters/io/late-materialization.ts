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
 * With a page index, the other columns are narrowed further: to the pages that hold a surviving
 * row (survivors closer than SURVIVOR_GAP rows read as one range), decoded by the page-selective
 * reader, and the survivors gathered from both halves by their positions — so a selective filter
 * decodes few pages of the wide columns even inside a row group it keeps.
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

// ---- narrowing the other columns to the pages that hold surviving rows -----------------------------

/** Rows of a row group as [start, end) pairs (parquet-page-select.ts's RowRanges). */
type Ranges = readonly number[];

/** Surviving rows closer than this are read as one range (a page is thousands of rows anyway). */
export const SURVIVOR_GAP = 1024;

/** The positions, over `batches` concatenated, that `selections` keep (null: all of a batch's rows). */
export function keptPositions(batches: readonly RecordBatch[], selections: readonly (Int32Array | null)[], kept: number): Int32Array {
  const out = new Int32Array(kept);
  let n = 0;
  let base = 0;
  for (let i = 0; i < batches.length; i++) {
    const sel = selections[i]!;
    const rows = batches[i]!.numRows;
    if (sel === null) for (let j = 0; j < rows; j++) out[n++] = base + j;
    else for (let j = 0; j < sel.length; j++) out[n++] = base + sel[j]!;
    base += rows;
  }
  return out;
}

/**
 * The row numbers, per row group, of `positions` (ascending) over the concatenation of the row
 * groups' covered ranges (`cover[k]`, in order): which rows of which row group survived.
 */
export function survivorRows(cover: readonly Ranges[], positions: Int32Array): Int32Array[] {
  const out: Int32Array[] = [];
  let p = 0;
  let base = 0;
  for (const ranges of cover) {
    let size = 0;
    for (let i = 0; i < ranges.length; i += 2) size += ranges[i + 1]! - ranges[i]!;
    let end = p;
    while (end < positions.length && positions[end]! < base + size) end++;
    const rows = new Int32Array(end - p);
    // walk the ranges alongside the (ascending) positions
    let r = 0;
    let before = 0; // covered rows before range r
    for (let j = p; j < end; j++) {
      const at = positions[j]! - base;
      while (at >= before + ranges[r + 1]! - ranges[r]!) {
        before += ranges[r + 1]! - ranges[r]!;
        r += 2;
      }
      rows[j - p] = ranges[r]! + (at - before);
    }
    out.push(rows);
    p = end;
    base += size;
  }
  return out;
}

/** Ascending rows as ranges, rows less than `gap` apart merged into one. */
export function rowsToRanges(rows: Int32Array, gap: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    if (out.length > 0 && r - out[out.length - 1]! < gap) out[out.length - 1] = r + 1;
    else out.push(r, r + 1);
  }
  return out;
}

/** Writes, from `out[at]`, the position of each of `rows` (ascending, inside `ranges`) over `ranges` concatenated, plus `base`. */
export function positionsIn(ranges: Ranges, rows: Int32Array, base: number, out: Int32Array, at: number): void {
  let r = 0;
  let before = 0;
  for (let j = 0; j < rows.length; j++) {
    const row = rows[j]!;
    while (row >= ranges[r + 1]!) {
      before += ranges[r + 1]! - ranges[r]!;
      r += 2;
    }
    out[at + j] = base + before + (row - ranges[r]!);
  }
}
