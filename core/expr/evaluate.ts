/**
 * Residual-filter evaluation over batches of candidate pairs (left row i, right row j).
 *
 * Why this shape: a join produces candidate pairs as two index arrays; the filter decides, per
 * pair, whether to keep it. `compileFilter` type-checks the expression against both schemas once
 * (so a bad filter fails before any data is read) and builds a tree of nodes; `evaluate` runs each
 * node over the whole pair batch into typed arrays, never per row and never creating a JS value
 * per row:
 *   - numbers: Float64Array + a null byte mask (1 = NULL), or `null` when nothing is NULL;
 *   - exact integers (only where needed): (hi: Float64Array, lo: Uint32Array) with
 *     value = hi * 2^32 + lo, hi in [-2^31, 2^32), so signed and unsigned 64-bit values of any
 *     width compare exactly against each other by (hi, lo) without BigInt. Int64 buffers are read
 *     through Int32Array views;
 *   - booleans: three-valued bytes, 0 = false, 1 = true, 2 = NULL;
 *   - strings/binary: Arrow offsets + bytes + a per-pair entry index (the row, or the dictionary
 *     code), compared byte-wise (= DuckDB's default binary collation; byte order of UTF-8 is code
 *     point order). Dictionary columns are compared through their codes; a comparison with a
 *     literal is done once per dictionary entry when that is cheaper. LargeUtf8 offsets and
 *     Utf8View/BinaryView columns are normalised once per batch (cached by Data object).
 *
 * Semantics (DuckDB's):
 *   - SQL three-valued logic; a pair is kept only when the filter is TRUE (NULL counts as false).
 *   - Comparing two integer operands is exact over 64 bits (any widths, signed or unsigned) when
 *     one of them is a 64-bit column; integer literals are exact too (the parser rejects integer
 *     literals that float64 cannot hold). Every other numeric comparison and all arithmetic are
 *     float64 (so int64 + int64 may round above 2^53; `/` is float division, x/0 = ±inf/NaN, as
 *     DuckDB's DOUBLE division). Integer vs float *column* compares in float64 like DuckDB's
 *     implicit cast to DOUBLE.
 *   - Floats: NaN = NaN, NaN is greater than every number (including +inf), -0.0 = 0.0.
 *   - Decimal128/256 is read as the float64 nearest the scaled value (approximate above 2^53
 *     units of the last place; exact decimal comparison is not implemented).
 *   - Date32, Date64 and Timestamp compare as exact integers, only against the same type and unit
 *     (a cross-unit comparison is an ExpressionError), or against a string literal
 *     ('2024-01-31', '2024-01-31 12:00:00.123', UTC) converted once at compile time.
 *   - Booleans compare false < true.
 * Degenerate cases: `count = 0` returns at once; a NULL literal makes a comparison NULL for every
 * pair (its other operand is still type-checked, never evaluated); `AND`/`OR` stop evaluating
 * further arguments once every pair is decided; 0-ary AND is TRUE, 0-ary OR is FALSE.
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
import { type CompareOp, type Expr, referencedColumns } from './ast.ts';
import { formatExpr } from './parse.ts';

// ---- public API ---------------------------------------------------------------------------------

export interface CompiledFilter {
  readonly expr: Expr;
  /** Columns the filter reads, per side, as named in the schemas (for projection). */
  readonly columns: { readonly left: readonly string[]; readonly right: readonly string[] };
  /**
   * For each k < count: 1 if the filter is TRUE for (left row leftRows[k], right row rightRows[k]),
   * else 0. Writes into `out` (first `count` bytes) and returns it when given, else a new array.
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

/**
 * Type-check `expr` against both input schemas and build its evaluator.
 * Throws MissingColumnError (unknown column; names the side and its columns), UnsupportedTypeError
 * (a column type the evaluator cannot read) or ExpressionError (type errors, non-boolean filter).
 */
