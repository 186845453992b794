/**
 * One SQL text run by joinlab (`runSql`, on engines of batch sizes 1, 3 and 8192) and by DuckDB on
 * the same tables, the answers compared as multisets and, when the query promises an order, in
 * order — the check the SQL tests share (`differentialSession`). `difference` returns null when
 * every engine agrees with DuckDB, else a report naming the engine's batch size and the
 * difference.
 *
 * `ordered`: true compares whole rows in sequence (a total ORDER BY, or ties that are identical
 * rows); a list of column names compares only those columns' sequence (ORDER BY a prefix: ties
 * may come in any order).
 *
 * The engines come from the caller's `createEngine` (a test passes `Engine.create` of the composition
 * root): adapters/ never imports the root.
 *
 * `SMALL_TABLES` are the tables most of those tests read: NULL keys on both sides, duplicate
 * keys, keys of different integer widths (INTEGER vs BIGINT), a DOUBLE with a NULL, and an empty
 * table.
 */
import { Float64, Int32, Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import type { JoinInput } from '../../core/engine.ts';
import { compareResults, formatComparison, orderDifference } from '../duckdb/compare.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { runSql, type SqlEngine } from './run.ts';

export interface DifferentialOptions {
  readonly ordered?: boolean | readonly string[];
}

export const SMALL_TABLES: Readonly<Record<string, Table>> = {
  a: new Table({
    k: vectorFromArray([1, 2, 2, 3, null, 5], new Int32()),
    x: vectorFromArray(['a', 'b', 'c', null, 'e', 'f'], new Utf8()),
    v: vectorFromArray([10, 20, 30, 40, 50, 60], new Int32()),
  }),
  b: new Table({
    k: vectorFromArray([2n, 3n, 3n, null, 7n], new Int64()),
    v: vectorFromArray([15, 25, 35, 45, null], new Int32()),
    y: vectorFromArray([0.5, 1.5, null, 3.5, 4.5], new Float64()),
  }),
  e: new Table({ k: vectorFromArray([] as number[], new Int32()), v: vectorFromArray([] as number[], new Int32()) }),
};

export interface DifferentialSession<E extends SqlEngine = SqlEngine> {
  readonly duck: DuckDBSession;
  readonly engines: readonly E[];
  readonly tables: Readonly<Record<string, JoinInput>>;
  difference(sql: string, options?: DifferentialOptions): Promise<string | null>;
  close(): Promise<void>;
}

/**
 * A DuckDB session holding `tables`, plus tables DuckDB makes (`made`: name -> a query, e.g. for
 * DECIMAL and DATE columns), read back as Arrow so both engines read the very same values.
 */
export async function differentialSession<E extends SqlEngine>(
  createEngine: (config: { batchSize: number }) => Promise<E>,
  tables: Readonly<Record<string, Table>>,
  made: Readonly<Record<string, string>> = {},
): Promise<DifferentialSession<E>> {
  const duck = await DuckDBSession.open({ threads: 1 });
  const all: Record<string, Table> = { ...tables };
  for (const [name, t] of Object.entries(tables)) await duck.loadTable(name, t);
  for (const [name, sql] of Object.entries(made)) {
    await duck.run(`CREATE TABLE ${name} AS ${sql}`);
    all[name] = await duck.query(`SELECT * FROM ${name}`);
  }
  const engines = await Promise.all([1, 3, 8192].map((batchSize) => createEngine({ batchSize })));
  return {
    duck,
    engines,
    tables: all,
    difference: (sql, options) => differenceFromDuckDB(engines, duck, sql, all, options),
    close: async () => {
      await duck.close();
    },
  };
}

export async function differenceFromDuckDB(engines: readonly SqlEngine[], duck: DuckDBSession, sql: string, tables: Readonly<Record<string, JoinInput>>, options: DifferentialOptions = {}): Promise<string | null> {
  const expected = await duck.query(sql);
  for (const engine of engines) {
    const { table } = await runSql(engine, sql, tables, { duck });
    const problem = differenceOf(table, expected, options);
    if (problem !== null) return `${sql}\n(batchSize ${engine.config.batchSize}) ${problem}`;
  }
  return null;
}

function differenceOf(actual: Table, expected: Table, options: DifferentialOptions): string | null {
  const r = compareResults(actual, expected);
  if (!r.equal) return formatComparison(r);
  if (options.ordered === undefined || options.ordered === false) return null;
  return orderDifference(actual, expected, options.ordered === true ? undefined : options.ordered);
}
