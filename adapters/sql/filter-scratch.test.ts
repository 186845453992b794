/**
 * Issue 31, "Resources", in SQL: a WHERE filter's and a SELECT expression's scratch count against
 * the query's memoryLimit (core/expr/scratch.ts). A wide OR no IN set absorbs (terms over two
 * columns) under a limit its whole-batch scratch would pass evaluates in chunks and still gives
 * DuckDB's answer; below what a few rows need it is a MemoryLimitError naming the filter.
 */
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { MemoryLimitError } from '../../core/errors.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql } from './run.ts';

let duck: DuckDBSession;
let tables: Record<string, Table>;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.run("CREATE TABLE t AS SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i % 1000 END AS a, i % 37 AS b, 's' || (i % 11) AS s FROM range(20000) t(i)");
  tables = { t: await duck.query('SELECT * FROM t') };
});
afterAll(() => duck.close());

// 300 terms over a, b and s: an OR of equalities on several columns stays an OR tree
const WHERE = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `a + ${i} = ${i * 3}` : i % 3 === 1 ? `(b = ${i % 37} AND a > ${i})` : `s || 'x' = 's${i % 11}x' AND a < ${i}`)).join(' OR ');
const QUERY = `SELECT a, b, s, a * 2 + b AS c FROM t WHERE ${WHERE} ORDER BY a, b, s`;

describe('SQL WHERE / SELECT scratch under memoryLimit', () => {
  it('chunks a wide WHERE under a tight limit, with DuckDB’s answer', async () => {
    const want = await duck.query(QUERY);
    const engine = await Engine.create({ memoryLimit: '3MB' });
    const { table } = await runSql(engine, QUERY, tables, { duck });
    const r = compareResults(table, want);
    expect(r.equal, formatComparison(r)).toBe(true);
    expect(table.numRows).toBeGreaterThan(1000);
  });

  it('below what a few rows need: a MemoryLimitError naming the WHERE filter', async () => {
    const engine = await Engine.create({ memoryLimit: '200KB' });
    const error = await runSql(engine, QUERY, tables, { duck }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toMatch(/WHERE on t filter scratch \(filter .*…\)/);
  });
});
