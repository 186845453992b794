/**
 * Differential test of filter arithmetic against DuckDB: random numeric expressions over every
 * numeric type (int8..int64, uint8..uint64, float32/64, decimals of several widths and scales)
 * and literals of every magnitude, on rows holding each type's edges (MIN, MAX, 0, -1, 2^53 + 1,
 * NaN, ±inf, -0.0, NULL). Each expression is evaluated by joinlab (`compileScalar`, the same
 * nodes a filter uses) and by DuckDB (`SELECT <exprToSql(e)>`, so sql.ts is tested too) on the
 * same pairs of rows, and compared row by row: the type (DuckDB's DESCRIBE), every value, and
 * which rows fail — when DuckDB raises an error for a row (overflow, failed decimal cast), joinlab
 * must raise an ExpressionError for that row, and only then.
 *
 * DuckDB runs with `disabled_optimizers = 'expression_rewriter,statistics_propagation'`: its
 * optimizer rewrites some expressions in ways that drop errors (`x + 1 > 5` into `x > 4`, `x // 0`
 * into NULL, an expression it proves NULL into a constant) — the second test checks the optimized
 * DuckDB too, where joinlab must fail wherever DuckDB fails and agree wherever both succeed.
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
  Uint16,
  Uint32,
  Uint64,
  type Vector,
  vectorFromArray,
} from 'apache-arrow';
import type { DuckDBValue } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ExpressionError } from '../errors.ts';
import { type ArithOp, arith, cmp, col, type CompareOp, type Expr, isNull, lit, referencedColumns } from './ast.ts';
import { compileScalar, type ScalarValue } from './evaluate.ts';
import { decimalText } from './numeric-nodes.ts';
import { exprToSql } from './sql.ts';

const N = 32;

type Gen = { readonly type: DataType; readonly values: readonly (number | bigint | null)[] } & ({ readonly decimal?: undefined } | { readonly decimal: readonly [number, number] });

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const B53 = 2n ** 53n;
const TIE = 2n ** 60n + 2n ** 36n + 1n;

/** Edge values per column; each list is cycled to N rows. */
const COLUMNS: Record<string, Gen> = {
  i8: { type: new Int8(), values: [-128, 127, 0, -1, 1, 2, -7, 100, null, 64, -64, 3] },
  i16: { type: new Int16(), values: [-32768, 32767, 0, -1, 1, 2, 181, null, -300, 7, 256, -2] },
  i32: { type: new Int32(), values: [-2147483648, 2147483647, 0, -1, 1, 2, 46341, null, -65536, 7, 100000, 3] },
  // 2^60 + 2^36 + 1: through a double it becomes the float32 midpoint 2^60 + 2^36 and rounds the wrong way
  i64: { type: new Int64(), values: [I64_MIN, I64_MAX, 0n, -1n, B53 + 1n, -(B53 + 1n), 3037000500n, null, 2n, 4294967296n, -7n, 1n, TIE] },
  u8: { type: new Uint8(), values: [0, 255, 1, 2, 128, 16, null, 7, 200, 3] },
  u16: { type: new Uint16(), values: [0, 65535, 1, 2, 256, 32768, null, 7, 300] },
  u32: { type: new Uint32(), values: [0, 4294967295, 1, 2, 65536, 2147483648, null, 7, 100000] },
  u64: { type: new Uint64(), values: [0n, U64_MAX, 1n, 2n, 2n ** 63n, B53 + 1n, 4294967296n, null, 7n, 2n ** 32n - 1n, TIE] },
  f32: { type: new Float32(), values: [NaN, Infinity, -Infinity, -0, 0.5, 16777217, 3.4e38, null, -1.5, 1e-40, 2, 0.1] },
  f64: { type: new Float64(), values: [NaN, Infinity, -Infinity, -0, 0.1, 2 ** 53 + 2, 1e308, null, -2.5, 5e-324, 3, 1] },
  d4: { type: new Decimal(1, 4, 128), decimal: [4, 1], values: [9999n, -9999n, 0n, -1n, 1n, 25n, null, 5n, 1000n] },
  d9: { type: new Decimal(2, 9, 128), decimal: [9, 2], values: [999999999n, -999999999n, 0n, 1n, -1n, 12345n, null, 100n, 50n] },
  d18: { type: new Decimal(3, 18, 128), decimal: [18, 3], values: [10n ** 18n - 1n, -(10n ** 18n - 1n), 0n, 1n, B53 + 1n, -1500n, null, 1000n, 2000n] },
  d38: {
    type: new Decimal(5, 38, 128),
    decimal: [38, 5],
    values: [10n ** 38n - 1n, -(10n ** 38n - 1n), 0n, 1n, 10n ** 20n + 7n, -100000n, null, 250000n, 2n ** 100n],
  },
  d22: { type: new Decimal(0, 22, 128), decimal: [22, 0], values: [10n ** 22n - 1n, -(10n ** 22n - 1n), 0n, 1n, -1n, B53 + 1n, null, 12n, 2n ** 64n] },
};
const NAMES = Object.keys(COLUMNS);

