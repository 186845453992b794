/**
 * An OR of equalities of one integer column with constants compiles to one set lookup
 * (in-set-node.ts) — 9,000 terms over 20,000 rows used to cost 1 GB and 20 s of per-term column
 * gathers — with the OR's three-valued answer: checked against the same predicate written so it
 * stays term-by-term (De Morgan: NOT (x <> c1 AND …)), under NOT too (NULL vs FALSE), with NULL
 * rows, NULL constants, negative values, 64-bit values past 2^53, and string columns (plain and
 * dictionary-encoded, multi-byte UTF-8, the empty string).
 */
import { Dictionary, Int32, Int64, Schema, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { and, cmp, col, type Expr, lit, not, or } from './ast.ts';
import { Compiler } from './compile.ts';
import { compileFilter } from './evaluate.ts';
import { InSetNode, StrInSetNode } from './in-set-node.ts';
import { parseExpr } from './parse.ts';

const BIG = 2n ** 53n + 1n;
const batch: RecordBatch = new Table({
  a: vectorFromArray([1, 2, null, -7, 9000, 17999, 5, 0], new Int32()),
  b: vectorFromArray([1n, BIG, null, -3n, BIG + 1n, 2n ** 62n, 0n, 4n], new Int64()),
  s: vectorFromArray(['x', 'y', null, 'z', 'x', 'q', 'r', 'é'], new Utf8()),
  d: vectorFromArray(['x', 'zz', null, 'x', 'x', 'zz', '', 'é'], new Dictionary(new Utf8(), new Int32())),
}).batches[0]!;
const schema: Schema = batch.schema;
const rows = Int32Array.from({ length: batch.numRows }, (_, i) => i);

function run(e: Expr): number[] {
  return [...compileFilter(e, schema, schema).evaluate(batch, rows, batch, rows, batch.numRows)];
}

/** The OR and its term-by-term twin agree, and so do their negations. */
function same(column: string, values: readonly (number | bigint | string | null)[]): void {
  const orForm = or(...values.map((v) => cmp('=', col('left', column), lit(v))));
  const twin = not(and(...values.map((v) => cmp('<>', col('left', column), lit(v)))));
  expect(run(orForm)).toEqual(run(twin));
  expect(run(not(orForm))).toEqual(run(not(twin)));
}

describe('x = c1 OR x = c2 OR … as a set', () => {
  it('compiles to one InSetNode, and only for one integer column against integer constants', () => {
    const compile = (e: Expr) => new Compiler(schema, schema).compile(e);
    const terms = Array.from({ length: 9000 }, (_, i) => cmp('=', col('left', 'a'), lit(i * 2)));
    const node = compile(or(...terms));
    expect(node).toBeInstanceOf(InSetNode);
    expect((node as InSetNode).size).toBe(9000);
    // constant on the left, bigints and NULL constants
    expect(compile(or(cmp('=', lit(1), col('left', 'b')), cmp('=', col('left', 'b'), lit(BIG)), cmp('=', col('left', 'b'), lit(null))))).toBeInstanceOf(InSetNode);
    // strings too (plain and dictionary columns); not a set: two columns, a non-equality, a fraction, two terms
    expect(compile(or(cmp('=', col('left', 'a'), lit(1)), cmp('=', col('left', 'b'), lit(2)), cmp('=', col('left', 'a'), lit(3))))).not.toBeInstanceOf(InSetNode);
    expect(compile(or(cmp('=', col('left', 'a'), lit(1)), cmp('<', col('left', 'a'), lit(2)), cmp('=', col('left', 'a'), lit(3))))).not.toBeInstanceOf(InSetNode);
    expect(compile(or(cmp('=', col('left', 'a'), lit(1.5)), cmp('=', col('left', 'a'), lit(2)), cmp('=', col('left', 'a'), lit(3))))).not.toBeInstanceOf(InSetNode);
    expect(compile(or(cmp('=', col('left', 's'), lit('x')), cmp('=', col('left', 's'), lit('y')), cmp('=', col('left', 's'), lit('z'))))).toBeInstanceOf(StrInSetNode);
    expect(compile(or(cmp('=', col('left', 'd'), lit('x')), cmp('=', col('left', 'd'), lit(null)), cmp('=', col('left', 'd'), lit('zz'))))).toBeInstanceOf(StrInSetNode);
    expect(compile(or(cmp('=', col('left', 'a'), lit(1)), cmp('=', col('left', 'a'), lit(2))))).not.toBeInstanceOf(InSetNode);
  });

  it("gives the OR's three-valued answer", () => {
    same('a', [1, 5, 17999, -7]);
    same('a', [3, 4, 6]);
    same('a', [3, null, 1]);
    same('a', [2n, 100000000000n, -7n]);
    same('b', [1n, BIG, 2n ** 62n]);
    same('b', [BIG + 2n, -3, 0]);
    same('b', [null, null, 4]);
    same('b', [Number(2n ** 53n) - 1, 4, BIG + 1n]);
    expect(run(or(...[1, 5, 9000].map((v) => cmp('=', col('left', 'a'), lit(v)))))).toEqual([1, 0, 0, 0, 1, 0, 1, 0]);
    for (const c of ['s', 'd']) {
      same(c, ['x', 'é', 'nope']);
      same(c, ['zz', '', null]);
      same(c, ['q', 'r', 'y', 'x', 'x']);
    }
    expect(run(or(...['x', 'é', 'zz'].map((v) => cmp('=', col('left', 'd'), lit(v)))))).toEqual([1, 1, 0, 1, 1, 1, 0, 1]);
  });

  it('9,000 parsed terms: the same rows as the term-by-term form', () => {
    const text = Array.from({ length: 9000 }, (_, i) => `l.a = ${i * 2}`).join(' OR ');
    const e = parseExpr(text);
    expect(new Compiler(schema, schema).compile(e)).toBeInstanceOf(InSetNode);
    expect(run(e)).toEqual([0, 1, 0, 0, 1, 0, 0, 1]);
  });
});
