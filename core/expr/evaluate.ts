/**
 * Residual-filter evaluation over batches of candidate pairs (left row i, right row j).
 *
 * Why this shape: a join produces candidate pairs as two index arrays; the filter decides, per
 * pair, whether to keep it. `compileFilter` type-checks the expression against both schemas once
 * (so a bad filter fails before any data is read) and builds a tree of nodes; `evaluate` runs each
 * node over the whole pair batch into typed arrays, never per row and never creating a JS value
 * per row:
 *   - integers, decimals (unscaled), dates and timestamps: an `ExactVec` (exact.ts) — a
 *     Float64Array that is exact below 2^53, plus four 32-bit words per row only where some value
 *     is at or beyond 2^53 — and a null byte mask (1 = NULL), or `null` when nothing is NULL;
 *   - FLOAT and DOUBLE: a Float64Array (FLOAT values are float32 values) + a null mask;
 *   - booleans: three-valued bytes, 0 = false, 1 = true, 2 = NULL;
 *   - strings/binary: Arrow offsets + bytes + a per-pair entry index (the row, or the dictionary
 *     code), compared byte-wise (= DuckDB's default binary collation; byte order of UTF-8 is code
 *     point order). Dictionary columns are compared through their codes; a comparison with a
 *     literal is done once per dictionary entry when that is cheaper. LargeUtf8 offsets and
 *     Utf8View/BinaryView columns are normalised once per batch (cached by Data object).
 *
 * Semantics (DuckDB's; the typing rules and where they come from are in numeric-types.ts):
 *   - SQL three-valued logic; a pair is kept only when the filter is TRUE (NULL counts as false).
 *   - Arithmetic `+ - * // %` on integers and decimals is exact, in the type DuckDB gives the
 *     result (INTEGER + INTEGER is INTEGER, BIGINT + UBIGINT is HUGEINT, DECIMAL(9,2) *
 *     DECIMAL(9,2) is DECIMAL(18,4), …); a result outside that type, a decimal that does not fit
 *     the type it is cast to, `MIN // -1` and `MIN % -1` raise an ExpressionError naming the
 *     expression ("Overflow in addition of BIGINT (9223372036854775807 + 1) in l.big + 1").
 *     `x // 0` and `x % 0` are NULL. `/` is DOUBLE division (x/0 = ±inf, 0/0 = NaN); with a FLOAT
 *     or DOUBLE operand everything is float arithmetic in that type.
 *   - An error is raised only for a pair whose value matters: not where an operand is NULL, and
 *     not for a pair an earlier AND/OR argument already decided (SQL short-circuit; DuckDB may
 *     reorder a conjunction, joinlab goes left to right).
 *   - Comparisons: integers and decimals exactly (over 128 bits), an integer or decimal against a
 *     FLOAT/DOUBLE after casting it to that type (as DuckDB does: BIGINT 2^53 + 1 = DOUBLE 2^53).
 *     Number literals: integers adapt to the other operand's integer type; `1.5` is DECIMAL(2,1);
 *     see `literalType` in numeric-types.ts.
 *   - Floats: NaN = NaN, NaN is greater than every number (including +inf), -0.0 = 0.0.
 *   - Decimal128/256 of precision <= 38 is exact; above 38 (DuckDB cannot hold it) it is read as
 *     the nearest DOUBLE.
 *   - Date32, Date64 and Timestamp compare as exact integers, only against the same type and unit
 *     (a cross-unit comparison is an ExpressionError), or against a string literal
 *     ('2024-01-31', '2024-01-31 12:00:00.123', UTC) converted once at compile time.
 *   - Booleans compare false < true.
 * Degenerate cases: `count = 0` returns at once; a NULL literal makes a comparison or an
 * arithmetic NULL for every pair (its other operand is still type-checked, never evaluated);
 * `AND`/`OR` stop evaluating further arguments once every pair is decided; 0-ary AND is TRUE,
 * 0-ary OR is FALSE. An expression nesting deeper than MAX_EXPR_DEPTH is refused before compiling.
 * Row indices are trusted (not bounds-checked: this is the hot path).
 */
import {
  type Data,
  type DataType,
  type Date_,
  type Decimal,
  type Dictionary,
  type Float,
  type Int,
  type RecordBatch,
  type Schema,
  type Timestamp,
  type Vector,
  DateUnit,
  Precision,
  TimeUnit,
  Type,
} from 'apache-arrow';
import { ExpressionError, MissingColumnError, UnsupportedTypeError } from '../errors.ts';
import type { Side } from '../types.ts';
import { type ArithOp, checkDepth, type CompareOp, type Expr, referencedColumns } from './ast.ts';
import { type ExactVec, exactValue, type Int64Source, toDouble, TWO32, TWO53, wordsOf } from './exact.ts';
import {
  BOOLEAN,
  CompareNode,
  type Ctx,
  f64,
  i32,
  mergeNulls,
  Node,
  NULL_CLASS,
  type NumVec,
  type StrVec,
  type TemporalUnit,
  u32,
  u8,
  type VClass,
} from './node-base.ts';
import { ArithExactNode, ArithFloatNode, CompareExact, CompareNumbers, decimalText, RescaleNode, ToFloatNode } from './numeric-nodes.ts';
import {
  bindArithmetic,
  bindComparison,
  DOUBLE,
  decimalType,
  FLOAT,
  intType,
  isExact,
  literalType,
  type IntKind,
  type NumType,
  typeName,
} from './numeric-types.ts';
import { formatExpr } from './parse.ts';

// ---- public API ---------------------------------------------------------------------------------

export interface CompiledFilter {
  readonly expr: Expr;
  /** Columns the filter reads, per side, as named in the schemas (for projection). */
  readonly columns: { readonly left: readonly string[]; readonly right: readonly string[] };
  /**
   * For each k < count: 1 if the filter is TRUE for (left row leftRows[k], right row rightRows[k]),
   * else 0. Writes into `out` (first `count` bytes) and returns it when given, else a new array.
   * Throws ExpressionError when an arithmetic overflows (or a decimal cast fails) for a pair
   * whose value matters (see the module comment).
   */
  evaluate(
    left: RecordBatch,
    leftRows: Int32Array,
    right: RecordBatch,
    rightRows: Int32Array,
    count: number,
    out?: Uint8Array,
  ): Uint8Array;
}