export function compileFilter(expr: Expr, leftSchema: Schema, rightSchema: Schema): CompiledFilter {
  const compiler = new Compiler(leftSchema, rightSchema);
  const root = compiler.compile(expr);
  if (root.cls.c !== 'bool' && root.cls.c !== 'null') {
    throw new ExpressionError(`a filter must be a boolean expression, but ${root.label} has type ${root.cls.sql}`);
  }
  const refs = referencedColumns(expr);
  const columns = {
    left: [...refs.left].map((n) => compiler.resolveName('left', n)),
    right: [...refs.right].map((n) => compiler.resolveName('right', n)),
  };
  return {
    expr,
    columns,
    evaluate(left, leftRows, right, rightRows, count, out) {
      if (!(count >= 0) || leftRows.length < count || rightRows.length < count) {
        throw new RangeError(`evaluate: count ${count} exceeds the row index arrays (${leftRows.length}, ${rightRows.length})`);
      }
      const result = out ?? new Uint8Array(count);
      if (result.length < count) throw new RangeError(`evaluate: out has ${result.length} bytes, need ${count}`);
      if (count === 0) return result;
      if (root.cls.c === 'null') {
        result.fill(0, 0, count);
        return result;
      }
      const v = root.bool({ left, leftRows, right, rightRows, n: count });
      for (let k = 0; k < count; k++) result[k] = v[k] === 1 ? 1 : 0;
      return result;
    },
  };
}

// ---- value classes (compile-time types) --------------------------------------------------------

type TemporalUnit = 'day' | 'date-ms' | 's' | 'ms' | 'us' | 'ns';

type VClass =
  /** `integral`: integer column or integer literal; `wide`: a 64-bit integer column (float64 may round it). */
  | { readonly c: 'num'; readonly sql: string; readonly integral: boolean; readonly wide: boolean }
  | { readonly c: 'bool' | 'str' | 'bin' | 'null'; readonly sql: string }
  | { readonly c: 'time'; readonly sql: string; readonly unit: TemporalUnit };

const DOUBLE: VClass = { c: 'num', sql: 'DOUBLE', integral: false, wide: false };
const BOOLEAN: VClass = { c: 'bool', sql: 'BOOLEAN' };
const NULL_CLASS: VClass = { c: 'null', sql: 'NULL' };

/** How a column's buffers are read. */
type Layout = 'small-int' | 'i64' | 'u64' | 'float' | 'half' | 'decimal' | 'bool' | 'bytes' | 'dict';

interface ColumnType {
  readonly cls: VClass;
  readonly layout: Layout;
}

const INT_NAMES: Record<string, string> = {
  s8: 'TINYINT',
  s16: 'SMALLINT',
  s32: 'INTEGER',
  s64: 'BIGINT',
  u8: 'UTINYINT',
  u16: 'USMALLINT',
  u32: 'UINTEGER',
  u64: 'UBIGINT',
};
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
      const name = INT_NAMES[(t.isSigned ? 's' : 'u') + t.bitWidth]!;
      const wide = t.bitWidth === 64;
      return { cls: { c: 'num', sql: name, integral: true, wide }, layout: wide ? (t.isSigned ? 'i64' : 'u64') : 'small-int' };
    }
    case Type.Float: {
      const p = (type as Float).precision;
      const sql = p === Precision.HALF ? 'HALF' : p === Precision.SINGLE ? 'FLOAT' : 'DOUBLE';
      return { cls: { c: 'num', sql, integral: false, wide: false }, layout: p === Precision.HALF ? 'half' : 'float' };
    }
    case Type.Decimal: {
      const t = type as Decimal;
      return { cls: { c: 'num', sql: `DECIMAL(${t.precision},${t.scale})`, integral: false, wide: false }, layout: 'decimal' };
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

// ---- vectors and scratch buffers ---------------------------------------------------------------

/** One evaluation: the pair batch. */
interface Ctx {
  readonly left: RecordBatch;
  readonly leftRows: Int32Array;
  readonly right: RecordBatch;
  readonly rightRows: Int32Array;
  readonly n: number;
}

interface NumVec {
  readonly values: Float64Array;
  readonly nulls: Uint8Array | null;
}

interface IntVec {
  readonly hi: Float64Array;
  readonly lo: Uint32Array;
  readonly nulls: Uint8Array | null;
}

interface StrVec {
  readonly offsets: Int32Array;
  readonly bytes: Uint8Array;
  /** Entry (offsets index) per pair. */
  readonly idx: Int32Array;
  readonly nulls: Uint8Array | null;
  /** Number of entries (offsets.length - 1). */
  readonly entries: number;
}

// Node-owned buffers are reused across calls (evaluate is synchronous and never re-entered) and
// only grow; kernels look at the first `n` elements.
function f64(buf: Float64Array | undefined, n: number): Float64Array {
  return buf !== undefined && buf.length >= n ? buf : new Float64Array(n);
}
function u8(buf: Uint8Array | undefined, n: number): Uint8Array {
  return buf !== undefined && buf.length >= n ? buf : new Uint8Array(n);
}
function u32(buf: Uint32Array | undefined, n: number): Uint32Array {
  return buf !== undefined && buf.length >= n ? buf : new Uint32Array(n);
}
function i32(buf: Int32Array | undefined, n: number): Int32Array {
  return buf !== undefined && buf.length >= n ? buf : new Int32Array(n);
}

/** `a | b` over null masks; `null` stands for "no NULLs". */
function mergeNulls(a: Uint8Array | null, b: Uint8Array | null, n: number, buf: Uint8Array): Uint8Array | null {
  if (a === null) return b;
  if (b === null) return a;
  for (let k = 0; k < n; k++) buf[k] = a[k]! | b[k]!;
  return buf;
}

function int32View(a: ArrayBufferView): Int32Array {
  return new Int32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}
function uint32View(a: ArrayBufferView): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.byteLength >> 2);
}

