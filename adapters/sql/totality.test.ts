/**
 * Binder totality (issue 31): for a corpus using every clause of DuckDB's SELECT grammar, joinlab
 * either answers what DuckDB answers or throws UnsupportedSqlError — never a different answer
 * (`SELECT * FROM a TABLESAMPLE 0%` once returned every row). Two checks:
 *  - structural: the converter (parse.ts) reaches every object of each parse tree it accepts
 *    through its field reader and accounts for every key (read, or checked to be at its default),
 *    so no field is silently skipped;
 *  - differential: each query is run by joinlab and DuckDB on the same small tables.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { JoinlabError, UnsupportedSqlError } from '../../core/errors.ts';
import { quoteString } from '../../core/expr/sql.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { differentialSession, SMALL_TABLES, type DifferentialSession } from './differential.ts';
import { convertDocument, parseExactJson, traceFields, type Json } from './parse.ts';
import { runSql } from './run.ts';

/** a(k INT, x VARCHAR, v INT), b(k BIGINT, v INT, y DOUBLE), e(k INT, v INT) (differential.ts). */
const CORPUS = [
  // sampling
  'SELECT * FROM a TABLESAMPLE 0%',
  'SELECT * FROM a TABLESAMPLE 100%',
  'SELECT * FROM a USING SAMPLE 2 ROWS',
  'SELECT * FROM a USING SAMPLE 10% (bernoulli, 42)',
  'SELECT * FROM (SELECT * FROM a) s TABLESAMPLE 0%',
  'SELECT * FROM a JOIN b USING (k) USING SAMPLE 0%',
  // QUALIFY, windows, WINDOW
  'SELECT k, v FROM a QUALIFY row_number() OVER (PARTITION BY k ORDER BY v) = 1',
  'SELECT sum(v) OVER w FROM a WINDOW w AS (PARTITION BY k ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)',
  'SELECT first_value(x IGNORE NULLS) OVER (ORDER BY v) FROM a',
  'SELECT sum(v) FILTER (WHERE k > 1) OVER () FROM a',
  // grouping
  'SELECT k, count(*) FROM a GROUP BY GROUPING SETS ((k), ())',
  'SELECT k, x, count(*) FROM a GROUP BY CUBE (k, x)',
  'SELECT k, count(*) FROM a GROUP BY ROLLUP (k)',
  'SELECT grouping(k) FROM a GROUP BY ROLLUP (k)',
  'SELECT count(*) FROM a GROUP BY ()',
  'SELECT 1 FROM a GROUP BY ()',
  'SELECT k, count(*) FROM a GROUP BY GROUPING SETS ((k))',
  'SELECT k, count(*) FROM a GROUP BY k, ()',
  'SELECT k, count(*) FROM a GROUP BY ALL',
  'SELECT k, x, count(*) FROM a GROUP BY x, k',
  'SELECT k, count(*) FROM a GROUP BY 1',
  'SELECT k, sum(v) FROM a GROUP BY k HAVING sum(v) > 20',
  'SELECT count(*) FROM a HAVING count(*) > 1',
  'SELECT 1 FROM a HAVING true',
  'SELECT 1 FROM e HAVING true',
  // DISTINCT, ORDER BY, LIMIT / OFFSET
  'SELECT DISTINCT ON (k) k, v FROM a ORDER BY k, v',
  'SELECT DISTINCT k FROM a',
  'SELECT ALL k FROM a',
  'SELECT v FROM a ORDER BY v LIMIT 1 + 1',
  'SELECT v FROM a ORDER BY v LIMIT 2 OFFSET 2 * 1',
  'SELECT v FROM a ORDER BY v LIMIT 50%',
  'SELECT v FROM a ORDER BY v LIMIT NULL',
  'SELECT v FROM a ORDER BY ALL',
  'SELECT v FROM a ORDER BY ALL DESC',
  'SELECT v FROM a ORDER BY v DESC NULLS FIRST LIMIT 3',
  'SELECT v FROM a ORDER BY v OFFSET 2',
  '(SELECT v FROM a ORDER BY v LIMIT 3) ORDER BY v DESC',
  '(SELECT v FROM a ORDER BY v DESC LIMIT 4) LIMIT 2',
  'SELECT v AS w FROM a ORDER BY w',
  'SELECT v FROM a ORDER BY 1',
  // joins
  'SELECT * FROM a, LATERAL (SELECT a.k + 1 AS z) s',
  'SELECT * FROM a, (SELECT a.k + 1 AS z) s',
  'SELECT * FROM a JOIN LATERAL (SELECT b.v FROM b WHERE b.k = a.k) s ON true',
  'SELECT * FROM a POSITIONAL JOIN b',
  // ASOF: only columns the tie among b's two k = 3 rows cannot change (DuckDB returns either one)
  'SELECT a.*, b.k AS bk FROM a ASOF JOIN b ON a.k >= b.k',
  'SELECT a.v, b.k AS bk FROM a ASOF LEFT JOIN b ON a.k < b.k',
  'SELECT * FROM a ASOF RIGHT JOIN b ON a.k >= b.k',
  'SELECT * FROM a NATURAL JOIN b',
  'SELECT * FROM a NATURAL LEFT JOIN b',
  'SELECT * FROM a JOIN b USING (k)',
  'SELECT * FROM a FULL JOIN b USING (k)',
  'SELECT * FROM a CROSS JOIN e',
  'SELECT * FROM a SEMI JOIN b ON a.k = b.k',
  'SELECT * FROM a ANTI JOIN b USING (k)',
  'SELECT a.k, a.v, b.y FROM a LEFT JOIN b ON a.k = b.k AND b.v > a.v',
  'SELECT j.x FROM (a JOIN b USING (k)) j',
  'SELECT * FROM a AS t(p, q)',
  'SELECT * FROM main.a',
  // CTEs
  'WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r',
  'WITH c AS MATERIALIZED (SELECT k FROM a) SELECT * FROM c',
  'WITH c AS NOT MATERIALIZED (SELECT k FROM a) SELECT * FROM c',
  'WITH c(p) AS (SELECT k, v FROM a) SELECT * FROM c',
  // aggregates
  'SELECT count(*) FILTER (WHERE k > 1) FROM a',
  'SELECT string_agg(x, \',\' ORDER BY v) FROM a',
  'SELECT list(x ORDER BY v DESC) FROM a',
  'SELECT count(DISTINCT k) FROM a',
  'SELECT mode() WITHIN GROUP (ORDER BY k) FROM a',
  'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM a',
  'SELECT min(x), max(x), sum(v), avg(v) FROM a',
  'SELECT sum(x) FROM a',
  // expressions
  'SELECT x COLLATE nocase FROM a',
  'SELECT x FROM a ORDER BY x COLLATE nocase',
  "SELECT {'p': 1, 'q': 2}",
  'SELECT [1, 2, 3]',
  "SELECT MAP {'k': 1}",
  'SELECT list_transform([1, 2], y -> y + 1)',
  'SELECT struct_pack(p := 1)',
  'SELECT ARRAY[1, 2]',
  'SELECT row(1, 2)',
  'SELECT (1, 2)',
  'SELECT [1, 2][1]',
  'SELECT [1, 2, 3][1:2]',
  'SELECT * EXCLUDE (x) FROM a',
  'SELECT * REPLACE (v + 1 AS v) FROM a',
  'SELECT * RENAME (x AS z) FROM a',
  'SELECT a.* EXCLUDE (x) FROM a',
  'SELECT COLUMNS(*) FROM a',
  "SELECT COLUMNS('k|v') FROM a",
  'SELECT TRY_CAST(x AS INTEGER) FROM a',
  'SELECT CAST(v AS VARCHAR(10)) AS c FROM a',
  'SELECT CAST(v AS DECIMAL(10,2)) AS c FROM a',
  'SELECT v::INTEGER[] FROM a',
  'SELECT CASE k WHEN 1 THEN 2 ELSE 3 END FROM a',
  'SELECT CASE WHEN k > 1 THEN x END FROM a',
  'SELECT v BETWEEN 20 AND 40, v NOT BETWEEN 20 AND 40 FROM a',
  "SELECT x LIKE 'a%', x ILIKE 'A%', x SIMILAR TO 'a', x GLOB 'a*' FROM a",
  "SELECT x LIKE 'a!%' ESCAPE '!' FROM a",
  "SELECT x ~ 'a' FROM a",
  'SELECT k IS NOT DISTINCT FROM 2, k IS DISTINCT FROM 2 FROM a',
  'SELECT (k > 1) IS TRUE FROM a',
  'SELECT coalesce(k, 0), nullif(k, 2), greatest(k, 2) FROM a',
  'SELECT -v, +v, ~v FROM a',
  'SELECT 2 ** 3, 7 // 2, 7 % 2',
  "SELECT 'a' || 'b'",
  "SELECT x FROM a WHERE x ^@ 'a'",
  'SELECT 1e400',
  'SELECT 0.1, 1::UTINYINT AS u, TRUE, NULL',
  "SELECT DATE '2020-01-01' AS d",
  'SELECT INTERVAL 1 DAY',
  "SELECT 'a'::BLOB",
  'SELECT current_date',
  'SELECT current_timestamp',
  'SELECT $1',
  'SELECT #1 FROM a',
  'SELECT k FROM a WHERE k = ANY ([1, 2])',
  'SELECT k FROM a WHERE k IN (1, 2)',
  'SELECT k FROM a WHERE k = 1 OR k = 2 OR k = 5',
  'SELECT unnest([1, 2])',
  "SELECT k FROM a WHERE x IN ('a', 'b', 'c')",
  "SELECT k FROM a WHERE x = 'a' OR x = 'b' OR x = 'q'",
  'SELECT k FROM a WHERE k = 1 OR k = NULL OR k = 2',
  'SELECT k, NOT (k IN (1, 2, NULL)) AS n FROM a',
  'SELECT count(*) FROM b WHERE k = 2 OR 3 = k OR k = 9223372036854775807',
  'SELECT max(k) FILTER (k > 1) FROM a',
  'SELECT k, count(*) FROM a GROUP BY k ORDER BY 1 NULLS FIRST',
  'SELECT k, x FROM a ORDER BY k NULLS LAST, x',
  'SELECT * FROM a AT (VERSION => 1)',
  'SELECT k FROM a WHERE k IN (SELECT k FROM b ORDER BY k LIMIT 1)',
  'SELECT sum(v) AS s FROM a GROUP BY k HAVING s > 20',
  // subqueries
  'SELECT k FROM a WHERE k IN (SELECT k FROM b)',
  'SELECT k FROM a WHERE k > ALL (SELECT k FROM b)',
  'SELECT k FROM a WHERE k < ANY (SELECT k FROM b)',
  'SELECT k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)',
  'SELECT (SELECT max(v) FROM b)',
  'SELECT k FROM a WHERE (k, v) IN (SELECT k, v FROM b)',
  'SELECT 1 IN (SELECT 1)',
  // table functions, VALUES, set operations, FROM-first
  'SELECT * FROM range(3)',
  'SELECT * FROM generate_series(1, 3) WITH ORDINALITY',
  'SELECT * FROM unnest([1, 2])',
  'SELECT * FROM (VALUES (1, 2), (3, 4)) v(p, q)',
  'VALUES (1, 2)',
  'SELECT 1 UNION SELECT 2',
  'SELECT 1 UNION ALL BY NAME SELECT 2',
  'SELECT k FROM a INTERSECT SELECT k FROM b',
  'SELECT k FROM a EXCEPT ALL SELECT k FROM b',
  'FROM a',
  'FROM a SELECT k',
  'PIVOT a ON x USING sum(v)',
  'SELECT * FROM (UNPIVOT a ON k, v INTO NAME n VALUE w)',
];

