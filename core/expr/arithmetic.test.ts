/**
 * Named cases of filter arithmetic (issue 9, "exact arithmetic"): each checked against DuckDB on
 * the same data where DuckDB has an answer. The random differential test is
 * arithmetic.parity.test.ts.
 */
import {
  type DataType,
  Decimal,
  Float32,
  Float64,
  Int8,
  Int16,
  Int32,
  Int64,
  makeData,
  makeVector,
  type RecordBatch,
  Table,
  Uint8,
  Uint32,
  Uint64,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { Engine } from '../../composition.ts';
import { ExpressionError } from '../errors.ts';
import { and, arith, cmp, col, type Expr, lit, MAX_EXPR_DEPTH, or } from './ast.ts';
import { compileFilter, compileScalar } from './evaluate.ts';
import { formatExpr, parseExpr } from './parse.ts';
import { exprToSql } from './sql.ts';

const B53 = 2n ** 53n;
const I64_MAX = 2n ** 63n - 1n;

function vec(values: unknown[], type: DataType): Vector {
  return vectorFromArray(values as never[], type as never) as Vector;
}
function table(cols: Record<string, Vector>): Table {
  return new Table(cols);
}
function batch(t: Table): RecordBatch {
  expect(t.batches.length).toBe(1);
  return t.batches[0]!;
}
function decimals(scale: number, precision: number, values: (bigint | null)[]): Vector {
  const words = new Uint32Array(values.length * 4);
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v === null) return;
    bitmap[i >> 3]! |= 1 << (i & 7);
    const u = BigInt.asUintN(128, v);
    for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
  });
  const nullCount = values.filter((v) => v === null).length;
  return makeVector(makeData({ type: new Decimal(scale, precision, 128), length: values.length, nullCount, nullBitmap: bitmap, data: words }));
}

/** Filter result for every pair of the cross product (left-major). */
function cross(filter: string | Expr, left: RecordBatch, right: RecordBatch = left): number[] {
  const f = compileFilter(typeof filter === 'string' ? parseExpr(filter) : filter, left.schema, right.schema);
  const nl = left.numRows;
  const nr = right.numRows;
  const l = new Int32Array(nl * nr);
  const r = new Int32Array(nl * nr);
  for (let i = 0; i < nl; i++) for (let j = 0; j < nr; j++) (l[i * nr + j] = i), (r[i * nr + j] = j);
  return Array.from(f.evaluate(left, l, right, r, l.length));
}

/** Filter result for row k of left against row k of right. */
function zip(filter: string, left: RecordBatch, right: RecordBatch = left): number[] {
  const n = Math.min(left.numRows, right.numRows);
  const rows = Int32Array.from({ length: n }, (_, k) => k);
  return Array.from(compileFilter(parseExpr(filter), left.schema, right.schema).evaluate(left, rows, right, rows, n));
}

function evalError(filter: string, left: RecordBatch, right: RecordBatch = left): ExpressionError {
  try {
    zip(filter, left, right);
  } catch (e) {
    expect(e).toBeInstanceOf(ExpressionError);
    return e as ExpressionError;
  }
  throw new Error(`expected '${filter}' to fail`);
}

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(() => duck?.close());

/** DuckDB's rows (l.id, r.id) of the cross product where `e` holds, or its error message. */
async function duckPairs(e: Expr, left: Table, right: Table): Promise<string[] | string> {
  await duck.loadTable('l_in', left);
  await duck.loadTable('r_in', right);
  try {
    const rows = await duck.queryValues(`SELECT l.id, r.id FROM l_in AS l, r_in AS r WHERE ${exprToSql(e)} ORDER BY 1, 2`);
    return rows.map(([a, b]) => `${a},${b}`);
  } catch (err) {
    return (err as Error).message;
  }
}
function ourPairs(e: Expr, left: Table, right: Table): string[] {
  const keep = cross(e, batch(left), batch(right));
  const nr = right.numRows;
  return keep.flatMap((v, k) => (v ? [`${Math.floor(k / nr)},${k % nr}`] : []));
}

