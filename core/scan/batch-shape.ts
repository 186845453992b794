/**
 * A decoded batch cut to what its consumer asked for: some of its columns (`projectBatch`,
 * zero-copy, the batch itself when nothing changes) or some of its rows (`takeRows`, through the
 * same columnar gather, core/arrow/gather.ts, that every join output uses). Every scan does both —
 * the memory scan (operators/), the file scans (adapters/io), the SQL scans over streams
 * (adapters/sql) — and operators reuse them for buffered sides, so they live in core/, which all
 * of those layers may import.
 *
 * A name that is not in the batch fails with `MissingColumnError` naming `where`; the row
 * indices must be in range (the gather's own contract).
 */
import { Data, makeData, RecordBatch, Schema, Struct, type Field } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../arrow/gather.ts';
import { MissingColumnError } from '../errors.ts';

/**
 * The batch restricted to `names`, in that order (zero-copy). A name the batch repeats (a SQL
 * result such as `SELECT * FROM a JOIN b` with a column on both sides) resolves occurrence by
 * occurrence: its second mention is the second column of that name (the first again when the
 * batch has only one), so projecting every name in order returns every column — never the first
 * `b` twice.
 */
export function projectBatch(batch: RecordBatch, names: readonly string[], where = 'batch'): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  const all = batch.schema.fields;
  let identity = names.length === all.length;
  const seen = new Map<string, number>();
  for (let j = 0; j < names.length; j++) {
    const name = names[j]!;
    const nth = seen.get(name) ?? 0;
    seen.set(name, nth + 1);
    let i = -1;
    for (let c = 0, found = 0; c < all.length; c++) {
      if (all[c]!.name !== name) continue;
      if (i < 0 || found === nth) i = c;
      if (found++ === nth) break;
    }
    if (i < 0) throw new MissingColumnError(names[j]!, where, all.map((f) => f.name));
    if (i !== j) identity = false;
    fields.push(all[i]!);
    children.push(batch.data.children[i]!);
  }
  if (identity) return batch;
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }));
}

/** The batch's rows `idx` (every column), through the same columnar gather the joins use. */
export function takeRows(batch: RecordBatch, idx: Int32Array): RecordBatch {
  return makeRecordBatch(batch.schema, gatherColumns(new RowSource([batch], batch.schema), idx, 0, idx.length), idx.length);
}
