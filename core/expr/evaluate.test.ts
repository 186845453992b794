import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import {
  Bool,
  type DataType,
  DateDay,
  Decimal,
  Dictionary,
  Float16,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  LargeUtf8,
  type RecordBatch,
  Table,
  TimestampMicrosecond,
  TimestampMillisecond,
  Uint8,
  Uint32,
  Uint64,
  Utf8,
  Utf8View,
  type Vector,
  makeData,
  makeVector,
  vectorFromArray,
} from 'apache-arrow';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExpressionError, MissingColumnError, UnsupportedTypeError } from '../errors.ts';
import { and, arith, cast, caseWhen, cmp, coalesce, col, type CompareOp, type Expr, isNull, lit, negate, not, or } from './ast.ts';
import { compileFilter } from './evaluate.ts';
import { formatExpr, parseExpr } from './parse.ts';

function batchOf(cols: Record<string, Vector>): RecordBatch {
  const batches = new Table(cols).batches;
  expect(batches.length).toBe(1);
  return batches[0]!;
}

function vec(values: unknown[], type: DataType): Vector {
  return vectorFromArray(values as never[], type as never) as Vector;
}

/** All (i, j) pairs, left-major. */
function crossPairs(nl: number, nr: number): [Int32Array, Int32Array] {
  const l = new Int32Array(nl * nr);
  const r = new Int32Array(nl * nr);
  for (let i = 0; i < nl; i++) for (let j = 0; j < nr; j++) (l[i * nr + j] = i), (r[i * nr + j] = j);
  return [l, r];
}

/** Filter result for every pair of the cross product (left-major). */
function cross(filter: string | Expr, left: RecordBatch, right: RecordBatch = left): number[] {
  const f = compileFilter(typeof filter === 'string' ? parseExpr(filter) : filter, left.schema, right.schema);
  const [lr, rr] = crossPairs(left.numRows, right.numRows);
  return Array.from(f.evaluate(left, lr, right, rr, lr.length));
}

/** Filter result for row k of left against row k of right. */
function zip(filter: string, left: RecordBatch, right: RecordBatch = left): number[] {
  const n = Math.min(left.numRows, right.numRows);
  const rows = Int32Array.from({ length: n }, (_, k) => k);
  return Array.from(compileFilter(parseExpr(filter), left.schema, right.schema).evaluate(left, rows, right, rows, n));
}

function compileError(filter: string, left: RecordBatch, right: RecordBatch = left): Error {
  try {
    compileFilter(parseExpr(filter), left.schema, right.schema);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`expected '${filter}' not to compile`);
}

describe('three-valued logic', () => {
  const vals = [true, false, null];
  const L = batchOf({ a: vec(vals, new Bool()) });
  const R = batchOf({ b: vec(vals, new Bool()) });
  // SQL reference over {true, false, null}
  const and3 = (x: boolean | null, y: boolean | null) => (x === false || y === false ? false : x === null || y === null ? null : true);
  const or3 = (x: boolean | null, y: boolean | null) => (x === true || y === true ? true : x === null || y === null ? null : false);
  const pairs = vals.flatMap((x) => vals.map((y) => [x, y] as const));
  const keep = (v: boolean | null) => (v === true ? 1 : 0);
  const isNullFlag = (v: boolean | null) => (v === null ? 1 : 0);

  it('AND', () => {
    expect(cross('l.a AND r.b', L, R)).toEqual(pairs.map(([x, y]) => keep(and3(x, y))));
    expect(cross('(l.a AND r.b) IS NULL', L, R)).toEqual(pairs.map(([x, y]) => isNullFlag(and3(x, y))));
    expect(cross('NOT (l.a AND r.b)', L, R)).toEqual(pairs.map(([x, y]) => keep(and3(x, y) === null ? null : !and3(x, y))));
  });

  it('OR', () => {
    expect(cross('l.a OR r.b', L, R)).toEqual(pairs.map(([x, y]) => keep(or3(x, y))));
    expect(cross('(l.a OR r.b) IS NULL', L, R)).toEqual(pairs.map(([x, y]) => isNullFlag(or3(x, y))));
    expect(cross('NOT (l.a OR r.b)', L, R)).toEqual(pairs.map(([x, y]) => keep(or3(x, y) === null ? null : !or3(x, y))));
  });

  it('NOT, IS [NOT] NULL, literals', () => {
    expect(zip('NOT l.a', L)).toEqual([0, 1, 0]);
    expect(zip('(NOT l.a) IS NULL', L)).toEqual([0, 0, 1]);
    expect(zip('l.a IS NULL', L)).toEqual([0, 0, 1]);
    expect(zip('l.a IS NOT NULL', L)).toEqual([1, 1, 0]);
    expect(zip('l.a AND NULL', L)).toEqual([0, 0, 0]);
    expect(zip('(l.a AND NULL) IS NULL', L)).toEqual([1, 0, 1]);
    expect(zip('l.a OR NULL', L)).toEqual([1, 0, 0]);
    expect(zip('NOT NULL', L)).toEqual([0, 0, 0]);
    expect(zip('NULL', L)).toEqual([0, 0, 0]);
    expect(zip('TRUE', L)).toEqual([1, 1, 1]);
    expect(zip('NULL IS NULL', L)).toEqual([1, 1, 1]);
    expect(cross(and(), L, R)).toEqual(Array(9).fill(1));
    expect(cross(or(), L, R)).toEqual(Array(9).fill(0));
  });

  it('n-ary AND/OR with short-circuit stays correct', () => {
    const B = batchOf({ x: vec([1, 2, 3, 4], new Int32()), y: vec([null, 1, 1, 1], new Int32()) });
    expect(zip('l.x > 10 AND l.y = 1 AND l.x / 0 > 1', B)).toEqual([0, 0, 0, 0]);
    expect(zip('l.x > 1 AND l.y = 1 AND l.x < 4', B)).toEqual([0, 1, 1, 0]);
    expect(zip('l.x > 0 OR l.y = 1 OR l.x IS NULL', B)).toEqual([1, 1, 1, 1]);
    expect(zip('l.x = 3 OR l.y = 5 OR l.x = 1', B)).toEqual([1, 0, 1, 0]);
    expect(zip('(l.x = 2 OR l.y = 5) IS NULL', B)).toEqual([1, 0, 0, 0]);
  });

  it('comparisons of booleans: false < true, NULL stays NULL', () => {
    expect(cross('l.a < r.b', L, R)).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(cross('l.a = r.b', L, R)).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 0]);
    expect(cross('(l.a = r.b) IS NULL', L, R)).toEqual([0, 0, 1, 0, 0, 1, 1, 1, 1]);
    expect(zip('(l.a = TRUE) = FALSE', L)).toEqual([0, 1, 0]);
  });
});

