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
 *   - Date32, Date64 and Timestamp compare as exact integers: within one type and unit, DATE with
 *     TIMESTAMP_x and two timestamp units after casting both to the finer type (as DuckDB binds
 *     the comparison; Date64 and time-zoned timestamps only with their own type), or against a
 *     string literal ('2024-01-31', '2024-01-31 12:00:00.123', UTC) converted once at compile time.
 *   - Booleans compare false < true.
 *   - CASE / COALESCE have DuckDB's common type of their branches, and a branch is evaluated only
 *     for the rows it decides (conditional-nodes.ts), so an overflow in a branch no row takes does
 *     not raise; CAST and the implicit casts of branches follow DuckDB's conversion rules and
 *     errors (casts.ts, cast-nodes.ts; VARCHAR output in string-format.ts); unary minus overflows
 *     on a signed MIN and on any non-zero unsigned value.
 * Degenerate cases: `count = 0` returns at once; a NULL literal makes a comparison or an
 * arithmetic NULL for every pair (its other operand is still type-checked, never evaluated);
 * `AND`/`OR` stop evaluating further arguments once every pair is decided; 0-ary AND is TRUE,
 * 0-ary OR is FALSE. An expression nesting deeper than MAX_EXPR_DEPTH is refused before compiling.
 * Row indices are trusted (not bounds-checked: this is the hot path).
 *
 * The pieces: compile.ts (type checking, the node tree), column-types.ts and column-readers.ts
 * (what a column is and how it is gathered), byte-sources.ts (strings and binary as offsets +
 * bytes), leaf-nodes.ts (columns, constants, NULL), compare-nodes.ts and numeric-nodes.ts
 * (comparisons, arithmetic), logic-nodes.ts (AND/OR/NOT/IS NULL), casts.ts (cast and CASE /
 * COALESCE typing), cast-nodes.ts, string-format.ts, conditional-nodes.ts, temporal-literals.ts.
 * project.ts evaluates the same trees over one input into Arrow columns (SELECT lists) and row
 * selections (WHERE / HAVING).
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { ExpressionError } from '../errors.ts';
import { checkDepth, type Expr } from './ast.ts';
import { Compiler } from './compile.ts';
import { exactValue } from './exact.ts';
import { NullNode } from './leaf-nodes.ts';
import { type Ctx, DENSE_ROWS, type Node } from './node-base.ts';
import { ScratchMeter } from './scratch.ts';
import { decimalText } from './numeric-nodes.ts';
import { isExact, typeName } from './numeric-types.ts';

const NO_ROWS = new Int32Array(0);
const NO_BYTES = new Uint8Array(0);

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
  /**
   * The scratch buffers the filter's nodes hold (scratch.ts): `attach` a run's reservation and
   * they count against its `memoryLimit` as they grow — evaluating in smaller chunks of pairs
   * when the pool refuses, a MemoryLimitError naming the filter past that — and `detach` when
   * the run ends. Not attached, nothing is counted or refused.
   */
  readonly scratch: ScratchMeter;
}

/** One `evaluate` call's arguments, reused across calls (evaluation is synchronous). */
interface FilterCall {
  root: Node;
  left: RecordBatch | null;
  leftRows: Int32Array;
  right: RecordBatch | null;
  rightRows: Int32Array;
  count: number;
  result: Uint8Array;
}

/** Rows [start, end) of `rows`, still known dense (DENSE_ROWS) when a prefix of a dense list. */
export function rowSlice(rows: Int32Array, start: number, end: number): Int32Array {
  const v = rows.subarray(start, end);
  if (start === 0 && DENSE_ROWS.has(rows)) DENSE_ROWS.add(v);
  return v;
}

/** The filter over pairs [start, end) of a call, into `result[start .. end)`. */
function filterChunk(c: FilterCall, start: number, end: number): void {
  const whole = start === 0 && end === c.count;
  const n = end - start;
  const leftRows = whole ? c.leftRows : rowSlice(c.leftRows, start, end);
  const rightRows = whole ? c.rightRows : rowSlice(c.rightRows, start, end);
  const v = c.root.bool({ left: c.left!, leftRows, right: c.right!, rightRows, n, live: null });
  const result = c.result;
  for (let k = 0; k < n; k++) result[start + k] = v[k]! & 1; // TRUE (1) stays, FALSE (0) and NULL (2) drop; branch-free
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
  const scratch = new ScratchMeter(root, `filter ${root.label}`);
  const call: FilterCall = { root, left: null, leftRows: NO_ROWS, right: null, rightRows: NO_ROWS, count: 0, result: NO_BYTES };
  return {
    expr,
    columns,
    scratch,
    evaluate(left, leftRows, right, rightRows, count, out) {
      checkCall(leftRows, rightRows, count);
      const result = out ?? new Uint8Array(count);
      if (result.length < count) throw new RangeError(`evaluate: out has ${result.length} bytes, need ${count}`);
      if (count === 0) return result;
      if (root.cls.c === 'null') {
        result.fill(0, 0, count);
        return result;
      }
      call.left = left;
      call.leftRows = leftRows;
      call.right = right;
      call.rightRows = rightRows;
      call.count = count;
      call.result = result;
      try {
        scratch.run(count, call, filterChunk);
      } finally {
        call.left = call.right = null; // hold no batch or row list past the call
        call.leftRows = call.rightRows = NO_ROWS;
        call.result = NO_BYTES;
      }
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
