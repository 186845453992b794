/**
 * Binding an AggregateSpec (core/aggregate.ts) to an input schema, before any row is read: every
 * column must exist (MissingColumnError), every aggregate must accept its column's type (sum/avg
 * of a non-numeric column is an ExpressionError naming the column and its type, as DuckDB's binder
 * refuses `sum(VARCHAR)`), and every output column gets its Arrow type.
 *
 * Output types, as DuckDB 1.5.6 gives them (`typeof(...)`, and DuckDB's Arrow export for HUGEINT):
 *  - count_star, count: BIGINT (Int64), never NULL;
 *  - sum of an integer of any width or signedness, or of BOOLEAN: HUGEINT = Decimal128(38, 0);
 *    sum of DECIMAL(p, s): DECIMAL(38, s); sum of FLOAT/DOUBLE: DOUBLE;
 *  - avg: DOUBLE for every numeric input (DECIMAL included: `BindDecimalAvg` returns DOUBLE);
 *    avg(BOOLEAN) does not exist in DuckDB and is refused here too;
 *  - min, max: the input's type — except that a dictionary column gives its value type, and the
 *    view types (Utf8View, BinaryView) give Utf8/Binary: the states hold plain bytes. min/max of
 *    half floats (DuckDB has no such type) are refused;
 *  - group columns: the input field itself (same name, type, dictionary, metadata).
 * Output names must be distinct (an Arrow table cannot hold two columns of one name): a clash is a
 * UsageError asking for an alias. `min`/`max` with `distinct` are the plain aggregates (same
 * result, no dedupe); `count_star` takes no column and no DISTINCT.
 * Which avg finaliser an exact input gets (avg-finalize.ts) was measured on DuckDB 1.5.6: SMALLINT
 * and DECIMAL(p <= 4) divide in doubles, every other integer type and DECIMAL(p >= 5) in x87 long
 * double.
 */