describe('exact integer arithmetic (issue 9)', () => {
  it("l.big + 1 > r.big with values beyond 2^53: DuckDB's 4 rows (float64 arithmetic gave 2)", async () => {
    const left = table({ id: vec([0, 1], new Int32()), big: vec([B53 + 1n, B53 + 3n], new Int64()) });
    const right = table({ id: vec([0, 1], new Int32()), big: vec([B53 + 1n, B53 + 1n], new Int64()) });
    const e = parseExpr('l.big + 1 > r.big');
    expect(ourPairs(e, left, right)).toEqual(['0,0', '0,1', '1,0', '1,1']);
    expect(await duckPairs(e, left, right)).toEqual(['0,0', '0,1', '1,0', '1,1']);
    // and the sum itself is exact: 2^53 + 2, 2^53 + 4
    expect(zip('l.big + 1 = 9007199254740994', batch(left))).toEqual([1, 0]);
    expect(zip('l.big + 1 = 9007199254740996', batch(left))).toEqual([0, 1]);
  });

  it('an INT64 overflow is an ExpressionError naming the expression, where DuckDB raises one too', async () => {
    const left = table({ id: vec([0], new Int32()), big: vec([I64_MAX], new Int64()) });
    const right = table({ id: vec([0], new Int32()), big: vec([1n], new Int64()) });
    const e = parseExpr('l.big + r.big > 0');
    const err = evalError('l.big + r.big > 0', batch(left), batch(right));
    expect(err.message).toBe('Overflow in addition of BIGINT (9223372036854775807 + 1) in l.big + r.big');
    expect(await duckPairs(e, left, right)).toMatch(/Overflow in addition of INT64 \(9223372036854775807 \+ 1\)/);
    // through a whole join, too: the join fails with the typed error
    const engine = await Engine.create({ join: 'nested-loop' });
    await expect(engine.join({ type: 'inner', on: 'id=id', filter: 'l.big + r.big > 0' }, left, right)).rejects.toThrow(ExpressionError);
    // one below the limit is fine
    expect(zip('l.big + (r.big - 1) > 0', batch(left), batch(right))).toEqual([1]);
  });

  it('other overflows: multiplication, subtraction, unsigned below zero, MIN // -1, MIN % -1, narrow types', () => {
    const B = batch(
      table({
        i: vec([-(2n ** 63n)], new Int64()),
        u: vec([0], new Uint8()),
        t: vec([127], new Int8()),
        x: vec([2147483647], new Int32()),
        w: vec([4294967295], new Uint32()),
      }),
    );
    expect(evalError('l.i * 2 < 0', B).message).toBe('Overflow in multiplication of BIGINT (-9223372036854775808 * 2) in l.i * 2');
    expect(evalError('l.i - 1 < 0', B).message).toMatch(/^Overflow in subtraction of BIGINT/);
    expect(evalError('l.u - 1 > 0', B).message).toBe('Overflow in subtraction of UTINYINT (0 - 1) in l.u - 1'); // 1 adapts to UTINYINT
    expect(zip('l.u + (-1) < 0', B)).toEqual([1]); // -1 does not fit UTINYINT: INTEGER arithmetic
    expect(evalError('l.i // -1 > 0', B).message).toMatch(/^Overflow in integer division of BIGINT/);
    expect(evalError('l.i % -1 = 0', B).message).toMatch(/^Overflow in modulo of BIGINT/);
    expect(evalError('l.t + 1 > 0', B).message).toBe('Overflow in addition of TINYINT (127 + 1) in l.t + 1');
    expect(zip('l.t + 1000 > 0', B)).toEqual([1]); // 1000 does not fit TINYINT: INTEGER arithmetic
    expect(evalError('l.x * l.x > 0', B).message).toMatch(/^Overflow in multiplication of INTEGER/);
    expect(zip('l.x * l.w > 0', B)).toEqual([1]); // INTEGER x UINTEGER is BIGINT
    expect(evalError('l.w * l.w > 0', B).message).toBe('Overflow in multiplication of UINTEGER (4294967295 * 4294967295) in l.w * l.w');
  });

  it('HUGEINT results (UBIGINT with a signed integer) are exact to 128 bits', () => {
    const B = batch(table({ u: vec([2n ** 64n - 1n], new Uint64()), i: vec([-(2n ** 63n)], new Int64()) }));
    expect(zip(`l.u * l.i = ${(2n ** 64n - 1n) * -(2n ** 63n)}`, B)).toEqual([1]);
    expect(zip(`l.u * l.i = ${(2n ** 64n - 1n) * -(2n ** 63n) + 1n}`, B)).toEqual([0]);
    expect(zip(`l.u - l.i = ${2n ** 64n - 1n + 2n ** 63n}`, B)).toEqual([1]);
    expect(evalError('l.u * l.i * l.u > 0', B).message).toMatch(/^Overflow in multiplication of HUGEINT/);
  });
});

