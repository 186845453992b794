/**
 * `nested-loop` suite: the oracle against DuckDB on small inputs (it is quadratic by design; the
 * point is to know what the oracle costs when the fuzzers lean on it, not to win).
 */
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { randomTable } from '../../adapters/datagen/random-tables.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

export async function nestedLoopCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const rows = Math.round(2000 * scale);
  const rng = new Rng(42);
  const cols = [
    { name: 'k', type: 'int64', domain: rows, nullRate: 0.01 },
    { name: 'v', type: 'float64', domain: 1000, nullRate: 0 },
  ] as const;
  const left = randomTable(rng, cols, rows, 1024);
  const right = randomTable(rng, cols, rows, 1024);
  await duck.loadTable('nl_left', left);
  await duck.loadTable('nl_right', right);
  const engine = await Engine.create(caseConfig({ join: 'nested-loop' }, overrides));
  const cases: BenchCase[] = [];
  for (const type of ['inner', 'left-semi', 'left-anti'] as const) {
    const spec = toJoinSpec({ type, on: 'k=k' });
    const sql = joinToSql(spec, { table: 'nl_left', columns: ['k', 'v'] }, { table: 'nl_right', columns: ['k', 'v'] });
    cases.push({
      name: `nested-loop ${type} ${rows}x${rows} int64`,
      joinlab: async () => (await engine.join(spec, left, right)).table.numRows,
      duckdb: async () => (await duck.query(sql)).numRows,
    });
  }
  return cases;
}
