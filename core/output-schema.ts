/**
 * The output schema of a join, shared by every operator and by the DuckDB SQL builder so both
 * name columns identically:
 * - inner/left/right/full: left's columns then right's; a right column whose name is already
 *   taken gets `_right` appended (repeatedly, until unique);
 * - semi/anti: that side's columns; mark: that side's columns plus a non-null boolean `mark`.
 * Columns that an outer join can pad with NULLs become nullable.
 */
import { Bool, DataType, Dictionary, Field, Schema } from 'apache-arrow';
import { isMarkJoin, keepsUnmatched, outputSides, type JoinType } from './types.ts';

export const MARK_COLUMN = 'mark';

/** Output names for left columns followed by right columns, with `_right` de-duplication. */
export function outputColumnNames(leftCols: readonly string[], rightCols: readonly string[]): string[] {
  const taken = new Set(leftCols);
  const out = [...leftCols];
  for (const name of rightCols) {
    let n = name;
    while (taken.has(n)) n = `${n}_right`;
    taken.add(n);
    out.push(n);
  }
  return out;
}

function renamed(f: Field, name: string, nullable: boolean, freshDictionary = false): Field {
  const t = f.type;
  // Arrow dictionary ids must be unique within a schema; inputs from two files can collide.
  const type = freshDictionary && DataType.isDictionary(t) ? new Dictionary(t.dictionary, t.indices, undefined, t.isOrdered) : t;
  return new Field(name, type, nullable || f.nullable, f.metadata);
}

export function joinOutputSchema(type: JoinType, left: Schema, right: Schema): Schema {
  const sides = outputSides(type);
  if (sides !== 'both') {
    const s = sides === 'left' ? left : right;
    const fields = s.fields.map((f) => renamed(f, f.name, false));
    if (isMarkJoin(type)) fields.push(new Field(MARK_COLUMN, new Bool(), false));
    return new Schema(fields);
  }
  const names = outputColumnNames(
    left.fields.map((f) => f.name),
    right.fields.map((f) => f.name),
  );
  const leftNullable = keepsUnmatched(type, 'right');
  const rightNullable = keepsUnmatched(type, 'left');
  return new Schema([
    ...left.fields.map((f, i) => renamed(f, names[i]!, leftNullable, true)),
    ...right.fields.map((f, i) => renamed(f, names[left.fields.length + i]!, rightNullable, true)),
  ]);
}
