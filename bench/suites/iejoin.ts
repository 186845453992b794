/**
 * `iejoin` suite (issue 32): the IEJoin (`join=iejoin`) on the shape of DuckDB's own IEJoin
 * benchmark `benchmark/micro/join/iejoin_events.benchmark` (v1.5.5, from Khayyat et al.'s Q2):
 * a self-join of events that collects the pairs of overlapping ones,
 *
 *   SELECT … FROM events r, events s WHERE r.start <= s.end AND r.end >= s.start AND r.id <> s.id
 *
 * 30 000 events x scale, starting on a random minute of 40 years, lasting 5–55 minutes, one in ten
 * extended to 120 minutes (DuckDB's generator, in minutes as BIGINT instead of TIMESTAMPs). Two
 * cases: the IEJoin against DuckDB at full size (the nested-loop join would test 9e8 pairs there),
 * and at a tenth of it the IEJoin against the nested-loop join as its baseline (`speedup`).
 * DuckDB answers with its own IEJoin (two inequalities, no equality, inputs over
 * `merge_join_threshold`), materialising the pairs as joinlab does.
 */
import { makeVector, Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

/** DuckDB's events table: id, start minute, end minute. */
function events(rng: Rng, n: number): Table {
  const id = new BigInt64Array(n);
  const start = new BigInt64Array(n);
  const end = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const s = rng.int(0, 40 * 365) * 1440 + rng.int(0, 23) * 60;
    id[i] = BigInt(i + 1);
    start[i] = BigInt(s);
    end[i] = BigInt(s + (rng.chance(0.1) ? 120 : 5 + rng.int(0, 50)));
  }
  return new Table({ id: makeVector(id), start_m: makeVector(start), end_m: makeVector(end) });
}

export async function iejoinCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const rows = Math.max(10, Math.round(30_000 * scale));
  const small = Math.max(10, Math.round(rows / 10));
  const rng = new Rng(8675309);
  const big = events(rng, rows);
  const few = events(rng, small);
  const ie = await Engine.create(caseConfig({ join: 'iejoin' }, overrides));
  const nl = await Engine.create(caseConfig({ join: 'nested-loop' }, overrides));
  const spec = toJoinSpec({ type: 'inner', range: 'start_m <= end_m', filter: 'l.end_m >= r.start_m AND l.id <> r.id', select: 'id,id_right' });
  const cases: BenchCase[] = [];
  for (const [name, table, baseline] of [
    [`iejoin events ${rows}x${rows} (overlaps)`, big, false],
    [`iejoin vs nested-loop events ${small}x${small} (overlaps)`, few, true],
  ] as const) {
    const tname = `ie_events_${table.numRows}`;
    await duck.loadTable(tname, table);
    const sql = joinToSql(spec, { table: tname, columns: ['id', 'start_m', 'end_m'] }, { table: tname, columns: ['id', 'start_m', 'end_m'] });
    cases.push({
      name,
      joinlab: async () => (await ie.join(spec, table, table)).table.numRows,
      duckdb: async () => (await duck.query(sql)).numRows,
      ...(baseline ? { baseline: { name: 'nested-loop', run: async () => (await nl.join(spec, table, table)).table.numRows } } : {}),
    });
  }
  return cases;
}
