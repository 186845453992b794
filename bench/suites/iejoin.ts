/**
 * `iejoin` suite (issue 32): the IEJoin (`join=iejoin`) on the shape of DuckDB's own IEJoin
 * benchmark `benchmark/micro/join/iejoin_events.benchmark` (v1.5.5, from Khayyat et al.'s Q2):
 * a self-join of events that collects the pairs of overlapping ones,
 *
 *   SELECT … FROM events r, events s WHERE r.start <= s.end AND r.end >= s.start AND r.id <> s.id
 *
 * 30 000 events x scale, starting on a random minute of 40 years, lasting 5–55 minutes, one in ten
 * extended to 120 minutes (DuckDB's generator, in minutes as BIGINT instead of TIMESTAMPs). Cases
 * (sizes x `--scale`):
 * - 30 000 events: the IEJoin against DuckDB (the nested-loop join would test 9e8 pairs there),
 *   both materialising the pairs;
 * - 3 000 events: the IEJoin against the nested-loop join as its baseline (`speedup`);
 * - issue 32's size, 1 000 000 x 1 000 000, on two shapes, both sides counting the pairs (as
 *   DuckDB's benchmarks do: `SELECT count(*) FROM (…)`; joinlab streams its output and counts the
 *   batches' rows, building no table): the events above (~4M pairs), and DuckDB's
 *   `iejoin_threading.benchmark` (interval i = [i, i + 1), `l.b < r.e AND l.e > r.b`: each
 *   interval overlaps only itself, 1M pairs). Three timed runs a side (a second or more each).
 * DuckDB answers with its own IEJoin (two inequalities, no equality, inputs over
 * `merge_join_threshold`: its EXPLAIN says IE_JOIN).
 */
import { makeVector, Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { Rng } from '../../core/random.ts';
import { toJoinSpec } from '../../core/spec.ts';
import type { JoinSpec } from '../../core/types.ts';
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

/** DuckDB's `iejoin_threading` table: interval i is [i, i + 1) seconds, so each overlaps itself only. */
function intervals(n: number): Table {
  const k = new BigInt64Array(n);
  const b = new BigInt64Array(n);
  const e = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    k[i] = BigInt(i);
    b[i] = BigInt(i);
    e[i] = BigInt(i + 1);
  }
  return new Table({ k: makeVector(k), b: makeVector(b), e: makeVector(e) });
}

/** Output rows of a joinlab join, streamed and counted (no output table is built, as DuckDB's count(*) builds none). */
async function countRows(engine: Engine, spec: JoinSpec, left: Table, right: Table): Promise<number> {
  const s = await engine.stream(spec, left, right);
  let n = 0;
  for await (const b of s.batches) n += b.numRows;
  return n;
}

/** A heavy case (a second or more a run): fewer timed runs, no untimed round before the suite. */
const LARGE = { timed: 3, warmup: 1 } as const;

export async function iejoinCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const rows = Math.max(10, Math.round(30_000 * scale));
  const small = Math.max(10, Math.round(rows / 10));
  const large = Math.max(10, Math.round(1_000_000 * scale));
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
  // issue 32's size, 1M x 1M at scale 1, on two of DuckDB's shapes; both sides count the pairs
  const ivSpec = toJoinSpec({ type: 'inner', range: 'b < e', filter: 'l.e > r.b', select: 'k,k_right' });
  for (const [name, table, s, columns] of [
    [`iejoin events ${large}x${large} (overlaps, counted)`, events(new Rng(8675309), large), spec, ['id', 'start_m', 'end_m']],
    [`iejoin intervals ${large}x${large} (100% selective, counted)`, intervals(large), ivSpec, ['k', 'b', 'e']],
  ] as const) {
    const tname = `ie_large_${s === spec ? 'events' : 'intervals'}_${table.numRows}`;
    await duck.loadTable(tname, table);
    const sql = `SELECT count(*) FROM (${joinToSql(s, { table: tname, columns }, { table: tname, columns })})`;
    cases.push({
      name,
      joinlab: async () => countRows(ie, s, table, table),
      duckdb: async () => Number((await duck.queryRows(sql))[0]![0]),
      iterations: LARGE,
    });
  }
  return cases;
}