function checkCall(leftRows: Int32Array, rightRows: Int32Array, count: number): void {
  if (!(count >= 0) || leftRows.length < count || rightRows.length < count) {
    throw new RangeError(`evaluate: count ${count} exceeds the row index arrays (${leftRows.length}, ${rightRows.length})`);
  }
}

/**
 * Type-check `expr` against both input schemas and build its evaluator.
 * Throws MissingColumnError (unknown column; names the side and its columns), UnsupportedTypeError
 * (a column type the evaluator cannot read) or ExpressionError (type errors, non-boolean filter,
 * nesting deeper than MAX_EXPR_DEPTH).
 */
export function compileFilter(expr: Expr, leftSchema: Schema, rightSchema: Schema): CompiledFilter {
  checkDepth(expr);
  const compiler = new Compiler(leftSchema, rightSchema);
  const root = compiler.compile(expr);
  if (root.cls.c !== 'bool' && root.cls.c !== 'null') {
    throw new ExpressionError(`a filter must be a boolean expression, but ${root.label} has type ${root.cls.sql}`);
  }
  const columns = compiler.columnsOf(expr);
  return {
    expr,
    columns,
    evaluate(left, leftRows, right, rightRows, count, out) {
      checkCall(leftRows, rightRows, count);
      const result = out ?? new Uint8Array(count);
      if (result.length < count) throw new RangeError(`evaluate: out has ${result.length} bytes, need ${count}`);
      if (count === 0) return result;
      if (root.cls.c === 'null') {
        result.fill(0, 0, count);
        return result;
      }
      const v = root.bool({ left, leftRows, right, rightRows, n: count, live: null });
      for (let k = 0; k < count; k++) result[k] = v[k] === 1 ? 1 : 0;
      return result;
    },
  };
}

/** One value of a scalar expression: an integer as a bigint, a decimal as its text, a float, a boolean, or NULL. */
export type ScalarValue = bigint | string | number | boolean | null;

export interface CompiledScalar {
  /** DuckDB's name of the expression's type (what `typeof()` prints). */
  readonly type: string;
  /** The value for each pair, boxed (for tests and debugging, not for hot paths). */
  evaluate(left: RecordBatch, leftRows: Int32Array, right: RecordBatch, rightRows: Int32Array, count: number): ScalarValue[];
}

/**
 * Compile a numeric or boolean expression for its values — what the differential tests compare
 * with DuckDB's `SELECT expr, typeof(expr)`. Same typing and errors as `compileFilter`.
 */
export function compileScalar(expr: Expr, leftSchema: Schema, rightSchema: Schema): CompiledScalar {
  checkDepth(expr);
  const root = new Compiler(leftSchema, rightSchema).compile(expr);
  const cls = root.cls;
  if (cls.c !== 'num' && cls.c !== 'bool' && cls.c !== 'null') {
    throw new ExpressionError(`compileScalar needs a numeric or boolean expression, but ${root.label} has type ${cls.sql}`);
  }
  const t = cls.c === 'num' ? cls.t : null;
  return {
    type: t !== null ? typeName(t) : cls.sql,
    evaluate(left, leftRows, right, rightRows, count) {
      checkCall(leftRows, rightRows, count);
      const out: ScalarValue[] = new Array<ScalarValue>(count).fill(null);
      if (count === 0 || root instanceof NullNode) return out;
      const ctx: Ctx = { left, leftRows, right, rightRows, n: count, live: null };
      if (cls.c === 'bool') {
        const v = root.bool(ctx);
        for (let k = 0; k < count; k++) out[k] = v[k] === 2 ? null : v[k] === 1;
      } else if (t !== null && isExact(t)) {
        const v = root.exact(ctx);
        for (let k = 0; k < count; k++) {
          if (v.nulls !== null && v.nulls[k]) continue;
          const x = exactValue(v, k);
          out[k] = t.k === 'dec' ? decimalText(x, t.s) : x;
        }
      } else {
        const v = root.num(ctx);
        for (let k = 0; k < count; k++) if (v.nulls === null || !v.nulls[k]) out[k] = v.values[k]!;
      }
      return out;
    },
  };
}

// ---- value classes (compile-time types) --------------------------------------------------------

function numClass(t: NumType): VClass {
  return { c: 'num', sql: typeName(t), t };
}

/** How a column's buffers are read. */
type Layout = 'small-int' | 'i64' | 'u64' | 'float' | 'half' | 'decimal' | 'decimal-approx' | 'bool' | 'bytes' | 'dict';

interface ColumnType {
  readonly cls: VClass;
  readonly layout: Layout;
}

const INT_KINDS: Record<string, IntKind> = { s8: 'i8', s16: 'i16', s32: 'i32', s64: 'i64', u8: 'u8', u16: 'u16', u32: 'u32', u64: 'u64' };
const TS_UNITS: Record<number, [TemporalUnit, string]> = {
  [TimeUnit.SECOND]: ['s', 'TIMESTAMP_S'],
  [TimeUnit.MILLISECOND]: ['ms', 'TIMESTAMP_MS'],
  [TimeUnit.MICROSECOND]: ['us', 'TIMESTAMP'],
  [TimeUnit.NANOSECOND]: ['ns', 'TIMESTAMP_NS'],
};

