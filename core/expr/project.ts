/**
 * Expressions over ONE input: SELECT-list values as Arrow columns (`compileProjection`) and
 * WHERE / HAVING row filters (`compileRowFilter`).
 *
 * Why through the join-filter evaluator: it already has DuckDB's typing, exact arithmetic,
 * overflow errors and three-valued logic (evaluate.ts); a projection is the same node tree run
 * over the identity pairing (row k of the batch is "pair" k, columns on side 'left'), and its
 * root's vector is converted to Arrow Data once per batch, column-wise:
 *   - integers and decimals (ExactVec: a double per row, exact below 2^53, plus four 32-bit words
 *     only for wide rows): narrow rows are split into 32-bit halves with double arithmetic, wide
 *     rows copy their words — no BigInt, no JS value per row;
 *   - FLOAT / DOUBLE: one typed-array copy; BOOLEAN: bytes packed into bits; NULLs into a
 *     validity bitmap (none when nothing is NULL);
 *   - strings: the bytes each row points at gathered into new Utf8 (Int32 offsets + Uint8 bytes).
 * A plain column reference whose Arrow type already is the result type is returned as is (zero
 * copy); other columns (dictionaries, LargeUtf8, Utf8View, Float16, Decimal256) are converted.
 *
 * The result's Arrow type is what DuckDB's Arrow export gives the expression's DuckDB type (the
 * parity oracle, adapters/duckdb/session.ts): TINYINT..BIGINT -> Int8..Int64, UTINYINT..UBIGINT
 * -> Uint8..Uint64, HUGEINT -> Decimal128(38, 0), DECIMAL(p, s) -> Decimal128(p, s), FLOAT ->
 * Float32, DOUBLE -> Float64, BOOLEAN -> Bool, VARCHAR -> Utf8, BLOB -> Binary, DATE -> Date32
 * (days), TIMESTAMP_* -> Timestamp of the column's unit (and time zone). An expression of the NULL
 * type (`NULL`, `CASE WHEN … THEN NULL END`) is an all-NULL Int32: DuckDB casts SQLNULL to
 * INTEGER at the root of a bound expression (`ExpressionBinder::ExchangeNullType`,
 * src/planner/expression_binder.cpp), so `SELECT NULL` is an INTEGER column.
 * A Date64 column stays Date64 (DuckDB would read it as DATE), a decimal above 38 digits (read as
 * DOUBLE) becomes Float64.
 */
import {
  Binary,
  Bool,
  type Data,
  type DataType,
  DateDay,
  DateMillisecond,
  Decimal,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  makeData,
  Null,
  type RecordBatch,
  Schema,
  Timestamp,
  TimeUnit,
  Uint8,
  Uint16,
  Uint32,
  Uint64,
  Utf8,
  util,
} from 'apache-arrow';
import { ExpressionError } from '../errors.ts';
import { countKept, keptRows } from '../selection.ts';
import { checkDepth, type Expr, referencedColumns } from './ast.ts';
import { copyByteRange } from './byte-sources.ts';
import { Compiler } from './compile.ts';
import { type Form, formOf } from './conditional-nodes.ts';
import { compileFilter } from './evaluate.ts';
import { type ExactVec, loadRow, setFromDouble, TWO32, TWO53 } from './exact.ts';
import { NullNode } from './leaf-nodes.ts';
import type { Ctx, Node, NumVec, StrVec, TemporalUnit, VClass } from './node-base.ts';
import { ScratchMeter } from './scratch.ts';
import type { IntKind } from './numeric-types.ts';
import { identity } from './string-format.ts';

export interface CompiledProjection {
  readonly expr: Expr;
  /** The Arrow type of the result (see the module comment). */
  readonly type: DataType;
  /** The input columns the expression reads, as named in the schema. */
  readonly columns: readonly string[];
  /**
   * One value per row of `batch`. Throws ExpressionError when an arithmetic overflows or a cast
   * fails for a row whose value matters (not for a CASE branch or COALESCE argument the row does
   * not take).
   */
  evaluate(batch: RecordBatch): Data;
  /**
   * The scratch its nodes hold (scratch.ts): `attach` a run's reservation to count it against the
   * run's `memoryLimit`. A projection evaluates a batch whole (one column per batch), so a refused
   * growth is a MemoryLimitError naming the expression; smaller batches need less.
   */
  readonly scratch: ScratchMeter;
}

