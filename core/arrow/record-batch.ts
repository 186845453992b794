/**
 * A RecordBatch whose schema may name two columns alike.
 *
 * SQL results may repeat a column name (`SELECT 1 AS k, 'x' AS k`, `SELECT a.id, b.id`), but Arrow
 * JS's `new RecordBatch(schema, data)` passes the schema through `Schema.assign`, which merges
 * fields *by name*: the second `k` overwrites the first, so the batch's schema says Utf8 for an
 * Int32 column and `new Table(schema, [batch])` throws "Table and inner RecordBatch schemas must be
 * equivalent". `recordBatchOf` builds the batch and then puts back the schema and the struct Data
 * it was given, position for position. Without repeated names it is `new RecordBatch` unchanged.
 */
import { RecordBatch, type Data, type Schema, type Struct, type TypeMap } from 'apache-arrow';

/** Whether two fields of `schema` share a name (Arrow JS's name-keyed helpers then misbehave). */
export function hasDuplicateNames(schema: Schema): boolean {
  const seen = new Set<string>();
  for (const f of schema.fields) {
    if (seen.has(f.name)) return true;
    seen.add(f.name);
  }
  return false;
}

/** `new RecordBatch(schema, data)`, keeping `schema` and `data` as given when names repeat. */
export function recordBatchOf<T extends TypeMap>(schema: Schema<T>, data: Data<Struct<T>>): RecordBatch<T> {
  const batch = new RecordBatch(schema, data);
  if (!hasDuplicateNames(schema)) return batch;
  if (data.children.length !== schema.fields.length) throw new Error(`recordBatchOf: ${schema.fields.length} fields but ${data.children.length} columns`);
  const b = batch as { schema: Schema<T>; data: Data<Struct<T>> };
  b.schema = schema;
  b.data = data;
  return batch;
}
