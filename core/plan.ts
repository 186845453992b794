/**
 * Binding a join spec to two input schemas: every check that can fail on user input happens
 * here, once, before any data is read — missing key/filter columns, key types that cannot be
 * compared, a null-aware anti join with more than one key, an output column of a type the join
 * cannot carry into its output (a union: gather.ts says which types it copies) — so operators can
 * assume a valid plan. Such an output column is not a key (keys are refused as keys first), so the
 * error says `--select` can leave it out.
 *
 * The bound join carries the reconciled `KeyKind` per key pair (so both sides normalise to the
 * same representation), the compiled residual filter and the output schema.
 */
import type { Schema } from 'apache-arrow';
import { ungatherableReason } from './arrow/gather.ts';
import { MissingColumnError, UnsupportedJoinError, UnsupportedTypeError } from './errors.ts';
import { compileFilter, type CompiledFilter } from './expr/evaluate.ts';
import { resolveKeyKind } from './keys/resolve.ts';
import type { KeyKind } from './keys/types.ts';
import { outputShape, type OutputShape } from './output-schema.ts';
import { isAntiJoin, type JoinSpec, type Side } from './types.ts';

export interface BoundJoin {
  readonly spec: JoinSpec;
  readonly leftSchema: Schema;
  readonly rightSchema: Schema;
  readonly outputSchema: Schema;
  /** Per output column, the input column (or mark) it comes from; `outputSchema` is its schema. */
  readonly output: OutputShape;
  /**
   * The input columns the join reads, per side, in schema order: keys, range, filter and output
   * columns. Every column unless `spec.select` leaves some out (then the engine reads only these).
   */
  readonly inputColumns: { readonly left: readonly string[]; readonly right: readonly string[] };
  /** Key column names per side, in key-pair order. */
  readonly leftKeys: readonly string[];
  readonly rightKeys: readonly string[];
  /** Common kind per key pair. */
  readonly keyKinds: readonly KeyKind[];
  /** Common kind of the range predicate's two columns. */
  readonly rangeKind?: KeyKind;
  readonly filter?: CompiledFilter;
}

export function requireColumn(schema: Schema, name: string, side: Side): void {
  if (!schema.fields.some((f) => f.name === name)) {
    throw new MissingColumnError(
      name,
      `the ${side} input`,
      schema.fields.map((f) => f.name),
    );
  }
}

function typeOf(schema: Schema, name: string) {
  return schema.fields.find((f) => f.name === name)!.type;
}

/**
 * `output`: the output shape to keep (output names depend on the FULL input schemas, so a join
 * re-bound to the projected inputs the engine reads passes the shape its first binding computed).
 */
export function bindJoin(spec: JoinSpec, leftSchema: Schema, rightSchema: Schema, output?: OutputShape): BoundJoin {
  for (const k of spec.on) {
    requireColumn(leftSchema, k.left, 'left');
    requireColumn(rightSchema, k.right, 'right');
  }
  const keyKinds = spec.on.map((k) => resolveKeyKind(typeOf(leftSchema, k.left), typeOf(rightSchema, k.right), k.left, k.right));
  let rangeKind: KeyKind | undefined;
  if (spec.range) {
    requireColumn(leftSchema, spec.range.left, 'left');
    requireColumn(rightSchema, spec.range.right, 'right');
    rangeKind = resolveKeyKind(typeOf(leftSchema, spec.range.left), typeOf(rightSchema, spec.range.right), spec.range.left, spec.range.right);
  }
  if (spec.nullAware) {
    if (!isAntiJoin(spec.type)) throw new UnsupportedJoinError(`null-aware (NOT IN) applies only to left-anti or right-anti joins, not ${spec.type}`);
    if (spec.on.length !== 1) throw new UnsupportedJoinError(`null-aware (NOT IN) anti join needs exactly one key pair, got ${spec.on.length}`);
  }
  const filter = spec.filter ? compileFilter(spec.filter, leftSchema, rightSchema) : undefined;
  const shape = output ?? outputShape(spec, leftSchema, rightSchema);
  shape.columns.forEach((c, i) => {
    if (c.from === 'mark') return;
    const field = shape.schema.fields[i]!;
    const reason = ungatherableReason(field.type);
    if (reason !== null) {
      const input = c.name === field.name ? '' : ` (${c.from}.${c.name})`;
      throw new UnsupportedTypeError(field.name + input, String(field.type), `in join output: ${reason}; it is not a key, so --select can leave it out`);
    }
  });
  const needed = (side: Side, schema: Schema): string[] => {
    const names = new Set<string>(side === 'left' ? spec.on.map((k) => k.left) : spec.on.map((k) => k.right));
    if (spec.range) names.add(side === 'left' ? spec.range.left : spec.range.right);
    for (const c of filter?.columns[side] ?? []) names.add(c);
    for (const c of shape.columns) if (c.from === side) names.add(c.name);
    return schema.fields.map((f) => f.name).filter((n) => names.has(n));
  };
  return {
    spec,
    leftSchema,
    rightSchema,
    outputSchema: shape.schema,
    output: shape,
    inputColumns: { left: needed('left', leftSchema), right: needed('right', rightSchema) },
    leftKeys: spec.on.map((k) => k.left),
    rightKeys: spec.on.map((k) => k.right),
    keyKinds,
    rangeKind,
    filter,
  };
}