const EMPTY = new Schema([]);

function refuseRight(expr: Expr, what: string): void {
  const right = [...referencedColumns(expr).right];
  if (right.length > 0) {
    throw new ExpressionError(`${what} reads one input (columns on side 'left'), but it names ${right.map((n) => `r.${n}`).join(', ')}`);
  }
}

/** One reused identity index array per compiled expression (its growth is scratch: `identity` grows it through i32). */
class Rows {
  private ids: Int32Array | undefined;
  get(n: number): Int32Array {
    return (this.ids = identity(this.ids, n));
  }
  /** Rows held now (0 before the first `get`). */
  get length(): number {
    return this.ids?.length ?? 0;
  }
}

/** One projection call, reused across calls (evaluation is synchronous). */
interface ProjectCall {
  root: Node;
  form: Form;
  cls: VClass;
  type: DataType;
  rows: Rows;
  batch: RecordBatch | null;
  out: Data | null;
}

/** The whole batch of a call (the meter never chunks a projection: `run(…, false)`). */
function projectAll(c: ProjectCall, _start: number, n: number): void {
  const ids = c.rows.get(n);
  const ctx: Ctx = { left: c.batch!, leftRows: ids, right: c.batch!, rightRows: ids, n, live: null };
  switch (c.form) {
    case 'exact':
      c.out = exactData(c.root.exact(ctx), c.cls, c.type, n);
      return;
    case 'num':
      c.out = floatData(c.root.num(ctx), c.type, n);
      return;
    case 'bool':
      c.out = boolData(c.root.bool(ctx), n);
      return;
    case 'str':
      c.out = stringData(c.root.str(ctx), c.type, n);
      return;
  }
}

/**
 * Type-check `expr` (columns on side 'left') against `schema` and build its evaluator. Throws
 * MissingColumnError for an unknown column, UnsupportedTypeError for a column type the evaluator
 * cannot read, ExpressionError for type errors or a column on side 'right'.
 */
export function compileProjection(expr: Expr, schema: Schema): CompiledProjection {
  checkDepth(expr);
  refuseRight(expr, 'a projection');
  const compiler = new Compiler(schema, EMPTY);
  const root = compiler.compile(expr);
  const cls = root.cls;
  const type = arrowType(cls);
  const columns = compiler.columnsOf(expr).left;
  const plain = expr.kind === 'column' ? compiler.resolveName('left', expr.name) : null;
  const form = formOf(cls);
  const scratch = new ScratchMeter(root, root.label);
  const call: ProjectCall | null = form === null ? null : { root, form, cls, type, rows: new Rows(), batch: null, out: null };
  return {
    expr,
    type,
    columns,
    scratch,
    evaluate(batch) {
      const n = batch.numRows;
      if (plain !== null) {
        const i = batch.schema.fields.findIndex((f) => f.name === plain);
        const data = i >= 0 ? batch.data.children[i] : undefined;
        if (data !== undefined && util.compareTypes(data.type, type)) return data;
      }
      if (call === null || root instanceof NullNode || n === 0) return allNull(type, n);
      call.batch = batch;
      try {
        scratch.run(n, call, projectAll, false);
        return call.out!;
      } finally {
        call.batch = null; // hold no batch past the call
        call.out = null;
      }
    },
  };
}

/**
 * A single-input WHERE / HAVING filter: `select(batch)` gives the ascending indices of the rows
 * where `expr` is TRUE (NULL and FALSE drop the row). Built on compileFilter over the identity
 * pairing, so typing, errors and short-circuits are the join filter's.
 */
