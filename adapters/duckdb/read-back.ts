/**
 * What a written output file holds, as DuckDB reads it: `--compare` with `--out` checks the file
 * against DuckDB's answer, not the table in memory, so a writer that changes a value (a leading
 * U+FEFF dropped, NULL written as `""`) is a reported difference, not a silent one.
 *
 * By format (adapters/io's `formatOf`):
 * - Parquet: `read_parquet(path)`.
 * - CSV: `read_csv` with the dialect csv.ts writes stated, not sniffed (`,`, `"` quoting and
 *   escaping, a header line whose names are used), `allow_quoted_nulls=false` (an empty unquoted
 *   field is NULL, `""` is the empty string) and the column types the file was written from
 *   (`schema`, mapped as the DuckDB loader maps them), since CSV text carries no types.
 * DuckDB renames a repeated column name (`k`, `k` -> `k`, `k_1`; case-insensitively); that
 * renaming, and only it, is undone, so a file with two columns `k` compares equal to a result with
 * two columns `k`.
 * - Arrow IPC: DuckDB reads IPC only through an extension this build does not load, so the file
 *   is read by Arrow JS (adapters/io, the same reader as any Arrow input) and its table is what
 *   the file holds; it is not passed through DuckDB, whose loader (like any table) cannot hold two
 *   columns of the same name.
 */
import type * as arrow from 'apache-arrow';
import { makeData, Schema, Struct, Table } from 'apache-arrow';
import { recordBatchOf } from '../../core/arrow/record-batch.ts';
import { quoteString } from '../../core/expr/sql.ts';
import { formatOf, readTable } from '../io/index.ts';
import { duckdbTypesFor, type DuckDBSession } from './session.ts';

/** The SQL that reads the CSV file csv.ts wrote from `schema` back with the same column types. */
export function readCsvSql(path: string, schema: arrow.Schema): string {
  const cols = duckdbTypesFor(schema);
  const types = cols.map((c) => quoteString(c.sql)).join(', ');
  return (
    `SELECT * FROM read_csv(${quoteString(path)}, header = true, delim = ',', quote = '"', escape = '"', ` +
    `allow_quoted_nulls = false, auto_detect = true, types = [${types}])`
  );
}

/** The table in the file at `path` (written from `schema`), read by its format (see above). */
export async function readWrittenFile(duck: DuckDBSession, path: string, schema: arrow.Schema): Promise<arrow.Table> {
  switch (formatOf(path)) {
    case 'parquet':
      return renamed(await duck.query(`SELECT * FROM read_parquet(${quoteString(path)})`), schema);
    case 'csv':
      return renamed(await duck.query(readCsvSql(path, schema)), schema);
    case 'arrow':
      return readTable(path);
  }
}

/** `table` with DuckDB's renaming of repeated names (`k_1` for a second `k`) undone where `schema` repeats them. */
function renamed(table: arrow.Table, schema: arrow.Schema): arrow.Table {
  const fields = table.schema.fields;
  if (fields.length !== schema.fields.length) return table;
  const seen = new Set<string>();
  let changed = false;
  const names = fields.map((f, i) => {
    const want = schema.fields[i]!.name;
    const dedup = seen.has(want.toLowerCase()) && f.name.length > want.length + 1 && f.name.toLowerCase().startsWith(`${want.toLowerCase()}_`) && /^_\d+$/.test(f.name.slice(want.length));
    seen.add(want.toLowerCase());
    if (dedup) changed = true;
    return dedup ? want : f.name;
  });
  if (!changed) return table;
  const out = new Schema(fields.map((f, i) => f.clone({ name: names[i]! })), table.schema.metadata);
  return new Table(out, table.batches.map((b) => recordBatchOf(out, makeData({ type: new Struct(out.fields), length: b.numRows, nullCount: 0, children: b.data.children }))));
}
