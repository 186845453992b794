/**
 * One SQL text run by joinlab (`runSql`, on each engine given: batch sizes 1 / 3 / 8192 …) and by
 * DuckDB on the same tables, the answers compared as multisets and, when the query promises an
 * order, in order — the check the SQL tests share. Returns null when every engine agrees with
 * DuckDB, else a report naming the engine's batch size and the difference.
 *
 * `ordered`: true compares whole rows in sequence (a total ORDER BY, or ties that are identical
 * rows); a list of column names compares only those columns' sequence (ORDER BY a prefix: ties
 * may come in any order).
 */
import type { Table } from 'apache-arrow';
import type { JoinInput } from '../../core/engine.ts';
import { compareResults, formatComparison, orderDifference } from '../duckdb/compare.ts';
import type { DuckDBSession } from '../duckdb/session.ts';
import { runSql, type SqlEngine } from './run.ts';

export interface DifferentialOptions {
  readonly ordered?: boolean | readonly string[];
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