export function compileRowFilter(
  expr: Expr,
  schema: Schema,
): { readonly columns: readonly string[]; readonly scratch: ScratchMeter; select(batch: RecordBatch): Int32Array } {
  refuseRight(expr, 'a row filter');
  const filter = compileFilter(expr, schema, EMPTY);
  const scratch = filter.scratch;
  const rows = new Rows();
  let mask = new Uint8Array(0);
  return {
    columns: filter.columns.left,
    scratch,
    select(batch) {
      const n = batch.numRows;
      if (n === 0) return new Int32Array(0);
      // the identity rows and the mask are the filter's scratch too (`identity` grows to 2x)
      const had = rows.length;
      if (had < n) scratch.hold(4 * (Math.max(n, 2 * had) - had), n);
      const ids = rows.get(n);
      if (mask.length < n) {
        scratch.hold(ids.length - mask.length, n);
        mask = new Uint8Array(ids.length);
      }
      const keep = filter.evaluate(batch, ids, batch, ids, n, mask);
      return keptRows(keep, n, countKept(keep, n));
    },
  };
}

// ---- types ---------------------------------------------------------------------------------------

const INT_TYPES: Record<Exclude<IntKind, 'i128'>, () => DataType> = {
  i8: () => new Int8(),
  i16: () => new Int16(),
  i32: () => new Int32(),
  i64: () => new Int64(),
  u8: () => new Uint8(),
  u16: () => new Uint16(),
  u32: () => new Uint32(),
  u64: () => new Uint64(),
};

const TIME_UNITS: Partial<Record<TemporalUnit, TimeUnit>> = {
  s: TimeUnit.SECOND,
  ms: TimeUnit.MILLISECOND,
  us: TimeUnit.MICROSECOND,
  ns: TimeUnit.NANOSECOND,
};

/** The Arrow type DuckDB's Arrow export gives a value of class `cls` (see the module comment). */
export function arrowType(cls: VClass): DataType {
  switch (cls.c) {
    case 'num': {
      const t = cls.t;
      switch (t.k) {
        case 'int':
          return t.int === 'i128' ? new Decimal(0, 38, 128) : INT_TYPES[t.int]();
        case 'dec':
          return new Decimal(t.s, t.p, 128);
        case 'f32':
          return new Float32();
        case 'f64':
          return new Float64();
      }
      break;
    }
    case 'bool':
      return new Bool();
    case 'str':
      return new Utf8();
    case 'bin':
      return new Binary();
    case 'null':
      return new Int32(); // DuckDB's ExchangeNullType: SQLNULL -> INTEGER
    case 'time':
      if (cls.unit === 'day') return new DateDay();
      if (cls.unit === 'date-ms') return new DateMillisecond();
      return new Timestamp(TIME_UNITS[cls.unit]!, cls.tz ?? null);
  }
  throw new Error(`bug: no Arrow type for ${(cls as VClass).sql}`);
}

// ---- vectors to Data -----------------------------------------------------------------------------

/** Validity bits from a NULL mask (1 = NULL); no bitmap when nothing is NULL. */
function validity(nulls: Uint8Array | null, n: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  if (nulls === null) return { nullBitmap: undefined, nullCount: 0 };
  const bits = new Uint8Array((n + 7) >> 3);
  let count = 0;
  for (let k = 0; k < n; k++) {
    const isNull = nulls[k]!;
    count += isNull;
    bits[k >> 3]! |= (isNull ^ 1) << (k & 7);
  }
  return count === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bits, nullCount: count };
}

function allNull(type: DataType, n: number): Data {
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  if (type instanceof Null) return makeData({ type, length: n, nullCount: n });
  if (type instanceof Utf8 || type instanceof Binary) {
    return makeData({ type: type as Utf8, length: n, nullCount: n, nullBitmap, valueOffsets: new Int32Array(n + 1), data: new Uint8Array(0) });
  }
  if (type instanceof Bool) return makeData({ type, length: n, nullCount: n, nullBitmap, data: new Uint8Array((n + 7) >> 3) });
  const T = type.ArrayType as new (length: number) => ArrayLike<unknown>;
  const stride = type instanceof Decimal ? 4 : 1;
  return makeData({ type: type as never, length: n, nullCount: n, nullBitmap, data: new T(n * stride) as never });
}

const ROW = new Uint32Array(4);