/** The class and layout of an Arrow type, or `null` when the evaluator cannot read it. */
function columnType(type: DataType): ColumnType | null {
  switch (type.typeId) {
    case Type.Int: {
      const t = type as Int;
      const kind = INT_KINDS[(t.isSigned ? 's' : 'u') + t.bitWidth]!;
      return { cls: numClass(intType(kind)), layout: t.bitWidth === 64 ? (t.isSigned ? 'i64' : 'u64') : 'small-int' };
    }
    case Type.Float: {
      const p = (type as Float).precision;
      return { cls: numClass(p === Precision.DOUBLE ? DOUBLE : FLOAT), layout: p === Precision.HALF ? 'half' : 'float' };
    }
    case Type.Decimal: {
      const t = type as Decimal;
      if (t.precision <= 38) return { cls: numClass(decimalType(t.precision, t.scale)), layout: 'decimal' };
      return { cls: { c: 'num', sql: `DECIMAL(${t.precision},${t.scale})`, t: DOUBLE }, layout: 'decimal-approx' };
    }
    case Type.Bool:
      return { cls: BOOLEAN, layout: 'bool' };
    case Type.Utf8:
    case Type.LargeUtf8:
    case Type.Utf8View:
      return { cls: { c: 'str', sql: 'VARCHAR' }, layout: 'bytes' };
    case Type.Binary:
    case Type.LargeBinary:
    case Type.BinaryView:
      return { cls: { c: 'bin', sql: 'BLOB' }, layout: 'bytes' };
    case Type.Dictionary: {
      const values = columnType((type as Dictionary).dictionary);
      if (values === null || values.layout !== 'bytes') return null;
      return { cls: values.cls, layout: 'dict' };
    }
    case Type.Date: {
      const day = (type as Date_).unit === DateUnit.DAY;
      return day
        ? { cls: { c: 'time', sql: 'DATE', unit: 'day' }, layout: 'small-int' }
        : { cls: { c: 'time', sql: 'DATE64', unit: 'date-ms' }, layout: 'i64' };
    }
    case Type.Timestamp: {
      const t = type as Timestamp;
      const [unit, sql] = TS_UNITS[t.unit]!;
      return { cls: { c: 'time', sql: t.timezone ? `${sql} (tz ${t.timezone})` : sql, unit }, layout: 'i64' };
    }
    default:
      return null;
  }
}

// ---- column readers (gather by row index) -------------------------------------------------------

function int32View(a: ArrayBufferView): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}
function uint32View(a: ArrayBufferView): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}