describe("DuckDB's result types", () => {
  const T = table({
    t: vec([1], new Int8()),
    s: vec([1], new Int16()),
    x: vec([1], new Int32()),
    b: vec([1n], new Int64()),
    ut: vec([1], new Uint8()),
    uw: vec([1], new Uint32()),
    ub: vec([1n], new Uint64()),
    f: vec([1], new Float32()),
    d: vec([1], new Float64()),
    p: decimals(2, 9, [100n]),
    q: decimals(3, 18, [1000n]),
  });
  const cases: [string, string][] = [
    ['l.t + l.t', 'TINYINT'],
    ['l.t + l.ut', 'BIGINT'],
    ['l.s + l.ut', 'SMALLINT'],
    ['l.x + l.uw', 'BIGINT'],
    ['l.b + l.ub', 'HUGEINT'],
    ['l.t + 1', 'TINYINT'],
    ['l.t + 1000', 'INTEGER'],
    ['l.ut - 1', 'UTINYINT'],
    ['l.ut + -1', 'INTEGER'],
    ['l.b + 9223372036854775808', 'HUGEINT'],
    ['l.ub + 9223372036854775808', 'UBIGINT'],
    ['l.x / l.x', 'DOUBLE'],
    ['l.x // l.x', 'INTEGER'],
    ['l.x % l.b', 'BIGINT'],
    ['l.p * l.p', 'DECIMAL(18,4)'],
    ['l.q + l.q', 'DECIMAL(18,3)'],
    ['l.x + 0.5', 'DECIMAL(12,1)'],
    ['l.b * l.q', 'DECIMAL(37,3)'],
    ['l.p % l.x', 'DECIMAL(12,2)'],
    ['l.p // l.x', 'DOUBLE'],
    ['l.f + l.b', 'FLOAT'],
    ['l.f + l.d', 'DOUBLE'],
    ['l.f + l.p', 'FLOAT'],
    ['-l.ut', 'UTINYINT'], // unary minus keeps its operand's type (it was `-1 * x`, INTEGER, before the AST had `negate`)
    ['l.t + NULL', 'TINYINT'],
  ];
  it.each(cases)('%s is %s, as DuckDB says', async (text, type) => {
    const e = parseExpr(text);
    expect(compileScalar(e, T.schema, T.schema).type).toBe(type);
    await duck.loadTable('l', T);
    const [[, duckType]] = (await duck.queryValues(`DESCRIBE SELECT ${exprToSql(e)} FROM l`)) as [[unknown, string]];
    expect(duckType).toBe(type);
  });
});

