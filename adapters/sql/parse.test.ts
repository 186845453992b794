/**
 * The SQL front end's first layer: DuckDB parses, joinlab converts. Each construct of the subset
 * converts to the tree the binder expects (joins of every kind, USING / NATURAL / commas, derived
 * tables, CTEs, subqueries, aggregates, ORDER BY / LIMIT, exact constants past 2^53); every
 * construct outside it is a typed UnsupportedSqlError naming it and its position; text the parser
 * rejects is a SqlSyntaxError with DuckDB's position.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlSyntaxError, UnsupportedSqlError } from '../../core/errors.ts';
import type { SelectQuery, SqlExpr, TableRef } from './ast.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { parseExactJson, parseSql } from './parse.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  await duck.close();
});

const parse = (sql: string): Promise<SelectQuery> => parseSql(duck, sql);

/** The tree without positions, for compact expectations. */
function strip<T>(v: T): T {
  return JSON.parse(JSON.stringify(v, (k, x) => (k === 'at' ? undefined : typeof x === 'bigint' ? `${x}n` : x))) as T;
}

async function unsupportedOf(sql: string): Promise<UnsupportedSqlError> {
  try {
    await parse(sql);
  } catch (e) {
    if (e instanceof UnsupportedSqlError) return e;
    throw e;
  }
  throw new Error(`parsed: ${sql}`);
}

