/**
 * A WHERE of 9,000 ORed equalities on one column, and the same as `IN (…)`, over a 20,000-row
 * join: both give DuckDB's answer. (Both reach the evaluator as one OR — relation.ts turns an IN
 * list into ORed equalities — which compiles to one set lookup, core/expr/in-set-node.ts; the
 * term-by-term OR cost 1 GB and 20 s here.) NULLs in the list and in the column included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { compareResults, formatComparison } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import type { Table } from 'apache-arrow';
import { runSql } from './run.ts';

let duck: DuckDBSession;
let engine: Engine;
let tables: Record<string, Table>;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
  await duck.run('CREATE TABLE l AS SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i END AS a, i % 100 AS k, i::BIGINT * 1000000000000 AS big FROM range(20000) t(i)');
  await duck.run('CREATE TABLE r AS SELECT i AS k, i * 2 AS w FROM range(100) t(i)');
  tables = { l: await duck.query('SELECT * FROM l'), r: await duck.query('SELECT * FROM r') };
  engine = await Engine.create({});
});
afterAll(() => duck.close());

/** joinlab's answer to `sql` is DuckDB's to `reference` (default: the same text). */
async function same(sql: string, reference = sql): Promise<void> {
  const { table } = await runSql(engine, sql, tables, { duck });
  const r = compareResults(table, await duck.query(reference));
  expect(r.equal, `${sql.slice(0, 200)}…\n${formatComparison(r)}`).toBe(true);
}

describe('an OR of 9,000 equalities, and IN', () => {
  const values = Array.from({ length: 9000 }, (_, i) => i * 2 + 1);
  it('the OR form and the IN form give DuckDB\'s answer', async () => {
    const inForm = `SELECT count(*), sum(r.w) FROM l JOIN r ON l.k = r.k WHERE l.a IN (${values.join(', ')})`;
    await same(inForm);
    // DuckDB takes seconds over the OR form itself: its answer to the IN form is the reference
    await same(`SELECT count(*), sum(r.w) FROM l JOIN r ON l.k = r.k WHERE ${values.map((v) => `l.a = ${v}`).join(' OR ')}`, inForm);
    // NOT, a NULL in the list (never TRUE then for a non-match), a 64-bit column
    await same(`SELECT count(*) FROM l WHERE NOT (l.a IN (${values.slice(0, 1000).join(', ')}))`);
    await same(`SELECT count(*) FROM l WHERE (l.a IN (${[...values.slice(0, 100), 'NULL'].join(', ')})) IS NULL`);
    await same(`SELECT count(*) FROM l WHERE ${values.slice(0, 3000).map((v) => `l.big = ${v * 1000000000000}`).join(' OR ')}`);
  });
});
