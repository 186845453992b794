/**
 * A scan's row filter applied to a decoded batch: which columns must be decoded for it
 * (`neededColumns`: the requested ones ∪ the predicate's) and the batch after it
 * (`filterAndProject`: the rows it keeps, the requested columns). Shared by the memory scan
 * (operators/) and the Parquet scan (adapters/io) so that both filter exactly alike — experiments
 * compare them — which is why it lives in core/, the layer both may import.
 *
 * Rows are gathered only when the filter actually drops some; otherwise the batch is passed
 * through, projected and zero-copy.
 */
import type { RecordBatch } from 'apache-arrow';
import { MissingColumnError } from '../errors.ts';
import { projectBatch, takeRows } from './batch-shape.ts';
import type { ScanPredicate } from './scan.ts';

/** Apply the row filter and the projection; gathers only when the filter drops rows. */
export function filterAndProject(
  batch: RecordBatch,
  predicate: ScanPredicate | null,
  columns: readonly string[],
  where: string,
): RecordBatch {
  const sel = predicate ? predicate.selectRows(batch) : null;
  if (sel !== null && sel.length > batch.numRows) {
    throw new Error(`filter ${predicate!.description}: selectRows returned ${sel.length} rows of ${batch.numRows}`);
  }
  const projected = projectBatch(batch, columns, where);
  if (sel === null || sel.length === batch.numRows) return projected;
  return takeRows(projected, sel);
}

/** `columns` ∪ the predicate's columns, each checked against the schema. */
export function neededColumns(
  columns: readonly string[],
  predicate: ScanPredicate | null,
  available: readonly string[],
  where: string,
): readonly string[] {
  if (!predicate || predicate.columns.length === 0) return columns;
  let out: string[] | null = null;
  for (const c of predicate.columns) {
    if (!available.includes(c)) throw new MissingColumnError(c, where, available);
    if (!columns.includes(c) && !(out ?? []).includes(c)) (out ??= columns.slice()).push(c);
  }
  return out ?? columns;
}
