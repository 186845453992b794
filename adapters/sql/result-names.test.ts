/**
 * Result column names of unaliased expressions are DuckDB's, character for character, so that
 * `--compare` and derived tables see the same names in both engines: checked here for casts to
 * every type name DuckDB prints differently (quoted `"UBIGINT"`, `DECIMAL(3, 0)` with its space),
 * in both cast spellings, against the names DuckDB gives the same query.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../duckdb/session.ts';
import { parseSql } from './parse.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.run(`CREATE TABLE t AS SELECT 1 AS id, 'x' AS s, 1.5::DOUBLE AS f WHERE false`);
});
afterAll(() => duck.close());

const TYPES = [
  'UBIGINT', 'UINTEGER', 'USMALLINT', 'UTINYINT', 'TINYINT', 'SMALLINT', 'INTEGER', 'INT', 'BIGINT', 'HUGEINT', 'UHUGEINT',
  'DOUBLE', 'FLOAT8', 'DOUBLE PRECISION', 'FLOAT', 'REAL', 'DECIMAL(3,0)', 'DECIMAL(15, 2)', 'NUMERIC(5,1)',
  'DECIMAL', 'DECIMAL(10)', 'NUMERIC', 'DEC(4, 2)', 'VARCHAR', 'TEXT', 'VARCHAR(10)', 'CHAR', 'CHAR(3)', 'TIMESTAMP(3)', 'TIMESTAMP(0)', 'TIMESTAMP(6)', 'DATE', 'TIMESTAMP', 'DATETIME', 'TIMESTAMPTZ', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIME', 'TIMETZ',
  'INTERVAL', 'BOOLEAN', 'BOOL', 'BLOB', 'UUID',
];

async function namesOf(sql: string): Promise<{ joinlab: (string | null)[]; duckdb: string[] }> {
  const q = await parseSql(duck, sql);
  const duckdb = (await duck.query(sql)).schema.fields.map((f) => f.name);
  return { joinlab: q.select.map((s) => s.name), duckdb };
}

describe("result column names of casts are DuckDB's", () => {
  it('CAST(x AS T) and x::T for every type name', async () => {
    const items = TYPES.flatMap((t) => [`CAST(s AS ${t})`, `s::${t}`]);
    const { joinlab, duckdb } = await namesOf(`SELECT ${items.join(', ')} FROM t`);
    const wrong = items.map((e, i) => ({ e, joinlab: joinlab[i], duckdb: duckdb[i] })).filter((x) => x.joinlab !== x.duckdb);
    expect(wrong).toEqual([]);
  });

  it('an aggregate of a cast', async () => {
    const { joinlab, duckdb } = await namesOf('SELECT sum(CAST(f AS DECIMAL(15,2))), max(id::UBIGINT) FROM t');
    expect(joinlab).toEqual(duckdb);
  });

  it('casts inside other expressions and of expressions', async () => {
    const items = [
      "CAST('a AS b' AS VARCHAR(3))",
      "CAST(s || ')' AS DECIMAL(4))",
      'CAST( s  AS  numeric ( 5 ) )',
      'CAST((id)AS DECIMAL(6,2))',
      'CAST(CAST(s AS CHAR(2)) AS DECIMAL)',
      'CAST(id AS UBIGINT) + 1', 'CAST(id + 1 AS DECIMAL(3,0))', "CAST('a' AS VARCHAR) || s", 'CAST(CAST(id AS DOUBLE) AS DECIMAL(10,2))'];
    const { joinlab, duckdb } = await namesOf(`SELECT ${items.join(', ')} FROM t`);
    expect(joinlab).toEqual(duckdb);
  });
});