/** NULL mask of `data` at `rows` (1 = NULL) into `buf`, or `null` when the column has no NULLs. */
function gatherNulls(data: Data, rows: Int32Array, n: number, buf: Uint8Array): Uint8Array | null {
  const bm = data.nullBitmap;
  if (bm === undefined || bm.length === 0 || data.nullCount === 0) return null;
  const off = data.offset;
  for (let k = 0; k < n; k++) {
    const p = off + rows[k]!;
    buf[k] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
  }
  return buf;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return sign * f * 2 ** -24;
  if (e === 31) return f === 0 ? sign * Infinity : NaN;
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** FLOAT/DOUBLE columns (and decimals above 38 digits, approximately). */
function gatherFloats(data: Data, layout: Layout, rows: Int32Array, n: number, out: Float64Array): void {
  switch (layout) {
    case 'float': {
      const v = data.values as Float32Array | Float64Array;
      for (let k = 0; k < n; k++) out[k] = v[rows[k]!]!;
      return;
    }
    case 'half': {
      const v = data.values as Uint16Array;
      for (let k = 0; k < n; k++) out[k] = halfToFloat(v[rows[k]!]!);
      return;
    }
    case 'decimal-approx': {
      const t = data.type as Decimal;
      const w = uint32View(data.values as ArrayBufferView);
      const stride = t.bitWidth >> 5;
      const scale = 10 ** t.scale;
      for (let k = 0; k < n; k++) {
        const base = rows[k]! * stride;
        let v = w[base + stride - 1]! | 0; // most significant word is signed (two's complement)
        for (let j = stride - 2; j >= 0; j--) v = v * TWO32 + w[base + j]!;
        out[k] = v / scale;
      }
      return;
    }
    default:
      throw new Error(`bug: no float reader for layout ${layout}`);
  }
}

const ROW = new Uint32Array(4);

/**
 * Integer, decimal and temporal columns into an ExactVec: `f` always, words (from `words()`) only
 * when some gathered value is at or beyond 2^53. Returns the words or null.
 */
function gatherExact(
  data: Data,
  layout: Layout,
  rows: Int32Array,
  n: number,
  f: Float64Array,
  words: () => Uint32Array,
): Uint32Array | Int64Source | null {
  switch (layout) {
    case 'small-int': {
      const v = data.values as Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
      for (let k = 0; k < n; k++) f[k] = v[rows[k]!]!;
      return null;
    }
    case 'i64':
    case 'u64': {
      // f (hi * 2^32 + lo rounds once: the nearest double); the words stay in the column, read
      // in place through `src` when some row is at or beyond 2^53
      const src = int32View(data.values as ArrayBufferView);
      const signed = layout === 'i64';
      const big = signed ? gatherI64(src, rows, n, f) : gatherU64(src, rows, n, f);
      return big ? { words: src, rows, signed } : null;
    }
    case 'decimal': {
      const t = data.type as Decimal;
      const src = uint32View(data.values as ArrayBufferView);
      const stride = t.bitWidth >> 5;
      let big = false;
      if (stride === 4) {
        for (let k = 0; k < n; k++) {
          const base = rows[k]! << 2;
          const hi = src[base + 1]! | 0;
          const sign = hi < 0 ? 0xffffffff : 0;
          if (src[base + 2] === sign && src[base + 3] === sign) {
            const d = hi * TWO32 + src[base]!;
            f[k] = d;
            if (!(d > -TWO53 && d < TWO53)) big = true;
          } else {
            f[k] = Infinity; // at or beyond 2^64: the words decide, below
            big = true;
          }
        }
      } else {
        for (let k = 0; k < n; k++) {
          decimalWords(src, rows[k]! * stride, stride, ROW);
          const d = toDouble(ROW);
          f[k] = d;
          if (!(d > -TWO53 && d < TWO53)) big = true;
        }
      }
      if (!big) return null;
      const w = words();
      for (let k = 0; k < n; k++) {
        const d = f[k]!;
        if (d > -TWO53 && d < TWO53) continue;
        decimalWords(src, rows[k]! * stride, stride, ROW);
        w.set(ROW, 4 * k);
        f[k] = toDouble(ROW);
      }
      return w;
    }
    default:
      throw new Error(`bug: no exact reader for layout ${layout}`);
  }
}

/**
 * f[k] = the nearest double of signed 64-bit row rows[k]; returns whether some value may be at or
 * beyond 2^53 — decided on the high word alone (|high| < 2^21 - 1 is below 2^53; a value just
 * under the limit may be reported wide too, which only costs the wide path).
 */
function gatherI64(src: Int32Array, rows: Int32Array, n: number, f: Float64Array): boolean {
  let big = false;
  for (let k = 0; k < n; k++) {
    const r = rows[k]! << 1;
    const hi = src[r + 1]!;
    f[k] = hi * TWO32 + (src[r]! >>> 0);
    if (hi > 0x1ffffe || hi < -0x1ffffe) big = true;
  }
  return big;
}

function gatherU64(src: Int32Array, rows: Int32Array, n: number, f: Float64Array): boolean {
  let big = false;
  for (let k = 0; k < n; k++) {
    const r = rows[k]! << 1;
    const hi = src[r + 1]!;
    f[k] = (hi >>> 0) * TWO32 + (src[r]! >>> 0);
    if (hi > 0x1ffffe || hi < 0) big = true; // hi < 0: at or beyond 2^63
  }
  return big;
}

/** One decimal value of `stride` words at `base` as four words (sign-extended; beyond 128 bits is an error). */
function decimalWords(src: Uint32Array, base: number, stride: number, out: Uint32Array): void {
  for (let j = 0; j < 4; j++) out[j] = j < stride ? src[base + j]! : 0;
  if (stride < 4) {
    const sign = (src[base + stride - 1]! | 0) < 0 ? 0xffffffff : 0;
    for (let j = stride; j < 4; j++) out[j] = sign;
  } else if (stride > 4) {
    const sign = (src[base + 3]! | 0) < 0 ? 0xffffffff : 0;
    for (let j = 4; j < stride; j++) {
      if (src[base + j] !== sign) throw new ExpressionError('a decimal value does not fit 128 bits (its precision is at most 38 digits)');
    }
  }
}

function gatherBools(data: Data, rows: Int32Array, n: number, out: Uint8Array, nulls: Uint8Array | null): void {
  const bits = data.values as Uint8Array;
  const off = data.offset;
  for (let k = 0; k < n; k++) {
    const p = off + rows[k]!;
    out[k] = (bits[p >> 3]! >> (p & 7)) & 1;
  }
  if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
}

// ---- byte-string sources ------------------------------------------------------------------------

/** Variable-width values as int32 offsets into one byte array (entry e = bytes[offsets[e] .. offsets[e+1])). */
interface ByteSource {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Per-entry NULL mask (only for dictionaries whose values hold NULLs). */
  readonly entryNulls: Uint8Array | null;
}

const sourceCache = new WeakMap<object, ByteSource>();

/** Entries of a Utf8, Binary, LargeUtf8/LargeBinary or view column as a ByteSource (zero-copy for Utf8/Binary). */
function byteSource(data: Data): ByteSource {
  const typeId = data.type.typeId;
  if (typeId === Type.Utf8 || typeId === Type.Binary) {
    return { offsets: data.valueOffsets as Int32Array, bytes: (data.values as Uint8Array) ?? new Uint8Array(0), entryNulls: null };
  }
  const cached = sourceCache.get(data);
  if (cached !== undefined) return cached;
  let src: ByteSource;
  if (typeId === Type.LargeUtf8 || typeId === Type.LargeBinary) {
    const w = int32View(data.valueOffsets as ArrayBufferView);
    const count = w.length >> 1;
    const offsets = new Int32Array(count);
    for (let e = 0; e < count; e++) {
      if (w[2 * e + 1] !== 0 || w[2 * e]! < 0) {
        throw new UnsupportedTypeError('(large string column)', String(data.type), 'in filters beyond 2 GiB of bytes per batch');
      }
      offsets[e] = w[2 * e]!;
    }
    src = { offsets, bytes: (data.values as Uint8Array) ?? new Uint8Array(0), entryNulls: null };
  } else if (typeId === Type.Utf8View || typeId === Type.BinaryView) {
    src = materializeViews(data);
  } else {
    throw new Error(`bug: no byte source for ${String(data.type)}`);
  }
  sourceCache.set(data, src);
  return src;
}

/** Copy a view column (16-byte views: inline <= 12 bytes, else buffer index + offset) into offsets + bytes. */
function materializeViews(data: Data): ByteSource {
  const views = data.values as Uint8Array;
  const dv = new DataView(views.buffer, views.byteOffset, views.byteLength);
  const buffers = data.variadicBuffers as readonly Uint8Array[];
  const count = data.length;
  const offsets = new Int32Array(count + 1);
  let total = 0;
  for (let e = 0; e < count; e++) {
    total += Math.max(0, dv.getInt32(16 * e, true));
    offsets[e + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let e = 0; e < count; e++) {
    const size = offsets[e + 1]! - offsets[e]!;
    if (size === 0) continue;
    const v = 16 * e;
    const chunk =
      size <= 12
        ? views.subarray(v + 4, v + 4 + size)
        : buffers[dv.getInt32(v + 8, true)]!.subarray(dv.getInt32(v + 12, true), dv.getInt32(v + 12, true) + size);
    bytes.set(chunk, offsets[e]!);
  }
  return { offsets, bytes, entryNulls: null };
}

/** A dictionary's values as one ByteSource (concatenating chunks, recording NULL entries). */
function dictionarySource(dict: Vector): ByteSource {
  const chunks = dict.data;
  if (chunks.length === 1 && chunks[0]!.nullCount === 0) return byteSource(chunks[0]!);
  const cached = sourceCache.get(dict);
  if (cached !== undefined) return cached;
  let count = 0;
  let total = 0;
  const parts = chunks.map((c) => {
    const s = byteSource(c);
    count += c.length;
    total += s.offsets[c.length]! - s.offsets[0]!;
    return s;
  });
  const offsets = new Int32Array(count + 1);
  const bytes = new Uint8Array(total);
  const entryNulls = new Uint8Array(count);
  let e = 0;
  let pos = 0;
  for (let c = 0; c < chunks.length; c++) {
    const data = chunks[c]!;
    const s = parts[c]!;
    const start = s.offsets[0]!;
    const end = s.offsets[data.length]!;
    bytes.set(s.bytes.subarray(start, end), pos);
    const bm = data.nullCount > 0 ? data.nullBitmap : undefined;
    for (let i = 0; i < data.length; i++, e++) {
      offsets[e] = pos + s.offsets[i]! - start;
      if (bm !== undefined) {
        const p = data.offset + i;
        entryNulls[e] = ((bm[p >> 3]! >> (p & 7)) & 1) ^ 1;
      }
    }
    pos += end - start;
  }
  offsets[count] = pos;
  const src = { offsets, bytes, entryNulls };
  sourceCache.set(dict, src);
  return src;
}

/** Byte-wise comparison of two entries: < 0, 0, > 0 (shorter prefix first). */
function compareBytes(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): number {
  const la = ae - as;
  const lb = be - bs;
  const m = la < lb ? la : lb;
  for (let i = 0; i < m; i++) {
    const d = a[as + i]! - b[bs + i]!;
    if (d !== 0) return d;
  }
  return la - lb;
}
// ---- nodes --------------------------------------------------------------------------------------

// Three-valued logic tables indexed by a * 3 + b (0 false, 1 true, 2 NULL).
const AND_LUT = Uint8Array.of(0, 0, 0, 0, 1, 2, 0, 2, 2);
const OR_LUT = Uint8Array.of(0, 1, 2, 1, 1, 1, 2, 1, 2);
const NOT_LUT = Uint8Array.of(1, 0, 2);

class ColumnNode extends Node {
  private nullBuf?: Uint8Array;
  private numBuf?: Float64Array;
  private wordBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private n = 0;
  private readonly words = (): Uint32Array => (this.wordBuf = u32(this.wordBuf, 4 * this.n));

  constructor(
    private readonly side: Side,
    private readonly name: string,
    private readonly index: number,
    private readonly type: ColumnType,
    label: string,
  ) {
    super(type.cls, label);
  }

  /** This column's Data in the current batch; re-resolved by name if the batch's schema differs. */
  private column(ctx: Ctx): Data {
    const batch = this.side === 'left' ? ctx.left : ctx.right;
    const fields = batch.schema.fields;
    let idx = this.index;
    if (fields[idx]?.name !== this.name) {
      idx = fields.findIndex((f) => f.name === this.name);
      if (idx < 0) throw new MissingColumnError(this.name, `${this.side} input`, fields.map((f) => f.name));
    }
    const data = batch.data.children[idx]!;
    const now = columnType(data.type);
    if (now === null || now.layout !== this.type.layout || now.cls.sql !== this.type.cls.sql) {
      throw new ExpressionError(
        `column ${this.label} has type ${String(data.type)} in this batch, but the filter was compiled for ${this.type.cls.sql}`,
      );
    }
    return data;
  }

  private rows(ctx: Ctx): Int32Array {
    return this.side === 'left' ? ctx.leftRows : ctx.rightRows;
  }

  override num(ctx: Ctx): NumVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const values = (this.numBuf = f64(this.numBuf, ctx.n));
    gatherFloats(data, this.type.layout, rows, ctx.n, values);
    return { values, nulls: gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))) };
  }

  override exact(ctx: Ctx): ExactVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const f = (this.numBuf = f64(this.numBuf, ctx.n));
    this.n = ctx.n;
    const words = gatherExact(data, this.type.layout, rows, ctx.n, f, this.words);
    const nulls = gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n)));
    if (words === null || words instanceof Uint32Array) return { f, w: words, src: null, nulls };
    return { f, w: null, src: words, nulls };
  }

  override bool(ctx: Ctx): Uint8Array {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const out = (this.boolBuf = u8(this.boolBuf, ctx.n));
    gatherBools(data, rows, ctx.n, out, gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))));
    return out;
  }

  override str(ctx: Ctx): StrVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const n = ctx.n;
    const rowNulls = gatherNulls(data, rows, n, (this.nullBuf = u8(this.nullBuf, n)));
    if (this.type.layout === 'bytes') {
      const src = byteSource(data);
      return { offsets: src.offsets, bytes: src.bytes, idx: rows, nulls: rowNulls, entries: src.offsets.length - 1 };
    }
    // dictionary: entry = code; NULL if the row or its dictionary entry is NULL
    const src = dictionarySource(data.dictionary!);
    const idx = (this.idxBuf = i32(this.idxBuf, n));
    const codes = data.values as ArrayLike<number> & ArrayBufferView;
    if (((data.type as Dictionary).indices.bitWidth as number) === 64) {
      const w = int32View(codes);
      for (let k = 0; k < n; k++) idx[k] = w[rows[k]! << 1]!;
    } else {
      for (let k = 0; k < n; k++) idx[k] = codes[rows[k]!]!;
    }
    let nulls = rowNulls;
    if (rowNulls !== null) for (let k = 0; k < n; k++) if (rowNulls[k]) idx[k] = 0;
    const en = src.entryNulls;
    if (en !== null) {
      const buf = (this.nullBuf = u8(this.nullBuf, n));
      for (let k = 0; k < n; k++) buf[k] = (rowNulls !== null ? rowNulls[k]! : 0) | en[idx[k]!]!;
      nulls = buf;
    }
    return { offsets: src.offsets, bytes: src.bytes, idx, nulls, entries: src.offsets.length - 1 };
  }
}

