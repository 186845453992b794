import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { and, arith, cmp, col, isNull, lit, not, or } from './ast.ts';
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

  it('casts arithmetic operands to DOUBLE (joinlab arithmetic is float64)', () => {
    const e = cmp('>', arith('+', col('left', 'a'), arith('*', col('right', 'b'), lit(2))), lit(0));
    expect(exprToSql(e)).toBe('((CAST(l."a" AS DOUBLE) + (CAST(r."b" AS DOUBLE) * CAST(2 AS DOUBLE))) > 0)');
  });

  it('renders literals', () => {
    expect(exprToSql(lit(null))).toBe('NULL');
    expect(exprToSql(lit(true))).toBe('TRUE');
    expect(exprToSql(lit(false))).toBe('FALSE');
    expect(exprToSql(lit("o'k"))).toBe("'o''k'");
    expect(exprToSql(lit(42))).toBe('42');
    expect(exprToSql(lit(-7))).toBe('(-7)');
    expect(exprToSql(lit(0.1))).toBe("'0.1'::DOUBLE");
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

  it('evaluates like joinlab: float division, no integer overflow, three-valued logic', async () => {
    await conn.run('CREATE TABLE l AS SELECT * FROM (VALUES (7, 9223372036854775807::BIGINT, NULL::INTEGER)) t(a, big, n)');
    await conn.run("CREATE TABLE r AS SELECT * FROM (VALUES (2, 'x''y')) t(b, s)");
    const probe = async (e: Parameters<typeof exprToSql>[0]) =>
      (await conn.runAndReadAll(`SELECT ${exprToSql(e)} FROM l, r`)).getRows()[0]![0];
    expect(await probe(arith('/', col('left', 'a'), col('right', 'b')))).toBe(3.5);
    expect(await probe(arith('+', col('left', 'big'), col('left', 'big')))).toBe(2 * 9223372036854775807);
    expect(await probe(cmp('=', col('right', 's'), lit("x'y")))).toBe(true);
    expect(await probe(cmp('=', col('left', 'n'), lit(1)))).toBe(null);
    expect(await probe(or(cmp('=', col('left', 'n'), lit(1)), lit(true)))).toBe(true);
    expect(await probe(cmp('=', arith('/', lit(0), lit(0)), lit(NaN)))).toBe(true); // NaN = NaN in DuckDB
  });
});