function decimalVector(type: DataType, values: readonly (bigint | null)[]): Vector {
  const words = new Uint32Array(values.length * 4);
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null) {
      nulls++;
      return;
    }
    bitmap[i >> 3]! |= 1 << (i & 7);
    const u = BigInt.asUintN(128, v);
    for (let w = 0; w < 4; w++) words[i * 4 + w] = Number((u >> BigInt(32 * w)) & 0xffffffffn);
  });
  return makeVector(makeData({ type: type as Decimal, length: values.length, nullCount: nulls, nullBitmap: bitmap, data: words }));
}

/** The table of one side: row k holds value (k * step + shift) of each column's list. */
function sideTable(step: number, shift: number): Table {
  const cols: Record<string, Vector> = { id: vectorFromArray(Array.from({ length: N }, (_, k) => k), new Int32()) };
  for (const name of NAMES) {
    const g = COLUMNS[name]!;
    const values = Array.from({ length: N }, (_, k) => g.values[(k * step + shift) % g.values.length]!);
    cols[name] = g.decimal ? decimalVector(g.type, values as (bigint | null)[]) : (vectorFromArray(values as never[], g.type as never) as Vector);
  }
  return new Table(cols);
}

const LITERALS: (number | bigint)[] = [
  0, 1, -1, 2, 3, 7, 100, 127, -128, 128, 255, 256, 32767, 65535, 2147483647, -2147483648, 4294967295, 2 ** 53,
  9007199254740993n, 2 ** 63, -(2 ** 63), 9223372036854775807n, 18446744073709551615n, 170141183460469231731687303715884105727n,
  0.5, -2.5, 1.25, 0.001, 123456.789, 0.30000000000000004, 1e300, -0, NaN, Infinity,
];

const CMP_OPS: CompareOp[] = ['=', '<>', '<', '<=', '>', '>='];
const EXACT_NAMES = NAMES.filter((n) => n[0] !== 'f');
const FLOAT_NAMES = NAMES.filter((n) => n[0] === 'f');

const side = fc.constantFrom('left' as const, 'right' as const);
const leaf: fc.Arbitrary<Expr> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(side, fc.constantFrom(...EXACT_NAMES)).map(([s, n]) => col(s, n)) },
  { weight: 1, arbitrary: fc.tuple(side, fc.constantFrom(...FLOAT_NAMES)).map(([s, n]) => col(s, n)) },
  { weight: 3, arbitrary: fc.constantFrom(...LITERALS).map((v) => lit(v)) },
);
// `/` (always floating point) is drawn less often than the exact operators
const op = fc.oneof({ weight: 6, arbitrary: fc.constantFrom<ArithOp>('+', '-', '*', '//', '%') }, { weight: 1, arbitrary: fc.constant<ArithOp>('/') });
const { num } = fc.letrec<{ num: Expr }>((tie) => ({
  num: fc.oneof({ depthSize: 'small', maxDepth: 3 }, leaf, fc.tuple(op, tie('num'), tie('num')).map(([o, a, b]) => arith(o, a, b))),
}));

const L_ = (n: string) => col('left', n);
const R_ = (n: string) => col('right', n);

/**
 * Hand-picked, so every seed covers them: bind errors (a product needing scale 39), literal-only
 * arithmetic, each conversion to FLOAT/DOUBLE (HUGEINT and wide decimals in DuckDB's two halves,
 * BIGINT/UBIGINT to FLOAT in one rounding, decimals in quotient + remainder), exact comparisons.
 */