/**
 * A constant. Buffers are filled when (re)allocated only: their content never changes. An exact
 * value (integer, decimal unscaled, temporal) is a bigint; a DOUBLE a number.
 */
class LiteralNode extends Node {
  override readonly intLiteral: bigint | null;
  private numBuf?: Float64Array;
  private wordBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private readonly words: Uint32Array | null;
  private readonly approx: number;
  private readonly utf8: ByteSource | null;

  constructor(
    cls: VClass,
    label: string,
    private readonly value: number | boolean | string | bigint,
    intLiteral: bigint | null = null,
  ) {
    super(cls, label);
    this.intLiteral = intLiteral;
    if (typeof value === 'bigint') {
      const words = wordsOf(value);
      this.approx = toDouble(words);
      this.words = this.approx > -TWO53 && this.approx < TWO53 ? null : words;
    } else {
      this.approx = typeof value === 'number' ? value : 0;
      this.words = null;
    }
    if (typeof value === 'string') {
      const bytes = new TextEncoder().encode(value);
      this.utf8 = { offsets: Int32Array.of(0, bytes.length), bytes, entryNulls: null };
    } else {
      this.utf8 = null;
    }
  }

  override num(ctx: Ctx): NumVec {
    if (this.numBuf === undefined || this.numBuf.length < ctx.n) this.numBuf = new Float64Array(ctx.n).fill(this.approx);
    return { values: this.numBuf, nulls: null };
  }

  override exact(ctx: Ctx): ExactVec {
    const words = this.words;
    if (this.numBuf === undefined || this.numBuf.length < ctx.n) {
      this.numBuf = new Float64Array(ctx.n).fill(this.approx);
      if (words !== null) {
        const w = (this.wordBuf = new Uint32Array(4 * ctx.n));
        for (let k = 0; k < ctx.n; k++) w.set(words, 4 * k);
      }
    }
    return { f: this.numBuf, w: words === null ? null : this.wordBuf!, src: null, nulls: null };
  }