import { Decimal, Field, Float64, Int64, Schema, Type, Binary, Utf8 } from 'apache-arrow';
import type { DataType, Dictionary, Int } from 'apache-arrow';
import type { AggregateCall, AggregateSpec } from '../../core/aggregate.ts';
import { AGGREGATE_FUNCTIONS } from '../../core/aggregate.ts';
import { ungatherableReason } from '../../core/arrow/gather.ts';
import { ExpressionError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import { classifyKeyType, keyKindOf } from '../../core/keys/resolve.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { decimalAvgScale, type AvgRule } from './avg-finalize.ts';
import { BytesMinMaxState, CountState, ExactSumState, FloatSumState, NumberMinMaxState, WordMinMaxState, type AggregateState } from './states.ts';
import { valueLayout, type ValueLayout } from './values.ts';

/** One value column as the states read it (values.ts), shared by the aggregates reading it alike. */
export interface BoundInput {
  readonly column: string;
  /** How its values are read; null when only its NULLs are (count). */
  readonly layout: ValueLayout | null;
  /** Whether the aggregates reading it see each group's distinct values only. */
  readonly distinct: boolean;
  /** The normalised kind its (group, value) pairs are deduped in (DISTINCT only). */
  readonly kind: KeyKind | null;
}

export interface BoundAggregate {
  readonly call: AggregateCall;
  /** Index into `BoundAggregateSpec.inputs`; -1 for count_star. */
  readonly input: number;
  readonly field: Field;
  makeState(reservation: Reservation): AggregateState;
}

export interface BoundAggregateSpec {
  readonly groupBy: readonly string[];
  readonly groupFields: readonly Field[];
  readonly groupKinds: readonly KeyKind[];
  readonly inputs: readonly BoundInput[];
  readonly aggregates: readonly BoundAggregate[];
  readonly schema: Schema;
}

function fieldOf(schema: Schema, name: string, what: string): Field {
  const f = schema.fields.find((x) => x.name === name);
  if (f === undefined) throw new MissingColumnError(name, what, schema.fields.map((x) => x.name));
  return f;
}

/** The type of the values (a dictionary's value type). */
function valueTypeOf(type: DataType): DataType {
  return type.typeId === Type.Dictionary ? (type as Dictionary).dictionary : type;
}

function label(call: AggregateCall): string {
  if (call.fn === 'count_star') return 'count(*)';
  return `${call.fn}(${call.distinct ? 'DISTINCT ' : ''}${call.column})`;
}

export function bindAggregate(schema: Schema, spec: AggregateSpec): BoundAggregateSpec {
  if (spec.groupBy.length === 0 && spec.aggregates.length === 0) {
    throw new UsageError('aggregate: no group-by columns and no aggregates: nothing to compute');
  }
  const groupFields = spec.groupBy.map((name) => fieldOf(schema, name, 'the aggregate input (group by)'));
  const groupKinds = groupFields.map((f) => {
    const kind = keyKindIn(f, 'as a group-by column'); // UnsupportedTypeError for types that cannot be keys
    const why = ungatherableReason(f.type);
    if (why !== null) throw new UnsupportedTypeError(f.name, String(f.type), `as a group-by column: ${why}`);
    return kind;
  });
  const inputs: BoundInput[] = [];
  const inputOf = (f: Field, layout: ValueLayout | null, distinct: boolean): number => {
    const same = (i: BoundInput) => i.column === f.name && i.distinct === distinct && JSON.stringify(i.layout) === JSON.stringify(layout);
    const at = inputs.findIndex(same);
    if (at >= 0) return at;
    return inputs.push({ column: f.name, layout, distinct, kind: distinct ? keyKindIn(f, 'as a DISTINCT aggregate argument') : null }) - 1;
  };
  const aggregates = spec.aggregates.map((call) => bindCall(schema, call, inputOf));
  const fields = [...groupFields, ...aggregates.map((a) => a.field)];
  const names = new Set<string>();
  for (const f of fields) {
    // an Arrow table cannot hold two columns of one name (apache-arrow's Table refuses the batches)
    if (names.has(f.name)) throw new UsageError(`aggregate: output column '${f.name}' appears twice (group columns and aggregate names must be distinct; alias one)`);
    names.add(f.name);
  }
  return { groupBy: spec.groupBy, groupFields, groupKinds, inputs, aggregates, schema: new Schema(fields) };
}

/** `key()` (a key-type check), its refusal naming the aggregate's use of the column (not "as a join key"). */
function keyed<T>(key: () => T, use: string): T {
  try {
    return key();
  } catch (e) {
    if (e instanceof UnsupportedTypeError) throw new UnsupportedTypeError(e.column, e.type, use);
    throw e;
  }
}

function keyKindIn(f: Field, use: string): ReturnType<typeof keyKindOf> {
  return keyed(() => keyKindOf(f.type, f.name), use);
}

type InputOf = (f: Field, layout: ValueLayout | null, distinct: boolean) => number;

function bindCall(schema: Schema, call: AggregateCall, inputOf: InputOf): BoundAggregate {
  if (!(AGGREGATE_FUNCTIONS as readonly string[]).includes(call.fn)) {
    throw new UsageError(`aggregate '${call.as}': unknown function '${String(call.fn)}'; expected one of ${AGGREGATE_FUNCTIONS.join(', ')}`);
  }
  const name = label(call);
  if (call.fn === 'count_star') {
    if (call.column !== null) throw new UsageError(`aggregate '${call.as}': count_star takes no column (got '${call.column}')`);
    if (call.distinct) throw new UsageError(`aggregate '${call.as}': count(DISTINCT *) is not an aggregate`);
    return { call, input: -1, field: new Field(call.as, new Int64(), false), makeState: () => new CountState(false) };
  }
  if (call.column === null) throw new UsageError(`aggregate '${call.as}': ${call.fn} needs a column`);
  const f = fieldOf(schema, call.column, `the aggregate input (${name})`);
  const vt = valueTypeOf(f.type);
  switch (call.fn) {
    case 'count':
      return { call, input: inputOf(f, null, call.distinct), field: new Field(call.as, new Int64(), false), makeState: () => new CountState(true) };
    case 'sum':
    case 'avg':
      return bindNumeric(call, f, vt, name, inputOf);
    case 'min':
    case 'max':
      return bindMinMax(call, f, vt, name, inputOf);
  }
}

function notNumeric(call: AggregateCall, f: Field, name: string): ExpressionError {
  return new ExpressionError(
    `${name}: column '${f.name}' has type ${String(f.type)}, which is not numeric (${call.fn} needs an integer, decimal or floating-point column${call.fn === 'sum' ? ', or a boolean' : ''})`,
  );
}

function bindNumeric(call: AggregateCall, f: Field, vt: DataType, name: string, inputOf: InputOf): BoundAggregate {
  let cls: ReturnType<typeof classifyKeyType>;
  try {
    cls = classifyKeyType(vt, f.name);
  } catch (e) {
    if (e instanceof UnsupportedTypeError) throw notNumeric(call, f, name);
    throw e;
  }
  const c = cls.c;
  const layout = valueLayout(vt, null);
  if (layout === null || layout.layout === 'bytes') throw notNumeric(call, f, name);
  if (c === 'float') {
    return { call, input: inputOf(f, layout, call.distinct), field: new Field(call.as, new Float64(), true), makeState: () => new FloatSumState(call.fn as 'sum' | 'avg') };
  }
  const exact = c === 'int' || c === 'decimal' || c === 'null' || (c === 'bool' && call.fn === 'sum');
  if (!exact) throw notNumeric(call, f, name);
  const width = layout.layout === 'words' ? layout.width : 0;
  const unsigned = layout.layout === 'words' && layout.unsigned;
  const scale = cls.c === 'decimal' ? cls.scale : 0;
  const inputIndex = inputOf(f, layout, call.distinct);
  if (call.fn === 'sum') {
    return {
      call,
      input: inputIndex,
      field: new Field(call.as, new Decimal(scale, 38, 128), true),
      makeState: () => new ExactSumState(width, unsigned, { fn: 'sum', scale }, name),
    };
  }
  const rule = avgRule(vt);
  const divisorScale = decimalAvgScale(scale);
  return {
    call,
    input: inputIndex,
    field: new Field(call.as, new Float64(), true),
    makeState: () => new ExactSumState(width, unsigned, { fn: 'avg', rule, divisorScale }, name),
  };
}

/** DuckDB's avg finaliser for an exact type (measured; see the module comment). */
export function avgRule(type: DataType): AvgRule {
  if (type.typeId === Type.Int) {
    const t = type as Int;
    return t.isSigned && t.bitWidth === 16 ? 'double' : 'long-double';
  }
  if (type.typeId === Type.Decimal) return (type as Decimal).precision <= 4 ? 'double' : 'long-double';
  return 'long-double';
}

function bindMinMax(call: AggregateCall, f: Field, vt: DataType, name: string, inputOf: InputOf): BoundAggregate {
  const cls = keyed(() => classifyKeyType(vt, f.name), `as an argument of ${call.fn}`); // UnsupportedTypeError: not orderable
  if (cls.c === 'null') throw new UnsupportedTypeError(f.name, String(f.type), `by ${name} (a column of only NULLs has no Arrow type to return)`);
  if (cls.c === 'float' && cls.bits === 16) throw new UnsupportedTypeError(f.name, String(f.type), `by ${name} (half floats)`);
  const layout = valueLayout(vt, keyed(() => keyKindOf(vt, f.name), `as an argument of ${call.fn}`));
  if (layout === null || layout.layout === 'nulls') throw new UnsupportedTypeError(f.name, String(f.type), `by ${name}`);
  const isMax = call.fn === 'max';
  // min(DISTINCT x) = min(x): the values need no dedupe
  const input = inputOf(f, layout, false);
  if (layout.layout === 'bytes') {
    const out = vt.typeId === Type.Utf8View ? new Utf8() : vt.typeId === Type.BinaryView ? new Binary() : vt;
    return { call, input, field: new Field(call.as, out, true), makeState: (r) => new BytesMinMaxState(isMax, out, r, name) };
  }
  if (layout.layout === 'words') {
    const { width, unsigned } = layout;
    return { call, input, field: new Field(call.as, vt, true), makeState: () => new WordMinMaxState(width, unsigned, isMax, vt, name) };
  }
  return { call, input, field: new Field(call.as, vt, true), makeState: () => new NumberMinMaxState(isMax, vt, name) };
}