const TWO32 = 4294967296;

// ---- column readers (gather by row index) -------------------------------------------------------

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

function gatherNumbers(data: Data, layout: Layout, rows: Int32Array, n: number, out: Float64Array): void {
  switch (layout) {
    case 'small-int':
    case 'float': {
      const v = data.values as ArrayLike<number>;
      for (let k = 0; k < n; k++) out[k] = v[rows[k]!]!;
      return;
    }
    case 'half': {
      const v = data.values as Uint16Array;
      for (let k = 0; k < n; k++) out[k] = halfToFloat(v[rows[k]!]!);
      return;
    }
    case 'i64':
    case 'u64': {
      const w = int32View(data.values as ArrayBufferView);
      if (layout === 'i64') {
        for (let k = 0; k < n; k++) {
          const r = rows[k]! << 1;
          out[k] = w[r + 1]! * TWO32 + (w[r]! >>> 0);
        }
      } else {
        for (let k = 0; k < n; k++) {
          const r = rows[k]! << 1;
          out[k] = (w[r + 1]! >>> 0) * TWO32 + (w[r]! >>> 0);
        }
      }
      return;
    }
    case 'decimal': {
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
      throw new Error(`bug: no numeric reader for layout ${layout}`);
  }
}

function gatherInts(data: Data, layout: Layout, rows: Int32Array, n: number, hi: Float64Array, lo: Uint32Array): void {
  switch (layout) {
    case 'small-int': {
      const v = data.values as ArrayLike<number>;
      for (let k = 0; k < n; k++) {
        const x = v[rows[k]!]!;
        hi[k] = x < 0 ? -1 : 0;
        lo[k] = x >>> 0;
      }
      return;
    }
    case 'i64':
    case 'u64': {
      const w = int32View(data.values as ArrayBufferView);
      const signed = layout === 'i64';
      for (let k = 0; k < n; k++) {
        const r = rows[k]! << 1;
        const h = w[r + 1]!;
        hi[k] = signed ? h : h >>> 0;
        lo[k] = w[r]! >>> 0;
      }
      return;
    }
    default:
      throw new Error(`bug: no integer reader for layout ${layout}`);
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

/** Comparison outcome index: 0 = less, 1 = equal, 2 = greater; LUT maps it to 0/1 per operator. */
const COMPARE_LUT: Record<CompareOp, Uint8Array> = {
  '=': Uint8Array.of(0, 1, 0),
  '<>': Uint8Array.of(1, 0, 1),
  '<': Uint8Array.of(1, 0, 0),
  '<=': Uint8Array.of(1, 1, 0),
  '>': Uint8Array.of(0, 0, 1),
  '>=': Uint8Array.of(0, 1, 1),
};
// Three-valued logic tables indexed by a * 3 + b (0 false, 1 true, 2 NULL).
const AND_LUT = Uint8Array.of(0, 0, 0, 0, 1, 2, 0, 2, 2);
const OR_LUT = Uint8Array.of(0, 1, 2, 1, 1, 1, 2, 1, 2);
const NOT_LUT = Uint8Array.of(1, 0, 2);

abstract class Node {
  constructor(
    readonly cls: VClass,
    readonly label: string,
  ) {}
  num(_ctx: Ctx): NumVec {
    throw new Error(`bug: ${this.label} has no numeric form`);
  }
  int(_ctx: Ctx): IntVec {
    throw new Error(`bug: ${this.label} has no integer form`);
  }
  bool(_ctx: Ctx): Uint8Array {
    throw new Error(`bug: ${this.label} has no boolean form`);
  }
  str(_ctx: Ctx): StrVec {
    throw new Error(`bug: ${this.label} has no string form`);
  }
  /** NULL mask (1 = NULL) or `null` for none; used by IS [NOT] NULL. */
  nulls(ctx: Ctx): Uint8Array | null {
    switch (this.cls.c) {
      case 'num':
        return this.num(ctx).nulls;
      case 'time':
        return this.int(ctx).nulls;
      case 'str':
      case 'bin':
        return this.str(ctx).nulls;
      default:
        throw new Error(`bug: nulls() on ${this.cls.c}`);
    }
  }
}

class ColumnNode extends Node {
  private nullBuf?: Uint8Array;
  private numBuf?: Float64Array;
  private hiBuf?: Float64Array;
  private loBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;

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
    gatherNumbers(data, this.type.layout, rows, ctx.n, values);
    return { values, nulls: gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))) };
  }

  override int(ctx: Ctx): IntVec {
    const data = this.column(ctx);
    const rows = this.rows(ctx);
    const hi = (this.hiBuf = f64(this.hiBuf, ctx.n));
    const lo = (this.loBuf = u32(this.loBuf, ctx.n));
    gatherInts(data, this.type.layout, rows, ctx.n, hi, lo);
    return { hi, lo, nulls: gatherNulls(data, rows, ctx.n, (this.nullBuf = u8(this.nullBuf, ctx.n))) };
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

/** A constant. Buffers are filled when (re)allocated only: their content never changes. */
class LiteralNode extends Node {
  private numBuf?: Float64Array;
  private hiBuf?: Float64Array;
  private loBuf?: Uint32Array;
  private boolBuf?: Uint8Array;
  private idxBuf?: Int32Array;
  private readonly hi: number;
  private readonly lo: number;
  private readonly utf8: ByteSource | null;

  constructor(
    cls: VClass,
    label: string,
    private readonly value: number | boolean | string | bigint,
  ) {
    super(cls, label);
    if (typeof value === 'bigint') {
      this.hi = Number(value >> 32n);
      this.lo = Number(value & 0xffffffffn);
    } else if (typeof value === 'number' && Number.isInteger(value)) {
      this.hi = Math.floor(value / TWO32);
      this.lo = value - this.hi * TWO32;
    } else {
      this.hi = this.lo = 0;
    }
    if (typeof value === 'string') {
      const bytes = new TextEncoder().encode(value);
      this.utf8 = { offsets: Int32Array.of(0, bytes.length), bytes, entryNulls: null };
    } else {
      this.utf8 = null;
    }
  }

  override num(ctx: Ctx): NumVec {
    if (this.numBuf === undefined || this.numBuf.length < ctx.n) this.numBuf = new Float64Array(ctx.n).fill(this.value as number);
    return { values: this.numBuf, nulls: null };
  }

  override int(ctx: Ctx): IntVec {
    if (this.hiBuf === undefined || this.hiBuf.length < ctx.n) {
      this.hiBuf = new Float64Array(ctx.n).fill(this.hi);
      this.loBuf = new Uint32Array(ctx.n).fill(this.lo);
    }
    return { hi: this.hiBuf, lo: this.loBuf!, nulls: null };
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

/** SQL NULL (also the result of a comparison with a NULL literal): NULL for every pair. */
class NullNode extends Node {
  private numBuf?: Float64Array;
  private nullBuf?: Uint8Array;
  private boolBuf?: Uint8Array;

  override num(ctx: Ctx): NumVec {
    this.numBuf = f64(this.numBuf, ctx.n);
    if (this.nullBuf === undefined || this.nullBuf.length < ctx.n) this.nullBuf = new Uint8Array(ctx.n).fill(1);
    return { values: this.numBuf, nulls: this.nullBuf };
  }

  override bool(ctx: Ctx): Uint8Array {
    if (this.boolBuf === undefined || this.boolBuf.length < ctx.n) this.boolBuf = new Uint8Array(ctx.n).fill(2);
    return this.boolBuf;
  }

  override nulls(ctx: Ctx): Uint8Array {
    return this.num(ctx).nulls!;
  }
}

class ArithNode extends Node {
  private buf?: Float64Array;
  private nullBuf?: Uint8Array;

  constructor(
    private readonly op: '+' | '-' | '*' | '/',
    private readonly a: Node,
    private readonly b: Node,
    label: string,
  ) {
    super(DOUBLE, label);
  }

  override num(ctx: Ctx): NumVec {
    const n = ctx.n;
    const x = this.a.num(ctx);
    const y = this.b.num(ctx);
    const out = (this.buf = f64(this.buf, n));
    const xv = x.values;
    const yv = y.values;
    switch (this.op) {
      case '+':
        for (let k = 0; k < n; k++) out[k] = xv[k]! + yv[k]!;
        break;
      case '-':
        for (let k = 0; k < n; k++) out[k] = xv[k]! - yv[k]!;
        break;
      case '*':
        for (let k = 0; k < n; k++) out[k] = xv[k]! * yv[k]!;
        break;
      case '/':
        for (let k = 0; k < n; k++) out[k] = xv[k]! / yv[k]!;
        break;
    }
    return { values: out, nulls: mergeNulls(x.nulls, y.nulls, n, (this.nullBuf = u8(this.nullBuf, n))) };
  }
}

abstract class CompareNode extends Node {
  protected buf?: Uint8Array;
  protected nullBuf?: Uint8Array;
  protected readonly lut: Uint8Array;

  constructor(
    op: CompareOp,
    protected readonly a: Node,
    protected readonly b: Node,
    label: string,
  ) {
    super(BOOLEAN, label);
    this.lut = COMPARE_LUT[op];
  }
}

/** float64 comparison with DuckDB's total order: NaN = NaN, NaN above everything, -0.0 = 0.0. */
class CompareNumbers extends CompareNode {
  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.num(ctx);
    const y = this.b.num(ctx);
    const nulls = mergeNulls(x.nulls, y.nulls, n, (this.nullBuf = u8(this.nullBuf, n)));
    const out = (this.buf = u8(this.buf, n));
    const xv = x.values;
    const yv = y.values;
    const lut = this.lut;
    for (let k = 0; k < n; k++) {
      const p = xv[k]!;
      const q = yv[k]!;
      const c = p < q ? 0 : p > q ? 2 : p === q ? 1 : p !== p ? (q !== q ? 1 : 2) : 0;
      out[k] = lut[c]!;
    }
    if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
    return out;
  }
}

/** Exact integer comparison on (hi, lo) pairs. */
class CompareInts extends CompareNode {
  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const x = this.a.int(ctx);
    const y = this.b.int(ctx);
    const nulls = mergeNulls(x.nulls, y.nulls, n, (this.nullBuf = u8(this.nullBuf, n)));
    const out = (this.buf = u8(this.buf, n));
    const { hi: xh, lo: xl } = x;
    const { hi: yh, lo: yl } = y;
    const lut = this.lut;
    for (let k = 0; k < n; k++) {
      const ph = xh[k]!;
      const qh = yh[k]!;
      let c: number;
      if (ph !== qh) c = ph < qh ? 0 : 2;
      else {
        const pl = xl[k]!;
        const ql = yl[k]!;
        c = pl < ql ? 0 : pl > ql ? 2 : 1;
      }
      out[k] = lut[c]!;
    }
    if (nulls !== null) for (let k = 0; k < n; k++) if (nulls[k]) out[k] = 2;
    return out;
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

  constructor(
    private readonly isAnd: boolean,
    private readonly args: readonly Node[],
    label: string,
  ) {
    super(BOOLEAN, label);
  }

  override bool(ctx: Ctx): Uint8Array {
    const n = ctx.n;
    const out = (this.buf = u8(this.buf, n));
    const lut = this.isAnd ? AND_LUT : OR_LUT;
    const decided = this.isAnd ? 0 : 1;
    out.fill(this.isAnd ? 1 : 0, 0, n);
    for (const arg of this.args) {
      const v = arg.bool(ctx);
      let open = 0;
      for (let k = 0; k < n; k++) {
        const r = lut[out[k]! * 3 + v[k]!]!;
        out[k] = r;
        open |= r ^ decided ? 1 : 0;
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

function literalClass(v: number | string | boolean | null): VClass {
  if (v === null) return NULL_CLASS;
  if (typeof v === 'boolean') return BOOLEAN;
  if (typeof v === 'string') return { c: 'str', sql: 'VARCHAR' };
  return Number.isInteger(v) ? { c: 'num', sql: 'INTEGER', integral: true, wide: false } : DOUBLE;
}

class Compiler {
  constructor(
    private readonly leftSchema: Schema,
    private readonly rightSchema: Schema,
  ) {}

  /** The schema's spelling of a column: exact match first, then a unique case-insensitive match. */
  resolveName(side: Side, name: string): string {
    return (side === 'left' ? this.leftSchema : this.rightSchema).fields[this.fieldIndex(side, name)]!.name;
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
        const cls = literalClass(e.value);
        return e.value === null ? new NullNode(cls, label) : new LiteralNode(cls, label, e.value);
      }
      case 'arith': {
        const a = this.compile(e.left);
        const b = this.compile(e.right);
        for (const x of [a, b]) {
          if (x.cls.c !== 'num' && x.cls.c !== 'null') {
            throw new ExpressionError(`cannot apply '${e.op}' to ${x.label} (${x.cls.sql}): arithmetic needs numbers, in ${label}`);
          }
        }
        if (a.cls.c === 'null' || b.cls.c === 'null') return new NullNode(DOUBLE, label);
        return new ArithNode(e.op, a, b, label);
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
        if (arg.cls.c === 'null') return new LiteralNode(BOOLEAN, label, !e.negated);
        return new IsNullNode(arg, e.negated, label);
      }
    }
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
    if (ca.c === 'null' || cb.c === 'null') return new NullNode(BOOLEAN, label);
    if (ca.c === 'num' && cb.c === 'num') {
      const exact = (ca.wide || cb.wide) && ca.integral && cb.integral;
      return exact ? new CompareInts(op, a, b, label) : new CompareNumbers(op, a, b, label);
    }
    if (ca.c === 'time' || cb.c === 'time') {
      if (ca.c === 'time' && cb.c === 'time') {
        if (ca.unit !== cb.unit) mismatch(': dates and timestamps compare only within the same unit');
        return new CompareInts(op, a, b, label);
      }
      // a temporal column against a string literal: convert the literal once
      const [t, other, otherExpr] = ca.c === 'time' ? [ca, b, e.right] : [cb as VClass & { c: 'time' }, a, e.left];
      if (otherExpr.kind !== 'literal' || typeof otherExpr.value !== 'string') mismatch();
      const value = parseTemporal((otherExpr as { value: string }).value, t.unit, t.sql, label);
      const lit = new LiteralNode(t, other.label, value);
      return ca.c === 'time' ? new CompareInts(op, a, lit, label) : new CompareInts(op, lit, b, label);
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