  override bool(ctx: Ctx): Uint8Array {
    if (this.boolBuf === undefined || this.boolBuf.length < ctx.n) this.boolBuf = new Uint8Array(ctx.n).fill(this.value ? 1 : 0);
    return this.boolBuf;
  }

  override str(ctx: Ctx): StrVec {
    const src = this.utf8!;
    this.idxBuf = i32(this.idxBuf, ctx.n); // all zeros: entry 0
    return { offsets: src.offsets, bytes: src.bytes, idx: this.idxBuf, nulls: null, entries: 1 };
  }
}

/** SQL NULL (also the result of a comparison or arithmetic with a NULL literal): NULL for every pair. */
class NullNode extends Node {
  private nullBuf?: Uint8Array;
  private boolBuf?: Uint8Array;

  override bool(ctx: Ctx): Uint8Array {
    if (this.boolBuf === undefined || this.boolBuf.length < ctx.n) this.boolBuf = new Uint8Array(ctx.n).fill(2);
    return this.boolBuf;
  }

  override nulls(ctx: Ctx): Uint8Array {
    if (this.nullBuf === undefined || this.nullBuf.length < ctx.n) this.nullBuf = new Uint8Array(ctx.n).fill(1);
    return this.nullBuf;
  }
}

class CompareBools extends CompareNode {
  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.bool(ctx);
    const y = this.b.bool(ctx);
    const out = (this.buf = u8(this.buf, n));
    const lut = this.lut;
    for (let k = 0; k < n; k++) {
      const p = x[k]!;
      const q = y[k]!;
      out[k] = p === 2 || q === 2 ? 2 : lut[p - q + 1]!;
    }
    return out;
  }
}

/** Byte-wise comparison; with a literal on one side, compared once per entry when that is cheaper. */
class CompareStrings extends CompareNode {
  private entryBuf?: Uint8Array;

  constructor(
    op: CompareOp,
    a: Node,
    b: Node,
    label: string,
    /** Which operand is a literal, if any. */
    private readonly constant: 'a' | 'b' | null,
  ) {
    super(op, a, b, label);
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.str(ctx);
    const y = this.b.str(ctx);
    const nulls = mergeNulls(x.nulls, y.nulls, n, (this.nullBuf = u8(this.nullBuf, n)));
    const out = (this.buf = u8(this.buf, n));
    const lut = this.lut;
    const column = this.constant === 'a' ? y : x;
    if (this.constant !== null && column.entries <= n) {
      // Decide each entry once against the literal, then map pairs through their entry index.
      const lit = this.constant === 'a' ? x : y;
      const ls = lit.offsets[0]!;
      const le = lit.offsets[1]!;
      const entries = column.entries;
      const res = (this.entryBuf = u8(this.entryBuf, entries));
      const { offsets, bytes } = column;
      const sign = this.constant === 'a' ? -1 : 1;
      for (let e = 0; e < entries; e++) {
        const c = sign * compareBytes(bytes, offsets[e]!, offsets[e + 1]!, lit.bytes, ls, le);
        res[e] = lut[c < 0 ? 0 : c === 0 ? 1 : 2]!;
      }
      const idx = column.idx;
      for (let k = 0; k < n; k++) out[k] = res[idx[k]!]!;
    } else {
      const { offsets: xo, bytes: xb, idx: xi } = x;
      const { offsets: yo, bytes: yb, idx: yi } = y;
      for (let k = 0; k < n; k++) {
        if (nulls !== null && nulls[k]) continue;
        const p = xi[k]!;
        const q = yi[k]!;
        const c = compareBytes(xb, xo[p]!, xo[p + 1]!, yb, yo[q]!, yo[q + 1]!);
        out[k] = lut[c < 0 ? 0 : c === 0 ? 1 : 2]!;
      }
    }
    if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
    return out;
  }
}

/** n-ary AND / OR; stops once every pair is decided (all false / all true). */
class LogicNode extends Node {
  private buf?: Uint8Array;
  private liveBuf?: Uint8Array;
  /** Index of the last argument that can raise: live masks are needed only before it. */
  private readonly lastRaising: number;

  constructor(
    private readonly isAnd: boolean,
    private readonly args: readonly Node[],
    label: string,
  ) {
    super(BOOLEAN, label);
    let last = -1;
    args.forEach((a, i) => {
      if (a.mayRaise) last = i;
    });
    this.lastRaising = last;
  }

  override get mayRaise(): boolean {
    return this.lastRaising >= 0;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    const lut = this.isAnd ? AND_LUT : OR_LUT;
    const decided = this.isAnd ? 0 : 1;
    const args = this.args;
    out.fill(this.isAnd ? 1 : 0, 0, n);
    let sub = ctx;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.bool(sub);
      let open = 0;
      if (i >= this.lastRaising) {
        for (let k = 0; k < n; k++) {
          const r = lut[out[k]! * 3 + v[k]!]!;
          out[k] = r;
          open |= r ^ decided ? 1 : 0;
        }
      } else {
        // the next arguments matter only for the pairs still undecided (and live above)
        const live = (this.liveBuf = u8(this.liveBuf, n));
        const parent = ctx.live;
        for (let k = 0; k < n; k++) {
          const r = lut[out[k]! * 3 + v[k]!]!;
          out[k] = r;
          const undecided = r ^ decided ? 1 : 0;
          open |= undecided;
          live[k] = parent === null ? undecided : undecided & parent[k]!;
        }
        if (i === 0) sub = { ...ctx, live };
      }
      if (open === 0) break;
    }
    return out;
  }
}

class NotNode extends Node {
  private buf?: Uint8Array;

  constructor(
    private readonly arg: Node,
    label: string,
  ) {
    super(BOOLEAN, label);
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const v = this.arg.bool(ctx);
    const out = (this.buf = u8(this.buf, n));
    for (let k = 0; k < n; k++) out[k] = NOT_LUT[v[k]!]!;
    return out;
  }
}

class IsNullNode extends Node {
  private buf?: Uint8Array;

  constructor(
    private readonly arg: Node,
    private readonly negated: boolean,
    label: string,
  ) {
    super(BOOLEAN, label);
  }