describe('an error is raised only where the value matters', () => {
  // the NULL row holds 127 under its NULL bit: TINYINT 127 + 1 would overflow there
  const nulled = makeVector(makeData({ type: new Int8(), length: 2, nullCount: 1, nullBitmap: Uint8Array.of(0b01), data: Int8Array.of(5, 127) }));
  const B = batch(table({ x: nulled, y: vec([120, 5], new Int8()) }));

  it('not for a NULL operand', () => {
    expect(zip('l.x + 1 > 0', B)).toEqual([1, 0]);
    expect(zip('(l.x + 1) IS NULL', B)).toEqual([0, 1]);
  });

  it('not for a pair an earlier AND/OR argument decided (left to right), as DuckDB short-circuits', async () => {
    // y = 120: y + 100 overflows TINYINT, but `y < 10` already made the AND false
    expect(zip('l.y < 10 AND l.y + 100 > 0', B)).toEqual([0, 1]);
    expect(zip('l.y > 10 OR l.y + 100 > 0', B)).toEqual([1, 1]);
    expect(zip('l.y > 200 OR (l.y < 10 AND l.y + 100 > 0)', B)).toEqual([0, 1]);
    expect(evalError('l.y + 100 > 0 AND l.y < 10', B).message).toMatch(/Overflow in addition of TINYINT \(120 \+ 100\)/);
    await duck.loadTable('l', table({ y: vec([120, 5], new Int8()) }));
    const got = await duck.queryValues(`SELECT ${exprToSql(parseExpr('l.y < 10 AND l.y + 100 > 0'))} FROM l`);
    expect(got.map(([v]) => v)).toEqual([false, true]);
  });

  it('arithmetic with a NULL literal, or with literals that are NULL (1 // 0), is NULL without evaluating the rest', () => {
    expect(zip('(l.y + 100) + NULL IS NULL', B)).toEqual([1, 1]);
    expect(zip('(l.y + 100) * (1 // 0) IS NULL', B)).toEqual([1, 1]);
    expect(() => zip('(l.y + 100) * (1 // 1) IS NULL', B)).toThrow(ExpressionError);
  });
});

describe('division and modulo (DuckDB 1.x)', () => {
  const B = batch(
    table({
      a: vec([7, -7, 7, -7, 7, 0], new Int32()),
      b: vec([2, 2, -2, -2, 0, 0], new Int32()),
      f: vec([7.5, -7.5, 7.5, 1, 1, 0], new Float64()),
      g: vec([2, 2, 0, -0, 0, 0], new Float64()),
    }),
  );
  const values = (text: string) => {
    const rows = Int32Array.from({ length: B.numRows }, (_, k) => k);
    return compileScalar(parseExpr(text), B.schema, B.schema).evaluate(B, rows, B, rows, B.numRows);
  };
  it('integer // truncates toward zero, % has the sign of the dividend, x // 0 and x % 0 are NULL', async () => {
    expect(values('l.a // l.b')).toEqual([3n, -3n, -3n, 3n, null, null]);
    expect(values('l.a % l.b')).toEqual([1n, -1n, 1n, -1n, null, null]);
    await duck.loadTable('l', table({ a: vec([7, -7, 7, -7, 7, 0], new Int32()), b: vec([2, 2, -2, -2, 0, 0], new Int32()) }));
    const got = await duck.queryValues('SELECT l.a // l.b, l.a % l.b FROM l');
    expect(got.map(([q, m]) => [q === null ? null : BigInt(q as number), m === null ? null : BigInt(m as number)])).toEqual(
      [3n, -3n, -3n, 3n, null, null].map((q, k) => [q, [1n, -1n, 1n, -1n, null, null][k]]),
    );
  });
  it('/ is DOUBLE division (x/0 = ±inf, 0/0 = NaN); on doubles // is division with NULL for 0, % is fmod', () => {
    expect(values('l.a / l.b')).toEqual([3.5, -3.5, -3.5, 3.5, Infinity, NaN]);
    expect(values('l.f // l.g')).toEqual([3.75, -3.75, null, null, null, null]);
    expect(values('l.f % l.g')).toEqual([1.5, -1.5, NaN, NaN, NaN, NaN]);
  });
});

