/**
 * The output schema of a join, shared by every operator and by the DuckDB SQL builder so both
 * name columns identically:
 * - inner/left/right/full: left's columns then right's; a right column whose name is already
 *   taken gets `_right` appended (repeatedly, until unique);
 * - semi/anti: that side's columns; mark: that side's columns plus a non-null boolean `mark`.
 * Columns that an outer join can pad with NULLs become nullable.
 *
 * A `select` list (JoinSpec.select) then keeps some of those columns, by output name, in its own
 * order: the `OutputShape` says, per output column, which input column (or the mark) fills it, so
 * operators gather only those and the engine reads only the input columns something needs.
 */
import { Bool, DataType, Dictionary, Field, Schema } from 'apache-arrow';
import { MissingColumnError } from './errors.ts';
import { isMarkJoin, keepsUnmatched, outputSides, type JoinSpec, type JoinType } from './types.ts';

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

/** Where one output column comes from: an input column of one side (by name), or the mark. */
export interface OutputColumn {
  readonly from: 'left' | 'right' | 'mark';
  /** The input column's name (`mark` for the mark column). */
  readonly name: string;
}

/** The output of a join: its schema and, per output column, its source. */
export interface OutputShape {
  readonly schema: Schema;
  readonly columns: readonly OutputColumn[];
}

/**
 * The output shape of `spec` over two input schemas: every output column, or the `spec.select`
 * ones in that order (an unknown name is a MissingColumnError listing the output columns).
 */
export function outputShape(spec: JoinSpec, left: Schema, right: Schema): OutputShape {
  const full = joinOutputSchema(spec.type, left, right);
  const sides = outputSides(spec.type);
  const sources: OutputColumn[] =
    sides === 'both'
      ? [...left.fields.map((f): OutputColumn => ({ from: 'left', name: f.name })), ...right.fields.map((f): OutputColumn => ({ from: 'right', name: f.name }))]
      : (sides === 'left' ? left : right).fields.map((f): OutputColumn => ({ from: sides, name: f.name }));
  if (isMarkJoin(spec.type)) sources.push({ from: 'mark', name: MARK_COLUMN });
  if (spec.select === undefined) return { schema: full, columns: sources };
  const names = full.fields.map((f) => f.name);
  const picked = spec.select.map((name) => {
    const i = names.indexOf(name);
    if (i < 0) throw new MissingColumnError(name, `the ${spec.type} join's output (--select)`, names);
    return i;
  });
  return { schema: new Schema(picked.map((i) => full.fields[i]!), full.metadata), columns: picked.map((i) => sources[i]!) };
}