  override get mayRaise(): boolean {
    return this.arg.mayRaise;
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    const flip = this.negated ? 1 : 0;
    if (this.arg.cls.c === 'bool') {
      const v = this.arg.bool(ctx);
      for (let k = 0; k < n; k++) out[k] = (v[k] === 2 ? 1 : 0) ^ flip;
      return out;
    }
    const nulls = this.arg.nulls(ctx);
    if (nulls === null) out.fill(flip, 0, n);
    else for (let k = 0; k < n; k++) out[k] = nulls[k]! ^ flip;
    return out;
  }
}

// ---- compiler (type checking) -------------------------------------------------------------------

function labelOf(e: Expr): string {
  try {
    return formatExpr(e);
  } catch {
    return e.kind === 'literal' ? String(e.value) : `(${e.kind} expression)`;
  }
}

type NumNode = Node & { readonly cls: VClass & { c: 'num' } };

/** A one-pair context for evaluating literal-only nodes at compile time (they read no batch). */
const CONSTANT_CTX: Ctx = {
  left: undefined as never,
  leftRows: new Int32Array(1),
  right: undefined as never,
  rightRows: new Int32Array(1),
  n: 1,
  live: null,
};

class Compiler {
  /** Nodes built from literals only (DuckDB's "foldable" expressions). */
  private readonly constants = new WeakSet<Node>();

  constructor(
    private readonly leftSchema: Schema,
    private readonly rightSchema: Schema,
  ) {}

  /** The schema's spelling of a column: exact match first, then a unique case-insensitive match. */
  resolveName(side: Side, name: string): string {
    return (side === 'left' ? this.leftSchema : this.rightSchema).fields[this.fieldIndex(side, name)]!.name;
  }

  columnsOf(expr: Expr): { left: string[]; right: string[] } {
    const refs = referencedColumns(expr);
    return {
      left: [...refs.left].map((n) => this.resolveName('left', n)),
      right: [...refs.right].map((n) => this.resolveName('right', n)),
    };
  }

  private fieldIndex(side: Side, name: string): number {
    const fields = (side === 'left' ? this.leftSchema : this.rightSchema).fields;
    const exact = fields.findIndex((f) => f.name === name);
    if (exact >= 0) return exact;
    const lower = name.toLowerCase();
    const matches = fields.flatMap((f, i) => (f.name.toLowerCase() === lower ? [i] : []));
    if (matches.length === 1) return matches[0]!;
    throw new MissingColumnError(name, `${side} input`, fields.map((f) => f.name));
  }

  compile(e: Expr): Node {
    const label = labelOf(e);
    switch (e.kind) {
      case 'column': {
        const index = this.fieldIndex(e.side, e.name);
        const field = (e.side === 'left' ? this.leftSchema : this.rightSchema).fields[index]!;
        const type = columnType(field.type);
        if (type === null) throw new UnsupportedTypeError(`${e.side}.${field.name}`, String(field.type), 'in filter expressions');
        return new ColumnNode(e.side, field.name, index, type, label);
      }
      case 'literal': {
        const node = this.literal(e.value, label);
        this.constants.add(node);
        return node;
      }
      case 'arith': {
        const a = this.compile(e.left);
        const b = this.compile(e.right);
        for (const x of [a, b]) {
          if (x.cls.c !== 'num' && x.cls.c !== 'null') {
            throw new ExpressionError(`cannot apply '${e.op}' to ${x.label} (${x.cls.sql}): arithmetic needs numbers, in ${label}`);
          }
        }
        if (a instanceof NullNode || b instanceof NullNode) return this.nullArith(e.op, a, b, label);
        const node = this.arith(e.op, a as NumNode, b as NumNode, label);
        if (!this.constants.has(a) || !this.constants.has(b)) return node;
        // literals only: DuckDB's binder folds such an argument when it is NULL (`1 // 0`), so
        // find out now; one that overflows stays, and fails at run time as in DuckDB
        return this.isNullValue(node) ? new NullNode(node.cls, label) : (this.constants.add(node), node);
      }
      case 'compare':
        return this.compileCompare(e.op, this.compile(e.left), this.compile(e.right), e, label);
      case 'and':
      case 'or': {
        const args = e.args.map((a) => this.booleanOperand(this.compile(a), e.kind.toUpperCase()));
        return new LogicNode(e.kind === 'and', args, label);
      }
      case 'not':
        return new NotNode(this.booleanOperand(this.compile(e.arg), 'NOT'), label);
      case 'is-null': {
        const arg = this.compile(e.arg);
        if (arg instanceof NullNode) return new LiteralNode(BOOLEAN, label, !e.negated);
        return new IsNullNode(arg, e.negated, label);
      }
    }
  }

  private literal(v: number | bigint | string | boolean | null, label: string): Node {
    if (v === null) return new NullNode(NULL_CLASS, label);
    if (typeof v === 'boolean') return new LiteralNode(BOOLEAN, label, v);
    if (typeof v === 'string') return new LiteralNode({ c: 'str', sql: 'VARCHAR' }, label, v);
    const lt = literalType(v, label);
    if (lt.unscaled === null) return new LiteralNode(numClass(DOUBLE), label, Number(v));
    return new LiteralNode(numClass(lt.t), label, lt.unscaled, lt.int);
  }

  /** `a op b` with DuckDB's typing: operands converted to the operation's types first. */
  private arith(op: ArithOp, a: NumNode, b: NumNode, label: string): Node {
    const ta = a.cls.t;
    const tb = b.cls.t;
    const bind = bindArithmetic(op, ta, tb, a.intLiteral, b.intLiteral, label);
    const cls = numClass(bind.result);
    if (!isExact(bind.result)) {
      const single = bind.result.k === 'f32';
      return new ArithFloatNode(op, this.toFloat(a, single), this.toFloat(b, single), single, cls, label, bind.zeroIsNull === true);
    }
    return new ArithExactNode(op, this.toExact(a, bind.left, label), this.toExact(b, bind.right, label), bind.result, cls, label);
  }