let s: DifferentialSession<Engine>;
beforeAll(async () => {
  s = await differentialSession((c) => Engine.create(c), SMALL_TABLES);
});
afterAll(() => s.close());

async function parseTreeOf(sql: string): Promise<Json> {
  const [row] = await s.duck.queryRows(`SELECT json_serialize_sql(${quoteString(sql)}, skip_null := true)::VARCHAR`);
  return parseExactJson(String(row![0]));
}

/** Objects of `doc` the converter should have read (through read keys), with a path for the message. */
function* reachable(node: Json, path: string, read: Map<object, { read: ReadonlySet<string>; checked: ReadonlySet<string> }>): Generator<string> {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* reachable(node[i]!, `${path}[${i}]`, read);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const seen = read.get(node);
  if (seen === undefined) {
    yield `${path}: never read`;
    return;
  }
  for (const [k, v] of Object.entries(node)) {
    if (seen.read.has(k)) yield* reachable(v, `${path}.${k}`, read);
    else if (!seen.checked.has(k) && v !== null) yield `${path}.${k}: neither read nor checked`;
  }
}

describe('binder totality', () => {
  it('the converter reads or checks every field of every parse tree it accepts', async () => {
    const problems: string[] = [];
    let accepted = 0;
    for (const sql of CORPUS) {
      const doc = await parseTreeOf(sql);
      const read = new Map<object, { read: ReadonlySet<string>; checked: ReadonlySet<string> }>();
      try {
        traceFields((n, r, c) => read.set(n, { read: new Set(r), checked: new Set(c) }), () => convertDocument(doc));
      } catch (e) {
        if (e instanceof UnsupportedSqlError) continue;
        throw e;
      }
      accepted++;
      const statement = ((doc as { statements: Json[] }).statements)[0]!;
      for (const p of reachable(statement, 'statement', read)) problems.push(`${sql}: ${p}`);
    }
    expect(problems).toEqual([]);
    expect(accepted).toBeGreaterThan(30);
  });

  it('every query: DuckDB\'s answer, or UnsupportedSqlError', async () => {
    const problems: string[] = [];
    const engine = s.engines[1]!; // batch size 3
    for (const sql of CORPUS) {
      let actual;
      try {
        ({ table: actual } = await runSql(engine, sql, s.tables, { duck: s.duck }));
      } catch (e) {
        if (e instanceof UnsupportedSqlError) continue;
        // an error DuckDB raises too (`sum` of a string) is no wrong answer
        if (e instanceof JoinlabError && (await s.duck.query(sql).then(() => false, () => true))) continue;
        problems.push(`${sql}: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
        continue;
      }
      const expected = await s.duck.query(sql).catch((e: unknown) => e as Error);
      if (expected instanceof Error) {
        problems.push(`${sql}: joinlab answered, DuckDB failed: ${expected.message}`);
        continue;
      }
      const r = compareResults(actual, expected);
      if (!r.equal) problems.push(`${sql}: ${formatComparison(r)}`);
    }
    expect(problems).toEqual([]);
  });
});