/** Integers, decimals, dates and timestamps. */
function exactData(x: ExactVec, cls: VClass, type: DataType, n: number): Data {
  const { nullBitmap, nullCount } = validity(x.nulls, n);
  const nulls = nullCount > 0 ? x.nulls : null;
  const f = x.f;
  const width = cls.c === 'num' && cls.t.k === 'int' ? cls.t.int : cls.c === 'time' ? (cls.unit === 'day' ? 'i32' : 'i64') : 'i128';
  const base = { type: type as never, length: n, nullCount, nullBitmap };
  switch (width) {
    case 'i8':
    case 'i16':
    case 'i32':
    case 'u8':
    case 'u16':
    case 'u32': {
      const T = type.ArrayType as new (length: number) => Int32Array;
      const out = new T(n);
      for (let k = 0; k < n; k++) out[k] = f[k]!;
      if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 0;
      return makeData({ ...base, data: out as never });
    }
    case 'i64':
    case 'u64': {
      const words = new Int32Array(2 * n);
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k]) continue;
        const v = f[k]!;
        if (v > -TWO53 && v < TWO53) {
          const lo = v >>> 0; // v mod 2^32
          words[2 * k] = lo;
          words[2 * k + 1] = (v - lo) / TWO32;
        } else {
          loadRow(x, k, ROW);
          words[2 * k] = ROW[0]!;
          words[2 * k + 1] = ROW[1]!;
        }
      }
      const data = width === 'u64' ? new BigUint64Array(words.buffer) : new BigInt64Array(words.buffer);
      return makeData({ ...base, data: data as never });
    }
    default: {
      // HUGEINT and decimals: Decimal128, four little-endian words per value
      const words = new Uint32Array(4 * n);
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k]) continue;
        const v = f[k]!;
        if (v > -TWO53 && v < TWO53) setFromDouble(v, words, 4 * k);
        else {
          loadRow(x, k, ROW);
          words.set(ROW, 4 * k);
        }
      }
      return makeData({ ...base, data: words as never });
    }
  }
}

function floatData(x: NumVec, type: DataType, n: number): Data {
  const { nullBitmap, nullCount } = validity(x.nulls, n);
  const out = type instanceof Float32 ? new Float32Array(x.values.subarray(0, n)) : x.values.slice(0, n);
  if (nullCount > 0) for (let k = 0; k < n; k++) if (x.nulls![k]) out[k] = 0;
  return makeData({ type: type as Float64, length: n, nullCount, nullBitmap, data: out as Float64Array });
}

/** Three-valued bytes (0 false, 1 true, 2 NULL) to value and validity bits. */
function boolData(v: Uint8Array, n: number): Data {
  const values = new Uint8Array((n + 7) >> 3);
  const valid = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (let k = 0; k < n; k++) {
    const b = v[k]!;
    values[k >> 3]! |= (b & 1) << (k & 7);
    const isNull = b >> 1;
    nullCount += isNull;
    valid[k >> 3]! |= (isNull ^ 1) << (k & 7);
  }
  return makeData({ type: new Bool(), length: n, nullCount, nullBitmap: nullCount > 0 ? valid : undefined, data: values });
}

/** Each row's bytes gathered into new Utf8 / Binary (NULL rows are empty). */
function stringData(x: StrVec, type: DataType, n: number): Data {
  const { nullBitmap, nullCount } = validity(x.nulls, n);
  const nulls = nullCount > 0 ? x.nulls : null;
  const { offsets: xo, bytes: xb, idx } = x;
  const offsets = new Int32Array(n + 1);
  let total = 0;
  for (let k = 0; k < n; k++) {
    if (nulls === null || !nulls[k]) {
      const e = idx[k]!;
      total += xo[e + 1]! - xo[e]!;
    }
    offsets[k + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let k = 0; k < n; k++) {
    if (nulls !== null && nulls[k]) continue;
    const e = idx[k]!;
    copyByteRange(xb, xo[e]!, xo[e + 1]!, bytes, offsets[k]!);
  }
  return makeData({ type: type as Utf8, length: n, nullCount, nullBitmap, valueOffsets: offsets, data: bytes });
}
