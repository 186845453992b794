import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { and, arith, cast, caseWhen, cmp, coalesce, col, isNull, lit, negate, not, or } from './ast.ts';
import { exprToSql, numberToSql, quoteIdent, quoteString } from './sql.ts';

describe('quoting', () => {
  it('quotes identifiers and doubles embedded quotes', () => {
    expect(quoteIdent('a')).toBe('"a"');
    expect(quoteIdent('we"ird name')).toBe('"we""ird name"');
    expect(quoteIdent('select')).toBe('"select"');
  });
  it('escapes string literals', () => {
    expect(quoteString("it's")).toBe("'it''s'");
    expect(quoteString('back\\slash')).toBe("'back\\slash'");
  });
});

describe('exprToSql', () => {
  it('renders columns with side aliases, fully parenthesised', () => {
    const e = and(cmp('<', col('left', 'price'), col('right', 'max price')), isNull(col('right', 'q'), true));
    expect(exprToSql(e)).toBe('((l."price" < r."max price") AND (r."q" IS NOT NULL))');
    expect(exprToSql(e, 'a', 'B x')).toBe('((a."price" < "B x"."max price") AND ("B x"."q" IS NOT NULL))');
  });

  it('renders arithmetic as it is: DuckDB types it as joinlab does (no casts)', () => {
    const e = cmp('>', arith('+', col('left', 'a'), arith('*', col('right', 'b'), lit(2))), lit(0));
    expect(exprToSql(e)).toBe('((l."a" + (r."b" * 2)) > 0)');
    expect(exprToSql(arith('%', arith('//', col('left', 'a'), lit(3)), arith('/', lit(7), lit(2))))).toBe('((l."a" // 3) % (7 / 2))');
  });

  it('renders literals with the type joinlab gives them', () => {
    expect(exprToSql(lit(null))).toBe('NULL');
    expect(exprToSql(lit(true))).toBe('TRUE');
    expect(exprToSql(lit(false))).toBe('FALSE');
    expect(exprToSql(lit("o'k"))).toBe("'o''k'");
    expect(exprToSql(lit(42))).toBe('42');
    expect(exprToSql(lit(-7))).toBe('(-7)');
    // integers exactly (DuckDB's adaptive integer literal), decimals as DECIMAL digits, the rest DOUBLE
    expect(exprToSql(lit(2 ** 63))).toBe('9223372036854775808');
    expect(exprToSql(lit(-9007199254740993n))).toBe('(-9007199254740993)');
    expect(exprToSql(lit(1e21))).toBe('1000000000000000000000');
    expect(exprToSql(lit(0.1))).toBe('0.1');
    expect(exprToSql(lit(-2.5))).toBe('(-2.5)');
    expect(exprToSql(lit(1e-7))).toBe("'1e-7'::DOUBLE");
    expect(exprToSql(lit(1e300))).toBe("'1e+300'::DOUBLE");
    expect(numberToSql(NaN)).toBe("'nan'::DOUBLE");
    expect(numberToSql(Infinity)).toBe("'inf'::DOUBLE");
    expect(numberToSql(-Infinity)).toBe("'-inf'::DOUBLE");
    expect(numberToSql(-0)).toBe("'-0.0'::DOUBLE");
  });

  it('renders and/or/not, including empty conjunctions', () => {
    expect(exprToSql(or(cmp('=', col('left', 'a'), lit(1)), not(cmp('<>', col('right', 'b'), lit('x')))))).toBe(
      `((l."a" = 1) OR (NOT (r."b" <> 'x')))`,
    );
    expect(exprToSql(and())).toBe('TRUE');
    expect(exprToSql(or())).toBe('FALSE');
  });

  it('renders CASE, COALESCE, CAST (the type in its canonical spelling) and unary minus', () => {
    const a = col('left', 'a');
    expect(exprToSql(caseWhen([{ when: cmp('>', a, lit(0)), then: lit('pos') }], lit('other')))).toBe(`(CASE WHEN (l."a" > 0) THEN 'pos' ELSE 'other' END)`);
    expect(exprToSql(caseWhen([{ when: a, then: lit(1) }]))).toBe('(CASE WHEN l."a" THEN 1 END)');
    expect(exprToSql(coalesce(a, col('right', 'b'), lit(0)))).toBe('COALESCE(l."a", r."b", 0)');
    expect(exprToSql(cast(a, 'decimal(10, 2)'))).toBe('CAST(l."a" AS DECIMAL(10,2))');
    expect(exprToSql(cast(a, 'int8'))).toBe('CAST(l."a" AS BIGINT)');
    expect(exprToSql(cast(a, 'datetime'))).toBe('CAST(l."a" AS TIMESTAMP)');
    expect(() => exprToSql(cast(a, 'INTEGER); DROP TABLE x; --'))).toThrow(/cannot cast to/);
    expect(exprToSql(negate(a))).toBe('(-(l."a"))');
    expect(exprToSql(negate(lit(5)))).toBe('(-(5))');
  });
});

describe('exprToSql in DuckDB', () => {
  let db: DuckDBInstance;
  let conn: DuckDBConnection;
  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:', { threads: '1' });
    conn = await db.connect();
  });
  afterAll(() => {
    conn.closeSync();
    db.closeSync();
  });

  it('number literals round-trip exactly', async () => {
    const values = [0.1, 0.30000000000000004, 1e300, 5e-324, -2.5e-10, 2 ** 53 + 2, 123456789, -0, NaN, Infinity, -Infinity, Number.MAX_VALUE];
    const sql = `SELECT ${values.map((v, i) => `CAST(${numberToSql(v)} AS DOUBLE) AS c${i}`).join(', ')}`;
    const row = (await conn.runAndReadAll(sql)).getRows()[0]!;
    values.forEach((v, i) => expect(Object.is(row[i], v), `${v} -> ${String(row[i])}`).toBe(true));
  });

  it('evaluates like joinlab: float division, exact integers that overflow with an error, three-valued logic', async () => {
    await conn.run('CREATE TABLE l AS SELECT * FROM (VALUES (7, 9223372036854775807::BIGINT, NULL::INTEGER)) t(a, big, n)');
    await conn.run("CREATE TABLE r AS SELECT * FROM (VALUES (2, 'x''y')) t(b, s)");
    const probe = async (e: Parameters<typeof exprToSql>[0]) =>
      (await conn.runAndReadAll(`SELECT ${exprToSql(e)} FROM l, r`)).getRows()[0]![0];
    expect(await probe(arith('/', col('left', 'a'), col('right', 'b')))).toBe(3.5);
    expect(await probe(arith('//', col('left', 'a'), col('right', 'b')))).toBe(3);
    expect(await probe(arith('%', lit(-7), col('right', 'b')))).toBe(-1);
    expect(await probe(arith('-', col('left', 'big'), lit(9223372036854775806n)))).toBe(1n);
    await expect(probe(arith('+', col('left', 'big'), col('left', 'big')))).rejects.toThrow(/Overflow in addition of INT64/);
    expect(String(await probe(arith('*', col('left', 'a'), lit(0.5))))).toBe('3.5'); // DECIMAL(12,1), exact
    expect(await probe(cmp('=', col('right', 's'), lit("x'y")))).toBe(true);
    expect(await probe(cmp('=', col('left', 'n'), lit(1)))).toBe(null);
    expect(await probe(or(cmp('=', col('left', 'n'), lit(1)), lit(true)))).toBe(true);
    expect(await probe(cmp('=', arith('/', lit(0), lit(0)), lit(NaN)))).toBe(true); // NaN = NaN in DuckDB
  });
});