describe('parseSql', () => {
  it('a two-table join with aliases, a WHERE and positions', async () => {
    const sql = 'SELECT a.x, b.y AS z FROM t a JOIN u b ON a.k = b.k WHERE a.v > 3';
    const q = await parse(sql);
    expect(strip(q.select)).toEqual([
      { expr: { kind: 'column', names: ['a', 'x'] }, alias: null, name: 'x' },
      { expr: { kind: 'column', names: ['b', 'y'] }, alias: 'z', name: 'z' },
    ]);
    const from = q.from as Extract<TableRef, { kind: 'join' }>;
    expect(strip(from)).toMatchObject({ kind: 'join', type: 'inner', left: { kind: 'table', name: 't', alias: 'a' }, right: { kind: 'table', name: 'u', alias: 'b' }, using: null, natural: false });
    expect(strip(from.on)).toEqual({ kind: 'compare', op: '=', left: { kind: 'column', names: ['a', 'k'] }, right: { kind: 'column', names: ['b', 'k'] } });
    expect(strip(q.where)).toEqual({ kind: 'compare', op: '>', left: { kind: 'column', names: ['a', 'v'] }, right: { kind: 'constant', constant: { type: 'INTEGER', value: '3n', sqlType: 'INTEGER' } } });
    expect(sql.slice(q.where!.at!, q.where!.at! + 1)).toBe('>');
  });

  it('every join kind, USING, NATURAL, comma joins, derived tables and CTEs', async () => {
    const q = await parse('WITH c AS (SELECT k FROM u) SELECT DISTINCT t.*, x FROM t LEFT JOIN c USING (k) NATURAL FULL JOIN w, (SELECT 1 AS one) s RIGHT JOIN v ON v.a = s.one');
    expect(q.distinct).toBe(true);
    expect(q.ctes.map((c) => c.name)).toEqual(['c']);
    expect(strip(q.select[0]!.expr)).toEqual({ kind: 'star', relation: 't' });
    const comma = q.from as Extract<TableRef, { kind: 'join' }>;
    expect(comma.type).toBe('cross');
    const natural = comma.left as Extract<TableRef, { kind: 'join' }>;
    expect([natural.type, natural.natural]).toEqual(['full', true]);
    const using = natural.left as Extract<TableRef, { kind: 'join' }>;
    expect([using.type, using.using]).toEqual(['left', ['k']]);
    const right = comma.right as Extract<TableRef, { kind: 'join' }>;
    expect([right.type, right.left.kind, (right.left as { alias: string }).alias]).toEqual(['right', 'derived', 's']);
  });

  it('subqueries, expressions, aggregates and the modifiers', async () => {
    const q = await parse(
      'SELECT CASE WHEN x IS NULL THEN 1 ELSE 2 END, CAST(x AS DECIMAL(10,2)), count(*), sum(DISTINCT x), coalesce(x, 0), -x, x // 2 ' +
        'FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k) AND x NOT IN (SELECT y FROM u) AND x IN (1, 2) AND NOT (x <> 3) ' +
        'GROUP BY x HAVING count(*) > 1 ORDER BY 1 DESC NULLS FIRST, x LIMIT 5 OFFSET 2',
    );
    const kinds = q.select.map((s) => s.expr.kind);
    expect(kinds).toEqual(['case', 'cast', 'call', 'call', 'call', 'arith', 'arith']);
    expect(strip(q.select[2]!.expr)).toEqual({ kind: 'call', name: 'count', args: [], distinct: false, star: true });
    expect(strip(q.select[3]!.expr)).toMatchObject({ kind: 'call', name: 'sum', distinct: true });
    expect((q.select[1]!.expr as Extract<SqlExpr, { kind: 'cast' }>).type).toBe('DECIMAL(10,2)');
    const where = q.where as SqlExpr & { kind: "and"; args: readonly SqlExpr[] };
    expect(where.args.map((a) => a.kind)).toEqual(['exists', 'not', 'in-list', 'compare']); // DuckDB folds NOT (x <> 3)
    expect((where.args[1] as Extract<SqlExpr, { kind: 'not' }>).arg.kind).toBe('in-subquery');
    expect(q.groupBy).toHaveLength(1);
    expect(q.having?.kind).toBe('compare');
    expect(q.orderBy.map((o) => [o.descending, o.nullsFirst])).toEqual([
      [true, true],
      [false, null],
    ]);
    expect([q.limit, q.offset]).toEqual([5n, 2n]);
  });

  it('names unaliased expressions as DuckDB names their columns', async () => {
    const sql = 'SELECT a.k + 1, count(*), 1.5e3, 1e20, 9007199254740993, CAST(k AS BIGINT), k AS kk, a.k FROM (SELECT 1 AS k) a GROUP BY k';
    const q = await parse(sql);
    const d = await duck.query(sql.replace('1e20, ', ''));
    const names = q.select.map((s) => s.name);
    expect(names.filter((_n, i) => i !== 3)).toEqual(d.schema.fields.map((f) => f.name));
    expect(names[3]).toBe('1e+20');
  });

  it('keeps constants exact past 2^53 (BIGINT, HUGEINT, DECIMAL)', async () => {
    const q = await parse('SELECT 9007199254740993, -9223372036854775808, 170141183460469231731687303715884105727, 12345678901234567.89, 1.5e3, NULL, \'it\'\'s\'');
    expect(q.select.map((s) => (s.expr as Extract<SqlExpr, { kind: 'constant' }>).constant)).toEqual([
      { type: 'INTEGER', value: 9007199254740993n, sqlType: 'BIGINT' },
      { type: 'INTEGER', value: -9223372036854775808n, sqlType: expect.any(String) },
      { type: 'INTEGER', value: 2n ** 127n - 1n, sqlType: 'HUGEINT' },
      { type: 'DECIMAL', value: 1234567890123456789n, width: 19, scale: 2 },
      { type: 'DOUBLE', value: 1500, sqlType: 'DOUBLE' },
      { type: 'NULL', value: null },
      { type: 'VARCHAR', value: "it's" },
    ]);
    // DuckDB's parser writes TRUE as CAST('t' AS BOOLEAN)
    expect(strip((await parse('SELECT true')).select[0]!.expr)).toMatchObject({ kind: 'cast', type: 'BOOLEAN' });
    // digits inside strings are left alone
    expect(parseExactJson('{"a": "12345678901234567890", "b": 12345678901234567890, "c": 1.5e300}')).toEqual({ a: '12345678901234567890', b: '\u0000big:12345678901234567890', c: 1.5e300 });
  });

  it('scalar subqueries, SEMI / ANTI joins, column aliases on table references and CTEs', async () => {
    const q = await parse('WITH c(p) AS (SELECT 1, 2) SELECT (SELECT max(y) FROM u) AS m FROM t AS x(a, b) SEMI JOIN u ON x.a = u.y ANTI JOIN c USING (p)');
    expect(strip(q.select[0]!.expr)).toMatchObject({ kind: 'scalar-subquery', query: { select: [{ expr: { kind: 'call', name: 'max' } }] } });
    expect(q.ctes[0]!.columnAliases).toEqual(['p']);
    const anti = q.from as Extract<TableRef, { kind: 'join' }>;
    const semi = anti.left as Extract<TableRef, { kind: 'join' }>;
    expect([anti.type, anti.using, semi.type]).toEqual(['left-anti', ['p'], 'left-semi']);
    expect(strip(semi.left)).toEqual({ kind: 'table', name: 't', alias: 'x', columnAliases: ['a', 'b'] });
    const derived = (await parse('SELECT * FROM (SELECT 1, 2) AS s(one)')).from as Extract<TableRef, { kind: 'derived' }>;
    expect(derived.columnAliases).toEqual(['one']);
  });

  it('names what is outside the subset, with its position', async () => {
    const cases: [string, RegExp, string][] = [
      ['SELECT 1 UNION SELECT 2', /set operation UNION/, ''],
      ['SELECT row_number() OVER () FROM t', /window function row_number/, 'row_number'],
      ['SELECT * FROM t WHERE x > ALL (SELECT y FROM u)', /ANY \(subquery\)/, ''],
      ['WITH RECURSIVE r AS (SELECT 1 UNION ALL SELECT 1 FROM r) SELECT * FROM r', /recursive CTE|set operation/, ''],
      ['SELECT * FROM range(10)', /table function range/, 'range'],
      ['SELECT x FROM t QUALIFY x > 1', /QUALIFY/, ''],
      ['SELECT TRY_CAST(x AS INT) FROM t', /TRY_CAST/, ''],
      ['SELECT * FROM t WHERE x > ANY (SELECT y FROM u)', /ANY \(subquery\)/, ''],
      ['SELECT * FROM t POSITIONAL JOIN u', /POSITIONAL join/, ''],
      ['SELECT * FROM t ASOF RIGHT JOIN u ON t.a >= u.a', /ASOF RIGHT join/, ''],
      ['SELECT * FROM s.t', /schema- or catalog-qualified/, ''],
      ['SELECT x FROM t GROUP BY ROLLUP (x)', /GROUPING SETS/, ''],
      ['SELECT 1; SELECT 2', /2 statements/, ''],
      // fields of a node the converter reads (issue 31: TABLESAMPLE returned every row)
      ['SELECT * FROM t TABLESAMPLE 10%', /TABLESAMPLE/, 't'],
      ['SELECT * FROM t USING SAMPLE 5 ROWS', /TABLESAMPLE \/ USING SAMPLE/, ''],
      ['SELECT struct_pack(a := 1)', /named argument/, ''],
      ['SELECT * EXCLUDE (x) FROM t', /\* EXCLUDE/, ''],
      ['SELECT count(*) FILTER (WHERE x > 1) FROM t', /FILTER/, 'count'],
      ['SELECT x FROM t ORDER BY ALL', /ORDER BY ALL/, ''],
      ['SELECT count(*) FROM t GROUP BY ()', /GROUP BY \(\)/, ''],
      ['SELECT x FROM t LIMIT 10%', /LIMIT … %/, ''],
      ['SELECT 1e400', /out of range/, '1e400'],
      ['(SELECT x FROM t LIMIT 3) LIMIT 1', /cannot write as a parse tree|LIMIT applied after/, ''],
    ];
    for (const [sql, what, at] of cases) {
      const e = await unsupportedOf(sql);
      expect(e.message, sql).toMatch(what);
      expect(e.kind).toBe('unsupported-sql');
      expect(e.exitCode).toBe(2);
      if (at !== '') expect(sql.slice(e.position!, e.position! + at.length), sql).toBe(at);
    }
  });

  it('a syntax error is typed, with DuckDB\'s message and position', async () => {
    const e = await parse('SELECT x FROM t WHERE').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SqlSyntaxError);
    expect((e as SqlSyntaxError).message).toMatch(/syntax error/);
    expect((e as SqlSyntaxError).position).toBeGreaterThan(0);
    const f = await parse('SELEC x').catch((x: unknown) => x);
    expect(f).toBeInstanceOf(SqlSyntaxError);
    expect((f as SqlSyntaxError).position).toBe(0);
  });
});

describe("the session's ORDER BY defaults (issue 31)", () => {
  it('default_order and default_null_order decide what an ORDER BY item without them means', async () => {
    const s = await DuckDBSession.open({ threads: 1 });
    try {
      const order = async (sql: string) => (await parseSql(s, sql)).orderBy.map((o) => [o.descending, o.nullsFirst]);
      expect(await order('SELECT 1 AS a ORDER BY a, a DESC NULLS FIRST')).toEqual([
        [false, null],
        [true, true],
      ]);
      await s.run("SET default_null_order = 'nulls_first'");
      expect(await order('SELECT 1 AS a ORDER BY a, a DESC, a NULLS LAST')).toEqual([
        [false, true],
        [true, true],
        [false, false],
      ]);
      await s.run("PRAGMA default_null_order = 'nulls_first_on_asc_last_on_desc'");
      await s.run("SET default_order = 'desc'");
      expect(await order('SELECT 1 AS a ORDER BY a, a ASC')).toEqual([
        [true, false],
        [false, true],
      ]);
    } finally {
      s.close();
    }
  });
});