  /**
   * Arithmetic with a NULL argument — the NULL literal, or literals-only arithmetic that is NULL —
   * is NULL, and its other argument is never evaluated: DuckDB's binder makes such a call a NULL
   * constant (`FunctionBinder::BindScalarFunction`, src/function/function_binder.cpp), typed by
   * the overload it picked (the NULL literal takes the other argument's type). A decimal overload
   * has no type before it is bound, so that NULL is untyped (SQLNULL) there too.
   */
  private nullArith(op: ArithOp, a: Node, b: Node, label: string): Node {
    const ta = a.cls.c === 'num' ? a.cls.t : null;
    const tb = b.cls.c === 'num' ? b.cls.t : null;
    const x = ta ?? tb;
    const y = tb ?? ta;
    if (x === null || y === null) return new NullNode(NULL_CLASS, label);
    let t: NumType | null;
    if (x.k === 'f64' || y.k === 'f64') t = DOUBLE;
    else if (x.k === 'f32' || y.k === 'f32') t = FLOAT;
    else if (op === '/') t = DOUBLE;
    else if (x.k === 'int' && y.k === 'int') t = bindArithmetic(op, x, y, null, null, label).result;
    else t = op === '//' ? DOUBLE : null;
    return new NullNode(t === null ? NULL_CLASS : numClass(t), label);
  }

  /** Whether a literals-only numeric node is NULL (false when evaluating it raises: it then fails at run time). */
  private isNullValue(node: Node): boolean {
    try {
      const t = (node.cls as VClass & { c: 'num' }).t;
      const nulls = isExact(t) ? node.exact(CONSTANT_CTX).nulls : node.num(CONSTANT_CTX).nulls;
      return nulls !== null && nulls[0] === 1;
    } catch (e) {
      if (e instanceof ExpressionError) return false;
      throw e;
    }
  }

  /** A numeric node as FLOAT (single) or DOUBLE values. */
  private toFloat(x: NumNode, single: boolean): Node {
    const t = x.cls.t;
    if (!isExact(t)) return x; // FLOAT values are exact in a double, DOUBLE stays
    return new ToFloatNode(x, t, single, numClass(single ? FLOAT : DOUBLE), x.label);
  }

  /** An exact node converted to `to` (a decimal of a larger scale needs its unscaled values scaled up). */
  private toExact(x: NumNode, to: NumType, label: string): Node {
    const from = x.cls.t;
    const scale = from.k === 'dec' ? from.s : 0;
    if (to.k === 'dec' && to.s > scale) return new RescaleNode(x, from, to, label);
    return x;
  }

  private booleanOperand(x: Node, op: string): Node {
    if (x.cls.c === 'bool') return x;
    if (x.cls.c === 'null') return new NullNode(BOOLEAN, x.label);
    throw new ExpressionError(`${op} needs boolean operands, but ${x.label} has type ${x.cls.sql}`);
  }

  private compileCompare(op: CompareOp, a: Node, b: Node, e: Expr & { kind: 'compare' }, label: string): Node {
    const ca = a.cls;
    const cb = b.cls;
    const mismatch = (why = ''): never => {
      throw new ExpressionError(`cannot compare ${a.label} (${ca.sql}) with ${b.label} (${cb.sql})${why} in ${label}`);
    };
    if (a instanceof NullNode || b instanceof NullNode) return new NullNode(BOOLEAN, label);
    if (ca.c === 'num' && cb.c === 'num') {
      const common = bindComparison(ca.t, cb.t, a.intLiteral, b.intLiteral);
      if (!isExact(common)) {
        const single = common.k === 'f32';
        return new CompareNumbers(op, this.toFloat(a as NumNode, single), this.toFloat(b as NumNode, single), label);
      }
      return new CompareExact(op, this.toExact(a as NumNode, common, label), this.toExact(b as NumNode, common, label), label);
    }
    if (ca.c === 'time' || cb.c === 'time') {
      if (ca.c === 'time' && cb.c === 'time') {
        if (ca.unit !== cb.unit) mismatch(': dates and timestamps compare only within the same unit');
        return new CompareExact(op, a, b, label);
      }
      // a temporal column against a string literal: convert the literal once
      const [t, other, otherExpr] = ca.c === 'time' ? [ca, b, e.right] : [cb as VClass & { c: 'time' }, a, e.left];
      if (otherExpr.kind !== 'literal' || typeof otherExpr.value !== 'string') mismatch();
      const value = parseTemporal((otherExpr as { value: string }).value, t.unit, t.sql, label);
      const lit = new LiteralNode(t, other.label, value);
      return ca.c === 'time' ? new CompareExact(op, a, lit, label) : new CompareExact(op, lit, b, label);
    }
    if (ca.c === cb.c && (ca.c === 'str' || ca.c === 'bin')) {
      const constant = e.left.kind === 'literal' ? 'a' : e.right.kind === 'literal' ? 'b' : null;
      return new CompareStrings(op, a, b, label, constant);
    }
    if (ca.c === 'bool' && cb.c === 'bool') return new CompareBools(op, a, b, label);
    return mismatch();
  }
}

// ---- temporal literals --------------------------------------------------------------------------

const TEMPORAL_RE =
  /^\s*(-?\d{1,6})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(?:Z|UTC|[+-]00(?::?00)?)?\s*$/i;
const UNIT_DIGITS: Record<TemporalUnit, number> = { day: 0, 'date-ms': 3, s: 0, ms: 3, us: 6, ns: 9 };

/** '2024-01-31[ 12:34[:56[.789]]]' (UTC) as an integer count of `unit` since the epoch. */
function parseTemporal(text: string, unit: TemporalUnit, sql: string, where: string): bigint {
  const bad = (why: string): never => {
    throw new ExpressionError(`cannot compare ${sql} with '${text}': ${why} in ${where}`);
  };
  const m = TEMPORAL_RE.exec(text);
  if (m === null) return bad("expected a date like '2024-01-31' or a timestamp like '2024-01-31 12:00:00'");
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m.slice(1) as string[];
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) bad('no such date');
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) bad('no such time of day');
  const days = BigInt(Math.round(date.getTime() / 86_400_000));
  if (unit === 'day') {
    if (m[4] !== undefined && (Number(h) | Number(mi) | Number(s)) !== 0) bad('a DATE has no time of day');
    if (frac !== '' && /[1-9]/.test(frac)) bad('a DATE has no time of day');
    return days;
  }
  const digits = UNIT_DIGITS[unit];
  if (frac.replace(/0+$/, '').length > digits) bad(`more fractional digits than ${sql} holds`);
  const seconds = days * 86_400n + BigInt(Number(h) * 3600 + Number(mi) * 60 + Number(s));
  const scale = 10n ** BigInt(digits);
  const fraction = BigInt((frac + '000000000').slice(0, digits) || '0');
  return seconds * scale + fraction;
}