const NAMED: Expr[] = [
  arith('*', arith('*', L_('d38'), lit(0.30000000000000004)), lit(0.30000000000000004)),
  arith('*', L_('d38'), arith('*', lit(0.30000000000000004), lit(0.30000000000000004))),
  arith('+', L_('d38'), R_('f32')),
  arith('+', L_('d38'), R_('f64')),
  arith('*', L_('d18'), R_('f32')),
  arith('-', L_('d22'), R_('f64')),
  arith('-', L_('d22'), R_('f32')),
  arith('+', L_('d9'), R_('f32')),
  arith('+', L_('d4'), R_('f32')),
  arith('+', arith('*', L_('u64'), R_('i64')), R_('f64')),
  arith('+', arith('-', L_('u64'), R_('i64')), R_('f32')),
  arith('+', L_('i64'), R_('f32')),
  arith('+', L_('u64'), R_('f32')),
  arith('/', L_('i64'), R_('u64')),
  arith('/', L_('d38'), R_('d18')),
  cmp('=', L_('i64'), R_('f64')),
  cmp('=', L_('i32'), R_('f32')),
  cmp('>', L_('d38'), R_('d18')),
  cmp('<', L_('u64'), R_('i64')),
  cmp('=', L_('d22'), R_('u64')),
  cmp('>=', arith('*', L_('i64'), lit(10)), R_('d18')),
  arith('+', lit(2147483647), lit(1)),
  arith('-', lit(-(2 ** 63)), lit(1)),
  arith('%', lit(-2147483648), lit(-1)),
  arith('//', col('left', 'i64'), lit(-1)),
  arith('%', col('left', 'i8'), lit(-1)),
  arith('+', col('left', 'i32'), lit(0.30000000000000004)),
  arith('-', col('left', 'u8'), lit(1)),
];
const expression: fc.Arbitrary<Expr> = fc.oneof(
  { weight: 5, arbitrary: num.filter((e) => e.kind === 'arith') },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...CMP_OPS), num, num).map(([op, a, b]) => cmp(op, a, b)) },
  { weight: 1, arbitrary: num.map((e) => isNull(e)) },
);

/** A value as comparable text: integers and decimals exactly, floats with -0 and NaN distinct. */
function ours(v: ScalarValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return String(v);
}
function theirs(v: DuckDBValue): string {
  if (v === null) return 'NULL';
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object' && 'scale' in v && 'value' in v) return decimalText((v as { value: bigint }).value, (v as { scale: number }).scale);
  return String(v);
}

type Outcome = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly error: string };