describe('decimals are exact at their scale', () => {
  const T = table({
    p: decimals(2, 9, [10n, 333n, null]),
    q: decimals(3, 18, [10n ** 18n - 1n, 1n, 0n]),
    x: vec([3, 10, 1], new Int32()),
  });
  const B = batch(T);
  it('0.10 * 3 = 0.30 exactly (float64 would give 0.30000000000000004)', () => {
    expect(zip('l.p * 3 = 0.3', B)).toEqual([1, 0, 0]);
    expect(zip('l.p * l.x = 33.3', B)).toEqual([0, 1, 0]);
    expect(zip('l.p / 3 = 0.1', B)).toEqual([0, 0, 0]); // `/` is DOUBLE: 0.1 / 3
    expect(zip('l.p + 0.005 = 0.105', B)).toEqual([1, 0, 0]);
  });
  it('overflowing the result width or a failed cast is an ExpressionError, as in DuckDB', () => {
    expect(evalError('l.q + 0.001 > 0', B).message).toBe('Overflow in addition of DECIMAL(18,3) (999999999999999.999 + 0.001) in l.q + 0.001');
    expect(evalError('l.x + 0.30000000000000004 > 0', B).message).toBe(
      'Could not cast value 10 to DECIMAL(18,17) in l.x + 0.30000000000000004',
    );
    // a product whose scale would exceed 38 is refused before any data is read (a bind error in DuckDB)
    expect(() => compileFilter(parseExpr('l.q * 0.30000000000000004 * 0.30000000000000004 * 0.25 > 0'), B.schema, B.schema)).toThrow(
      /needs scale 39/,
    );
  });
});

describe('integers against floats: cast to the float type, as DuckDB does', () => {
  const B = batch(
    table({
      x: vec([16777217], new Int32()),
      f: vec([16777216], new Float32()),
      b: vec([B53 + 1n], new Int64()),
      d: vec([2 ** 53], new Float64()),
    }),
  );
  it('INTEGER 16777217 = FLOAT 16777216, BIGINT 2^53 + 1 = DOUBLE 2^53', () => {
    expect(zip('l.x = l.f', B)).toEqual([1]);
    expect(zip('l.b = l.d', B)).toEqual([1]);
    expect(zip('l.b > l.d', B)).toEqual([0]);
    expect(zip('l.b > 9007199254740992', B)).toEqual([1]); // exact against an integer literal
    expect(zip('l.f + 1 = l.f', B)).toEqual([1]); // FLOAT arithmetic rounds to float32
  });
});

describe('deep and long expressions never overflow the stack', () => {
  const B = batch(table({ a: vec([1, 2], new Int32()), s: vec([true, false], new Int8()) }));
  it('an AST built in code deeper than the limit is refused by compileFilter, formatExpr and exprToSql', () => {
    let e: Expr = col('left', 'a');
    for (let i = 0; i < 20_000; i++) e = arith('+', e, lit(1));
    const deep = cmp('>', e, lit(0));
    expect(() => compileFilter(deep, B.schema, B.schema)).toThrow(ExpressionError);
    expect(() => compileFilter(deep, B.schema, B.schema)).toThrow(new RegExp(`nests deeper than ${MAX_EXPR_DEPTH} levels`));
    expect(() => formatExpr(deep)).toThrow(ExpressionError);
    expect(() => exprToSql(deep)).toThrow(ExpressionError);
  });

  it('at the limit everything works: compile, evaluate, format, SQL', async () => {
    let e: Expr = col('left', 'a');
    for (let i = 0; i < MAX_EXPR_DEPTH - 2; i++) e = arith('+', e, lit(1));
    const f = cmp('=', e, lit(MAX_EXPR_DEPTH - 2 + 1));
    expect(zip(formatExpr(f), B)).toEqual([1, 0]);
    expect(parseExpr(formatExpr(f))).toEqual(f);
    await duck.loadTable('l', table({ a: vec([1, 2], new Int32()) }));
    expect((await duck.queryValues(`SELECT ${exprToSql(f)} FROM l`)).map(([v]) => v)).toEqual([true, false]);
  });

  it('a 20000-argument OR is one level: accepted and evaluated', () => {
    const wide = or(...Array.from({ length: 20_000 }, (_, i) => cmp('=', col('left', 'a'), lit(i + 2))));
    expect(cross(wide, B)).toEqual([0, 0, 1, 1]);
    expect(cross(and(wide, cmp('>', col('right', 'a'), lit(1))), B)).toEqual([0, 0, 0, 1]);
  });
});
