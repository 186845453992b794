/**
 * `hash-join` suite: the hash join against DuckDB (at joinlab's thread count, `--threads`) on the same in-memory data.
 *
 * Build: 1M unique int64 keys (multiples of 10) with a float payload `bv`; probe: 10M int64 keys
 * uniform in [0, 20M) (about 5% match). Cases: inner join count + sum(bv), left semi and left anti
 * counts (the probe side is `left`), with and without pushdown, and a string-key twin (`key-<n>`).
 * `--scale` shrinks or grows both sides.
 *
 * joinlab's tables are put in shared memory once, at setup (`shareTable`, what `readTable` does for
 * files): at `--threads` > 1 the workers then read the probe side where it is, as DuckDB's threads
 * read its tables, instead of the calling thread copying every morsel to them (it makes no
 * difference at one thread).
 *
 * Both sides compute the same thing: DuckDB's `count(*), sum(b.bv)` reads only `bv` of the join
 * output, so joinlab's inner cases `select` only `bv` too (the join still materialises it for every
 * output row, and the fold below sums it); semi/anti output the probe side's single column.
 */
import { Engine } from '../../composition.ts';
import type { JoinSpecInput } from '../../core/spec.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';
import { float64Data, int64Data, int64Values, tableOf, uniformInts, utf8Digits } from '../../adapters/datagen/keys.ts';
import type { Table } from 'apache-arrow';
import { shareTable } from '../../core/parallel/wire.ts';

const BATCH_ROWS = 65_536;

export function hashJoinData(scale: number) {
  const buildRows = Math.round(1_000_000 * scale);
  const probeRows = Math.round(10_000_000 * scale);
  const buildKeys = new Float64Array(buildRows);
  for (let i = 0; i < buildRows; i++) buildKeys[i] = i * 10;
  const probeKeys = uniformInts(probeRows, buildRows * 20, 7);
  const payload = new Float64Array(buildRows);
  for (let i = 0; i < buildRows; i++) payload[i] = (i % 1000) / 10;
  const build = tableOf({ k: int64Data(int64Values(buildRows, (i) => buildKeys[i]!)), bv: float64Data(payload) }, BATCH_ROWS);
  const probe = tableOf({ k: int64Data(int64Values(probeRows, (i) => probeKeys[i]!)) }, BATCH_ROWS);
  const buildS = tableOf({ sk: utf8Digits(buildKeys), bv: float64Data(payload) }, BATCH_ROWS);
  const probeS = tableOf({ sk: utf8Digits(probeKeys) }, BATCH_ROWS);
  return { build, probe, buildS, probeS, buildRows, probeRows };
}

/**
 * Runs the join and folds the output like the DuckDB query does: the row count, and the sum of
 * the build payload `bv` when the output has it (kept in `lastSum` so the fold is not dead code).
 */
export let lastSum = 0;
async function countAndSum(engine: Engine, spec: JoinSpecInput, left: Table, right: Table): Promise<number> {
  const { batches } = await engine.stream(spec, left, right);
  let rows = 0;
  let sum = 0;
  for await (const b of batches) {
    rows += b.numRows;
    const bv = b.getChild('bv');
    if (bv) {
      for (const d of bv.data) {
        const v = d.values as Float64Array;
        for (let i = 0; i < d.length; i++) sum += v[i]!;
      }
    }
  }
  lastSum = sum;
  return rows;
}

export async function hashJoinCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  const data = hashJoinData(scale);
  await duck.loadTable('hj_build', data.build);
  await duck.loadTable('hj_probe', data.probe);
  await duck.loadTable('hj_build_s', data.buildS);
  await duck.loadTable('hj_probe_s', data.probeS);
  const d = { ...data, build: shareTable(data.build), probe: shareTable(data.probe), buildS: shareTable(data.buildS), probeS: shareTable(data.probeS) };
  const auto = await Engine.create(caseConfig({ join: 'hash', pushdown: 'auto' }, overrides));
  const none = await Engine.create(caseConfig({ join: 'hash', pushdown: 'none' }, overrides));
  const count = async (sql: string) => Number((await duck.queryRows(sql))[0]![0]);
  const m = `${d.buildRows / 1e6}M build x ${d.probeRows / 1e6}M probe`;
  return [
    {
      name: `inner int64 count+sum, pushdown=auto (${m})`,
      joinlab: () => countAndSum(auto, { type: 'inner', on: 'k=k', select: 'bv' }, d.probe, d.build),
      duckdb: () => count('SELECT count(*), sum(b.bv) FROM hj_probe p JOIN hj_build b ON p.k = b.k'),
    },
    {
      name: `inner int64 count+sum, pushdown=none (${m})`,
      joinlab: () => countAndSum(none, { type: 'inner', on: 'k=k', select: 'bv' }, d.probe, d.build),
      duckdb: () => count('SELECT count(*), sum(b.bv) FROM hj_probe p JOIN hj_build b ON p.k = b.k'),
    },
    {
      name: `left-semi int64 count (${m})`,
      joinlab: () => countAndSum(auto, { type: 'left-semi', on: 'k=k' }, d.probe, d.build),
      duckdb: () => count('SELECT count(*) FROM hj_probe p WHERE EXISTS (SELECT 1 FROM hj_build b WHERE b.k = p.k)'),
    },
    {
      name: `left-anti int64 count (${m})`,
      joinlab: () => countAndSum(auto, { type: 'left-anti', on: 'k=k' }, d.probe, d.build),
      duckdb: () => count('SELECT count(*) FROM hj_probe p WHERE NOT EXISTS (SELECT 1 FROM hj_build b WHERE b.k = p.k)'),
    },
    {
      name: `inner utf8 count+sum (${m})`,
      joinlab: () => countAndSum(auto, { type: 'inner', on: 'sk=sk', select: 'bv' }, d.probeS, d.buildS),
      duckdb: () => count('SELECT count(*), sum(b.bv) FROM hj_probe_s p JOIN hj_build_s b ON p.sk = b.sk'),
    },
  ];
}