describe('filter arithmetic vs DuckDB (random expressions over every numeric type)', () => {
  let duck: DuckDBSession;
  let L: RecordBatch;
  let R: RecordBatch;
  const rows = Int32Array.from({ length: N }, (_, k) => k);
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
    const lt = sideTable(1, 0);
    const rt = sideTable(5, 3);
    L = lt.batches[0]!;
    R = rt.batches[0]!;
    await duck.loadTable('lt', lt);
    await duck.loadTable('rt', rt);
  });
  afterAll(() => duck?.close());

  const from = 'FROM lt AS l JOIN rt AS r ON l.id = r.id';

  /** joinlab's outcome per pair (null when the expression does not compile: a bind error). */
  function joinlab(e: Expr): { type: string; rows: Outcome[] } | { compileError: string } {
    let f: ReturnType<typeof compileScalar>;
    try {
      f = compileScalar(e, L.schema, R.schema);
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
      return { compileError: err.message };
    }
    const run = (start: number, count: number): Outcome[] =>
      f.evaluate(L, rows.subarray(start), R, rows.subarray(start), count).map((v) => ({ ok: true as const, value: ours(v) }));
    try {
      return { type: f.type, rows: run(0, N) };
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
    }
    // some pair fails: find which, one pair at a time
    const out: Outcome[] = [];
    for (let k = 0; k < N; k++) {
      try {
        out.push(run(k, 1)[0]!);
      } catch (err) {
        if (!(err instanceof ExpressionError)) throw err;
        out.push({ ok: false, error: err.message });
      }
    }
    return { type: f.type, rows: out };
  }

  async function duckdb(sql: string): Promise<{ type: string; rows: Outcome[] } | { bindError: string }> {
    let type: string;
    try {
      type = String((await duck.queryValues(`DESCRIBE SELECT ${sql} AS v ${from}`))[0]![1]);
    } catch (err) {
      return { bindError: (err as Error).message };
    }
    try {
      const values = await duck.queryValues(`SELECT ${sql} AS v ${from} ORDER BY l.id`);
      return { type, rows: values.map(([v]) => ({ ok: true as const, value: theirs(v!) })) };
    } catch {
      // some pair fails: find which
    }
    const out: Outcome[] = [];
    for (let k = 0; k < N; k++) {
      try {
        const [[v]] = (await duck.queryValues(`SELECT ${sql} AS v ${from} WHERE l.id = ${k}`)) as [[DuckDBValue]];
        out.push({ ok: true, value: theirs(v) });
      } catch (err) {
        out.push({ ok: false, error: (err as Error).message });
      }
    }
    return { type, rows: out };
  }

  /** Whether `e` has no columns and is NULL (joinlab then folds a comparison with it to NULL). */
  function nullConstant(e: Expr): boolean {
    if (referencedColumns(e).left.size + referencedColumns(e).right.size > 0) return false;
    try {
      return compileScalar(e, L.schema, R.schema).evaluate(L, rows, R, rows, 1)[0] === null;
    } catch {
      return false;
    }
  }

  const pairText = (k: number) =>
    `pair ${k}: l = {${NAMES.map((n) => `${n}: ${String(L.getChild(n)!.get(k))}`).join(', ')}}, r = {${NAMES.map((n) => `${n}: ${String(R.getChild(n)!.get(k))}`).join(', ')}}`;

  it('types, values and failing rows match DuckDB (rewrites off) for 400 seeded expressions', async () => {
    await duck.run(`SET disabled_optimizers = 'expression_rewriter,statistics_propagation'`);
    const exprs = [...NAMED, ...fc.sample(expression, { seed: 9, numRuns: 400 })];
    let failingRows = 0;
    let exactRows = 0;
    let compileErrors = 0;
    for (const e of exprs) {
      const sql = exprToSql(e);
      const ours = joinlab(e);
      const their = await duckdb(sql);
      const what = `${sql}`;
      if ('compileError' in ours || 'bindError' in their) {
        expect('compileError' in ours, `${what}: joinlab ${JSON.stringify(ours)}, DuckDB ${JSON.stringify(their)}`).toBe(true);
        expect('bindError' in their, `${what}: joinlab ${JSON.stringify(ours)}, DuckDB ${JSON.stringify(their)}`).toBe(true);
        compileErrors++;
        continue;
      }
      // a NULL that DuckDB's binder typed with an undecided decimal overload shows as INTEGER
      if (ours.type !== 'NULL') expect(ours.type, `type of ${what}`).toBe(their.type);
      // an unoptimized DuckDB evaluates the other side of a comparison with a constant NULL;
      // joinlab, like DuckDB's optimizer (constant folding), does not
      const lenient = e.kind === 'compare' && (nullConstant(e.left) || nullConstant(e.right));
      for (let k = 0; k < N; k++) {
        const a = ours.rows[k]!;
        const b = their.rows[k]!;
        const detail = () => `${what}\n${pairText(k)}\njoinlab: ${JSON.stringify(a)}\nDuckDB:  ${JSON.stringify(b)}`;
        if (!lenient) expect(a.ok, detail()).toBe(b.ok);
        if (a.ok && b.ok) expect(a.value, detail()).toBe(b.value);
        if (!a.ok) failingRows++;
        else if (/INT|DECIMAL/.test(ours.type)) exactRows++;
      }
    }
    // the draw really exercised errors, exact results and bind errors
    expect(failingRows).toBeGreaterThan(500);
    expect(exactRows).toBeGreaterThan(2000);
    expect(compileErrors).toBeGreaterThan(0);
  }, 60_000);

  it('with DuckDB optimizing: joinlab fails wherever DuckDB fails, and agrees wherever both succeed', async () => {
    await duck.run('RESET disabled_optimizers');
    const exprs = fc.sample(expression, { seed: 10, numRuns: 150 });
    for (const e of exprs) {
      const sql = exprToSql(e);
      const ours = joinlab(e);
      const their = await duckdb(sql);
      if ('bindError' in their) {
        expect('compileError' in ours, `${sql}: DuckDB ${their.bindError}`).toBe(true);
        continue;
      }
      if ('compileError' in ours) throw new Error(`${sql}: joinlab ${ours.compileError}, DuckDB compiles it`);
      for (let k = 0; k < N; k++) {
        const a = ours.rows[k]!;
        const b = their.rows[k]!;
        const detail = `${sql}\n${pairText(k)}\njoinlab: ${JSON.stringify(a)}\nDuckDB:  ${JSON.stringify(b)}`;
        if (!b.ok) expect(a.ok, detail).toBe(false);
        if (a.ok && b.ok) expect(a.value, detail).toBe(b.value);
      }
    }
  }, 60_000);
});