describe('NULL comparisons', () => {
  const B = batchOf({ x: vec([1, null, 3], new Int32()), s: vec(['a', null, 'c'], new Utf8()), d: vec([null, 1.5, NaN], new Float64()) });
  it('a comparison with NULL is NULL, never TRUE', () => {
    expect(zip('l.x = NULL', B)).toEqual([0, 0, 0]);
    expect(zip('l.x <> NULL', B)).toEqual([0, 0, 0]);
    expect(zip('NOT (l.x = NULL)', B)).toEqual([0, 0, 0]);
    expect(zip('(l.x = NULL) IS NULL', B)).toEqual([1, 1, 1]);
    expect(zip('l.x = r.x', B)).toEqual([1, 0, 1]);
    expect(zip('l.x <> r.x OR l.x IS NULL', B)).toEqual([0, 1, 0]);
    expect(zip("l.s = 'a' OR l.s IS NULL", B)).toEqual([1, 1, 0]);
    expect(zip('l.d >= 0', B)).toEqual([0, 1, 1]);
    expect(zip('l.x + NULL IS NULL', B)).toEqual([1, 1, 1]);
    expect(zip('l.x + l.d IS NULL', B)).toEqual([1, 1, 0]);
  });
});

describe('integers: exact over 64 bits', () => {
  const big = 2n ** 53n;
  const L = batchOf({
    i: vec([big + 1n, -(2n ** 63n), 2n ** 63n - 1n, -1n, null], new Int64()),
    u: vec([2n ** 64n - 1n, 0n, 2n ** 63n, big, 5n], new Uint64()),
  });
  const R = batchOf({
    i: vec([big, -(2n ** 63n) + 1n, 2n ** 63n - 2n, 4294967295n, 1n], new Int64()),
    t: vec([-1, -128, 127, 0, 1], new Int8()),
    w: vec([4294967295, 0, 7, 4294967295, 5], new Uint32()),
  });

  it('2^53 + 1 vs 2^53 and the int64 extremes', () => {
    expect(zip('l.i > r.i', L, R)).toEqual([1, 0, 1, 0, 0]);
    expect(zip('l.i = r.i', L, R)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.i < r.i', L, R)).toEqual([0, 1, 0, 1, 0]);
    // arithmetic is exact: 2^53 + 1 - 1 = 2^53, 2^63 - 1 - 1 = 2^63 - 2; -2^63 - 1 overflows BIGINT
    const f = compileFilter(parseExpr('l.i - 1 = r.i'), L.schema, R.schema);
    const rows = Int32Array.of(0, 2, 3, 4);
    expect(Array.from(f.evaluate(L, rows, R, rows, 4))).toEqual([1, 1, 0, 0]);
    expect(() => f.evaluate(L, Int32Array.of(1), R, Int32Array.of(1), 1)).toThrow(ExpressionError);
  });

  it('against integer literals', () => {
    expect(zip('l.i = 9007199254740992', L)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.i > 9007199254740992', L)).toEqual([1, 0, 1, 0, 0]);
    expect(zip('l.i = -9223372036854775808', L)).toEqual([0, 1, 0, 0, 0]);
    expect(zip('l.i < 9223372036854775808', L)).toEqual([1, 1, 1, 1, 0]);
    expect(zip('l.i > -1.5', L)).toEqual([1, 0, 1, 1, 0]);
    expect(zip('l.u >= 18446744073709551616', L)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.u > 1e300', L)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.u = 9223372036854775808', L)).toEqual([0, 0, 1, 0, 0]);
  });

  it('signed vs unsigned and mixed widths', () => {
    expect(zip('l.u > l.i', L)).toEqual([1, 1, 1, 1, 0]);
    expect(zip('l.u = l.i', L)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.u > r.t', L, R)).toEqual([1, 1, 1, 1, 1]);
    expect(zip('l.i = r.t', L, R)).toEqual([0, 0, 0, 0, 0]);
    expect(zip('l.i < r.w', L, R)).toEqual([0, 1, 0, 1, 0]);
    expect(zip('r.i = r.w', R)).toEqual([0, 0, 0, 1, 0]);
    expect(zip('r.t < r.w', R)).toEqual([1, 1, 0, 1, 1]);
    expect(zip('l.u = r.w', L, R)).toEqual([0, 1, 0, 0, 1]);
  });

  it('small ints of every width', () => {
    const B = batchOf({
      a: vec([-128, 0, 127], new Int8()),
      b: vec([-128, 0, 128], new Int16()),
      c: vec([200, 0, 127], new Uint8()),
      d: vec([-128, 1, 127], new Int32()),
    });
    expect(zip('l.a = r.b', B)).toEqual([1, 1, 0]);
    expect(zip('l.a < l.c', B)).toEqual([1, 0, 0]);
    expect(zip('l.a = l.d', B)).toEqual([1, 0, 1]);
    expect(zip('l.c > 199', B)).toEqual([1, 0, 0]);
  });
});

describe('floats (DuckDB semantics)', () => {
  const vals = [NaN, Infinity, 1, 0, -0, -Infinity];
  const F = batchOf({ d: vec(vals, new Float64()) });
  it('NaN = NaN, NaN above +inf, -0.0 = 0.0', () => {
    const order = (x: number, y: number) => {
      const rank = (v: number) => (Number.isNaN(v) ? Infinity : v);
      if (Number.isNaN(x) && Number.isNaN(y)) return 0;
      if (Number.isNaN(x)) return 1;
      if (Number.isNaN(y)) return -1;
      return rank(x) < rank(y) ? -1 : rank(x) > rank(y) ? 1 : 0;
    };
    const ops: Record<CompareOp, (c: number) => boolean> = {
      '=': (c) => c === 0,
      '<>': (c) => c !== 0,
      '<': (c) => c < 0,
      '<=': (c) => c <= 0,
      '>': (c) => c > 0,
      '>=': (c) => c >= 0,
    };
    for (const [op, test] of Object.entries(ops)) {
      const expected = vals.flatMap((x) => vals.map((y) => (test(order(x, y)) ? 1 : 0)));
      expect(cross(`l.d ${op} r.d`, F), op).toEqual(expected);
    }
    expect(zip('l.d = 0', F)).toEqual([0, 0, 0, 1, 1, 0]);
    expect(zip('l.d > 1e308', F)).toEqual([1, 1, 0, 0, 0, 0]);
  });

  it('Float32 and IEEE division', () => {
    const B = batchOf({ f: vec([0.5, NaN, -0], new Float32()), x: vec([1, 0, -1], new Int32()) });
    expect(zip('l.f = 0.5', B)).toEqual([1, 0, 0]);
    expect(zip('l.f = l.f', B)).toEqual([1, 1, 1]);
    expect(zip('l.x / 0 > 1e308', B)).toEqual([1, 1, 0]); // inf, NaN (0/0), -inf
    expect(zip('1 / l.f < 0', B)).toEqual([0, 0, 1]); // 1 / -0.0 = -inf
    const H = batchOf({ h: vec([1.5, -2, NaN, 65504, 2 ** -24, -Infinity], new Float16()) });
    expect(zip('l.h = 1.5 OR l.h = -2 OR l.h = 65504 OR l.h = 5.960464477539063e-8', H)).toEqual([1, 1, 0, 1, 1, 0]);
    expect(zip('l.h > 1e300', H)).toEqual([0, 0, 1, 0, 0, 0]);
    expect(zip('l.h < -1e300', H)).toEqual([0, 0, 0, 0, 0, 1]);
  });
});

describe('arithmetic', () => {
  const B = batchOf({ a: vec([1, 2, 3, null], new Int32()), b: vec([0.5, 2, -1, 1], new Float64()) });
  it('+ - * / with precedence, over both sides', () => {
    expect(zip('l.a + r.b * 2 = 2', B)).toEqual([1, 0, 0, 0]);
    expect(zip('(l.a + r.b) * 2 = 8', B)).toEqual([0, 1, 0, 0]);
    expect(zip('l.a - r.b - 1 = 0.5', B)).toEqual([0, 0, 0, 0]);
    expect(zip('l.a - r.b - 1 = -0.5', B)).toEqual([1, 0, 0, 0]);
    expect(zip('l.a / 2 = 1.5', B)).toEqual([0, 0, 1, 0]);
    expect(zip('-l.a = -2', B)).toEqual([0, 1, 0, 0]);
    expect(zip('l.a * l.a > 3 * 2 - 2', B)).toEqual([0, 0, 1, 0]);
  });
});

describe('strings', () => {
  const words = ['', 'a', 'ab', 'B', 'é', 'z', '✓', 'ü', null];
  // DuckDB orders VARCHAR byte-wise (UTF-8): uppercase < lowercase < non-ASCII, prefix first
  const byteOrder = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y));
  const expected = (op: (c: number) => boolean) =>
    words.flatMap((x) => words.map((y) => (x === null || y === null ? 0 : op(byteOrder(x, y)) ? 1 : 0)));

  it('plain Utf8, byte-wise, non-ASCII', () => {
    const S = batchOf({ s: vec(words, new Utf8()) });
    expect(cross('l.s < r.s', S)).toEqual(expected((c) => c < 0));
    expect(cross('l.s = r.s', S)).toEqual(expected((c) => c === 0));
    expect(cross('l.s >= r.s', S)).toEqual(expected((c) => c >= 0));
    expect(zip("l.s > 'z'", S)).toEqual([0, 0, 0, 0, 1, 0, 1, 1, 0]);
    expect(zip("l.s = ''", S)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(zip("'a' < l.s", S)).toEqual([0, 0, 1, 0, 1, 1, 1, 1, 0]);
  });

  it('dictionary-encoded, LargeUtf8 and Utf8View agree with plain Utf8', () => {
    const D = batchOf({
      s: vec(words, new Utf8()),
      d: vec(words, new Dictionary(new Utf8(), new Int32())),
      e: vec([...words].reverse(), new Dictionary(new Utf8(), new Int8())),
      g: vec(words, new LargeUtf8()),
      v: vec(words, new Utf8View()),
    });
    for (const c of ['d', 'g', 'v']) {
      expect(cross(`l.${c} < r.s`, D), c).toEqual(expected((x) => x < 0));
      expect(cross(`l.s = r.${c}`, D), c).toEqual(expected((x) => x === 0));
    }
    expect(cross('l.d <= r.e', D)).toEqual(cross('l.s <= r.s', D, batchOf({ s: vec([...words].reverse(), new Utf8()) })));
    // literal vs dictionary: per-entry path (few pairs) and per-pair path agree
    expect(zip("l.d >= 'b'", D)).toEqual(zip("l.s >= 'b'", D));
    expect(cross("l.d >= 'b' AND r.v <> 'é'", D)).toEqual(cross("l.s >= 'b' AND r.s <> 'é'", D));
    const f = compileFilter(parseExpr("l.d = 'ab'"), D.schema, D.schema);
    expect(Array.from(f.evaluate(D, Int32Array.of(2), D, Int32Array.of(0), 1))).toEqual([1]);
  });

  it('a dictionary with NULL entries', () => {
    const dict = vec(['x', null, 'y'], new Utf8());
    const codes = makeData({ type: new Dictionary(new Utf8(), new Int32()), data: Int32Array.of(0, 1, 2, 1), dictionary: dict });
    const B = batchOf({ d: makeVector(codes) });
    expect(zip("l.d = 'x' OR l.d = 'y'", B)).toEqual([1, 0, 1, 0]);
    expect(zip('l.d IS NULL', B)).toEqual([0, 1, 0, 1]);
  });
});

describe('dates, timestamps, decimals', () => {
  it('Date32 against dates and date literals', () => {
    const day = Date.UTC(2024, 0, 31);
    const B = batchOf({ d: vec([new Date(day), new Date(day + 86_400_000), null], new DateDay()) });
    expect(zip("l.d = '2024-01-31'", B)).toEqual([1, 0, 0]);
    expect(zip("'2024-02-01' <= l.d", B)).toEqual([0, 1, 0]);
    expect(zip('l.d < r.d', B, batchOf({ d: vec([new Date(day + 1), new Date(day), new Date(day)], new DateDay()) }))).toEqual([0, 0, 0]);
    expect(() => compileFilter(parseExpr("l.d = '2024-02-30'"), B.schema, B.schema)).toThrow(/no such date/);
  });

  it('timestamps compare exactly, across units in the finer one', () => {
    const t0 = 1_700_000_000_000_123n;
    const B = batchOf({
      us: makeVector(makeData({ type: new TimestampMicrosecond(), data: BigInt64Array.of(t0, t0 + 1n, -1n) })),
      us2: makeVector(makeData({ type: new TimestampMicrosecond('UTC'), data: BigInt64Array.of(t0 + 1n, t0 + 1n, 0n) })),
      ms: vec([new Date(0), new Date(1), new Date(2)], new TimestampMillisecond()),
    });
    expect(zip('l.us < l.us2', B)).toEqual([1, 0, 1]);
    expect(zip("l.us >= '2023-11-14 22:13:20.000123'", B)).toEqual([1, 1, 0]);
    expect(zip("l.us < '1970-01-01'", B)).toEqual([0, 0, 1]);
    expect(zip("l.ms = '1970-01-01T00:00:00.001Z'", B)).toEqual([0, 1, 0]);
    // two units meet in the finer one (DuckDB's comparison binding); with a time zone they do not
    expect(zip('l.us > l.ms', B)).toEqual([1, 1, 0]);
    expect(zip('CAST(l.ms AS TIMESTAMP) = l.ms', B)).toEqual([1, 1, 1]);
    expect(compileError('l.us2 = l.ms', B).message).toMatch(/cannot compare l.us2 \(TIMESTAMP \(tz UTC\)\) with l.ms \(TIMESTAMP_MS\): .*without a time zone/);
    expect(compileError("l.ms = '1970-01-01 00:00:00.0001'", B).message).toMatch(/more fractional digits/);
    expect(compileError('l.ms = 5', B)).toBeInstanceOf(ExpressionError);
  });

  it('Decimal128 compares exactly at its scale', () => {
    // 123.45, -0.01, 10^20 / 100 at scale 2
    const words = new Uint32Array(12);
    const put = (i: number, v: bigint) => {
      for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((BigInt.asUintN(128, v) >> BigInt(32 * w)) & 0xffffffffn);
    };
    put(0, 12345n);
    put(1, -1n);
    put(2, 10n ** 20n);
    const B = batchOf({ m: makeVector(makeData({ type: new Decimal(2, 38, 128), data: words })) });
    expect(zip('l.m = 123.45', B)).toEqual([1, 0, 0]);
    expect(zip('l.m < 0 AND l.m > -0.02', B)).toEqual([0, 1, 0]);
    expect(zip('l.m = 1e18', B)).toEqual([0, 0, 1]);
  });
});

describe('type and column errors', () => {
  const B = batchOf({ s: vec(['a'], new Utf8()), x: vec([1], new Int32()), b: vec([true], new Bool()) });
  it('type errors are ExpressionErrors naming the operands', () => {
    expect(compileError('l.s > 5', B).message).toBe("cannot compare l.s (VARCHAR) with 5 (INTEGER) in l.s > 5");
    expect(compileError("l.s + 1 = 'a'", B).message).toMatch(/^cannot apply '\+' to l.s \(VARCHAR\): arithmetic needs numbers/);
    expect(compileError('l.x', B).message).toBe('a filter must be a boolean expression, but l.x has type INTEGER');
    expect(compileError('l.x + 1', B).message).toMatch(/has type INTEGER/);
    expect(compileError('l.x / 2', B).message).toMatch(/has type DOUBLE/);
    expect(compileError('l.b AND l.x', B).message).toBe('AND needs boolean operands, but l.x has type INTEGER');
    expect(compileError('NOT l.s', B).message).toBe('NOT needs boolean operands, but l.s has type VARCHAR');
    expect(compileError('l.b = 1', B)).toBeInstanceOf(ExpressionError);
    expect(compileError("'x'", B)).toBeInstanceOf(ExpressionError);
  });

  it('missing columns name the side and list its columns', () => {
    const e = compileError('l.x = r.nope', B);
    expect(e).toBeInstanceOf(MissingColumnError);
    expect(e.message).toBe("column 'nope' not found in right input; columns: s, x, b");
    expect(compileError('l.nope IS NULL', B).message).toMatch(/not found in left input/);
  });

  it('unsupported column types', () => {
    const L = batchOf({ l: vectorFromArray([[1], [2]]) as Vector });
    expect(compileError('l.l IS NULL', L)).toBeInstanceOf(UnsupportedTypeError);
  });

  it('column names match exactly, then case-insensitively when unique', () => {
    const C = batchOf({ Price: vec([1, 2], new Int32()) });
    expect(zip('l.price = 2', C)).toEqual([0, 1]);
    expect(compileFilter(parseExpr('l.PRICE > 0'), C.schema, C.schema).columns).toEqual({ left: ['Price'], right: [] });
  });
});

describe('evaluate mechanics', () => {
  it('sliced batches (non-zero offsets), count, out reuse', () => {
    const full = batchOf({
      x: vec([null, 1n, 2n, null, 4n, 5n, 6n, 7n, 8n, null], new Int64()),
      s: vec(['q', 'a', null, 'c', 'd', 'e', 'f', 'g', 'h', 'i'], new Utf8()),
      b: vec([true, false, null, true, false, true, false, true, null, true], new Bool()),
    });
    const sliced = full.slice(3, 10);
    const f = compileFilter(parseExpr("l.x IS NULL OR (l.s > 'd' AND l.b)"), full.schema, full.schema);
    const rows = Int32Array.of(0, 1, 2, 3, 4, 5, 6, 99);
    const out = new Uint8Array(10).fill(7);
    const res = f.evaluate(sliced, rows, sliced, rows, 7, out);
    expect(res).toBe(out);
    // rows of the slice: x = null,4,5,6,7,8,null; s = c,d,e,f,g,h,i; b = T,F,T,F,T,null,T
    expect(Array.from(out)).toEqual([1, 0, 1, 0, 1, 0, 1, 7, 7, 7]);
    expect(f.evaluate(sliced, rows, sliced, rows, 0).length).toBe(0);
    expect(() => f.evaluate(sliced, rows, sliced, rows, 9)).toThrow(RangeError);
  });

  it('evaluates batches of growing and shrinking size with one compiled filter', () => {
    const B = batchOf({ x: vec(Array.from({ length: 1000 }, (_, i) => i), new Int32()) });
    const f = compileFilter(parseExpr("l.x IS NULL OR l.x < r.x AND 'a' = 'a'"), B.schema, B.schema);
    for (const n of [1, 1000, 10, 500]) {
      const l = Int32Array.from({ length: n }, (_, k) => k);
      const r = Int32Array.from({ length: n }, (_, k) => (k * 7) % 1000);
      const got = f.evaluate(B, l, B, r, n);
      expect(Array.from(got)).toEqual(Array.from({ length: n }, (_, k) => (k < (k * 7) % 1000 ? 1 : 0)));
    }
  });
});

// ---- differential test against DuckDB -----------------------------------------------------------

describe('CASE, COALESCE, CAST and unary minus in join filters', () => {
  const L = batchOf({
    big: vec([2n ** 63n - 1n, 5n, null, -(2n ** 63n)], new Int64()),
    t: vec([-128, 1, null, 127], new Int8()),
    s: vec(['a', null, 'b', ''], new Utf8()),
  });
  const R = batchOf({ k: vec([0, 1], new Int32()), s: vec(['a', 'zz'], new Utf8()) });

  it('a CASE branch, a COALESCE argument, a later WHEN raise only for the pairs they decide', () => {
    // l.big + 1 overflows for 2^63 - 1, which the first WHEN takes; -l.t overflows for -128
    expect(cross('CASE WHEN l.big = 9223372036854775807 THEN 0 ELSE l.big + 1 END > r.k', L, R)).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
    expect(() => cross('CASE WHEN l.big > 0 THEN l.big + 1 ELSE 0 END > r.k', L, R)).toThrow(/Overflow in addition of BIGINT/);
    expect(cross('COALESCE(CASE WHEN l.t = -128 THEN 0 END, -l.t) < r.k', L, R)).toEqual([0, 1, 1, 1, 0, 0, 1, 1]);
    expect(() => cross('COALESCE(l.big // 0, -l.t) < r.k', L, R)).toThrow(/Overflow in negation/);
    // the second WHEN is not evaluated for the pair the first decided
    expect(cross('CASE WHEN l.t = -128 THEN TRUE WHEN -l.t > 0 THEN FALSE ELSE r.k = 1 END', L, R)).toEqual([1, 1, 0, 1, 0, 1, 0, 1]);
    // AND short-circuits into a cast
    expect(cross('l.big < 100 AND l.big > -100 AND CAST(l.big AS INTEGER) > r.k', L, R)).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
    expect(() => cross('CAST(l.big AS INTEGER) > r.k', L, R)).toThrow(
      /Conversion Error: Type INT64 with value 9223372036854775807 can't be cast because the value is out of range for the destination type INT32 in CAST\(l\.big AS INTEGER\)/,
    );
  });

  it('casts and COALESCE over strings in a filter', () => {
    expect(cross("COALESCE(l.s, 'zz') = r.s", L, R)).toEqual([1, 0, 0, 1, 0, 0, 0, 0]);
    expect(cross("CAST(l.t AS VARCHAR) = '1'", L, R)).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
    expect(cross("CASE WHEN l.s IS NULL THEN 'a' ELSE l.s END = r.s", L, R)).toEqual([1, 0, 1, 0, 0, 0, 0, 0]);
  });

  it('type errors: mixed CASE branches, casts joinlab refuses, negating a string', () => {
    expect(compileError("CASE WHEN l.t > 0 THEN l.s ELSE l.t END = 1", L, R)).toBeInstanceOf(ExpressionError);
    expect(compileError("CASE WHEN l.t > 0 THEN l.s ELSE l.t END = 1", L, R).message).toMatch(
      /Cannot mix values of type TINYINT and VARCHAR in CASE expression - an explicit cast is required/,
    );
    expect(compileError('COALESCE(l.s, l.t) = r.s', L, R).message).toMatch(/Cannot mix values of type VARCHAR and TINYINT in COALESCE operator/);
    expect(compileError('CAST(l.s AS INTEGER) = r.k', L, R).message).toMatch(/joinlab converts string literals, not VARCHAR columns/);
    expect(compileError("CAST(l.t AS GEOMETRY) = r.k", L, R).message).toMatch(/cannot cast to 'GEOMETRY': unknown or unsupported type/);
    expect(compileError('-l.s = r.s', L, R).message).toMatch(/cannot negate l\.s \(VARCHAR\)/);
  });
});

describe('parity with DuckDB on random filters', () => {
  const N = 8;
  const side = (seed: number) => {
    const rot = <T>(xs: T[]) => xs.map((_, k) => xs[(k + seed) % xs.length]!);
    return {
      id: Array.from({ length: N }, (_, k) => k),
      i: rot([2n ** 53n + 1n, 2n ** 53n, -(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, null, 5n]),
      u: rot([2n ** 64n - 1n, 0n, 5n, null, 2n ** 63n, 2n ** 53n, 1n, 3n]),
      x: rot([-3, -1, 0, 1, 2, 3, null, 5]),
      d: rot([NaN, -0, 0, 1.5, Infinity, -Infinity, null, 3]),
      s: rot(['', 'a', 'ab', 'B', 'é', 'z', null, 'ü✓']),
      ds: rot(['a', 'é', null, 'a', 'z', '', 'ab', 'ab']),
      b: rot([true, false, null, true, false, true, null, false]),
    };
  };
  const tables = { l: side(0), r: side(3) };

  const toBatch = (t: ReturnType<typeof side>) =>
    batchOf({
      id: vec(t.id, new Int32()),
      i: vec(t.i, new Int64()),
      u: vec(t.u, new Uint64()),
      x: vec(t.x, new Int32()),
      d: vec(t.d, new Float64()),
      s: vec(t.s, new Utf8()),
      ds: vec(t.ds, new Dictionary(new Utf8(), new Int16())),
      b: vec(t.b, new Bool()),
    });

  const sqlValue = (v: unknown): string => {
    if (v === null) return 'NULL';
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
    const n = v as number;
    if (Number.isNaN(n)) return "'nan'::DOUBLE";
    if (!Number.isFinite(n)) return n > 0 ? "'inf'::DOUBLE" : "'-inf'::DOUBLE";
    if (Object.is(n, -0)) return "'-0.0'::DOUBLE";
    return String(n);
  };

  let conn: DuckDBConnection;
  let instance: DuckDBInstance;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    for (const [name, t] of Object.entries(tables)) {
      await conn.run(`CREATE TABLE ${name}t (id INTEGER, i BIGINT, u UBIGINT, x INTEGER, d DOUBLE, s VARCHAR, ds VARCHAR, b BOOLEAN)`);
      const rows = t.id.map((_, k) => `(${[t.id[k], t.i[k], t.u[k], t.x[k], t.d[k], t.s[k], t.ds[k], t.b[k]].map(sqlValue).join(', ')})`);
      await conn.run(`INSERT INTO ${name}t VALUES ${rows.join(', ')}`);
    }
  });
  afterAll(() => {
    conn?.closeSync();
    instance?.closeSync();
  });

  const sideArb = fc.constantFrom('left' as const, 'right' as const);
  const colArb = (names: string[]) => fc.tuple(sideArb, fc.constantFrom(...names)).map(([s, n]) => col(s, n));
  const small = fc.oneof(colArb(['x', 'd']), fc.integer({ min: -4, max: 4 }).map(lit), fc.constantFrom(0.5, -1.5, 1e300, 2.5).map(lit));
  const wide = fc.oneof(colArb(['i', 'u', 'x']), fc.constantFrom(2 ** 53, -(2 ** 63), 2 ** 63, 0, 5, -1, 1.5).map(lit));
  const strs = fc.oneof(colArb(['s', 'ds']), fc.constantFrom('', 'a', 'é', 'ab', "it's", 'z').map(lit));
  const ops = fc.constantFrom<CompareOp>('=', '<>', '<', '<=', '>', '>=');
  // CASE, COALESCE, CAST and unary minus are drawn only where they cannot raise (x is small,
  // d's casts go to DOUBLE or VARCHAR): DuckDB may reorder a WHERE clause's conjunction
  const { bool } = fc.letrec<{ num: Expr; bool: Expr; str: Expr }>((tie) => ({
    num: fc.oneof(
      { depthSize: 'small' },
      small,
      fc.tuple(fc.constantFrom('+', '-', '*', '/' as const), tie('num'), tie('num')).map(([op, a, b]) => arith(op as '+', a, b)),
      small.map(negate),
      fc.tuple(tie('num'), tie('num')).map(([a, b]) => coalesce(a, b)),
      fc.tuple(tie('bool'), tie('num'), fc.option(tie('num'), { nil: null })).map(([w, t, o]) => caseWhen([{ when: w, then: t }], o)),
      fc.tuple(colArb(['x']), fc.constantFrom('BIGINT', 'DECIMAL(18,2)', 'DOUBLE', 'SMALLINT')).map(([e, t]) => cast(e, t)),
      fc.tuple(colArb(['d']), fc.constant('DOUBLE')).map(([e, t]) => cast(e, t)),
    ),
    str: fc.oneof(
      { depthSize: 'small' },
      strs,
      fc.tuple(tie('str'), tie('str')).map(([a, b]) => coalesce(a, b)),
      fc.tuple(tie('bool'), tie('str'), tie('str')).map(([w, t, o]) => caseWhen([{ when: w, then: t }], o)),
      colArb(['x', 'd', 'i', 'b']).map((e) => cast(e, 'VARCHAR')),
    ),
    bool: fc.oneof(
      { depthSize: 'small' },
      colArb(['b']),
      fc.constantFrom(lit(true), lit(false), lit(null)),
      fc.tuple(ops, tie('num'), tie('num')).map(([op, a, b]) => cmp(op, a, b)),
      fc.tuple(ops, wide, wide).map(([op, a, b]) => cmp(op, a, b)),
      fc.tuple(ops, wide, tie('num')).map(([op, a, b]) => cmp(op, a, b)),
      fc.tuple(ops, tie('str'), tie('str')).map(([op, a, b]) => cmp(op, a, b)),
      fc.tuple(ops, tie('bool'), tie('bool')).map(([op, a, b]) => cmp(op, a, b)),
      fc.tuple(fc.oneof(tie('num'), tie('str'), wide, tie('bool')), fc.boolean()).map(([e, n]) => isNull(e, n)),
      fc.array(tie('bool'), { minLength: 2, maxLength: 3 }).map((a) => and(...a)),
      fc.array(tie('bool'), { minLength: 2, maxLength: 3 }).map((a) => or(...a)),
      tie('bool').map(not),
      fc.tuple(tie('bool'), tie('bool')).map(([a, b]) => coalesce(a, b)),
      fc.tuple(tie('bool'), tie('bool'), tie('bool'), tie('bool')).map(([w1, t1, w2, t2]) =>
        caseWhen(
          [
            { when: w1, then: t1 },
            { when: w2, then: t2 },
          ],
          null,
        ),
      ),
    ),
  }));

  it('matches DuckDB for 500 seeded random filters over an 8x8 cross product', async () => {
    const L = toBatch(tables.l);
    const R = toBatch(tables.r);
    const [lr, rr] = crossPairs(N, N);
    const filters = fc.sample(bool, { seed: 7, numRuns: 500 });
    for (const e of filters) {
      const text = formatExpr(e);
      const ours = compileFilter(parseExpr(text), L.schema, R.schema).evaluate(L, lr, R, rr, N * N);
      const mine = [...ours.keys()].filter((k) => ours[k] === 1).map((k) => `${lr[k]},${rr[k]}`);
      const reader = await conn.runAndReadAll(`SELECT l.id, r.id FROM lt AS l, rt AS r WHERE ${text} ORDER BY 1, 2`);
      const theirs = reader.getRows().map(([a, b]) => `${a},${b}`);
      expect(mine, text).toEqual(theirs);
    }
  });
});
