/**
 * `bloom` suite: the split-block Bloom filter as a probe-side test, and Parquet Bloom-filter
 * pruning end to end.
 *
 * 1. Test throughput. Build: 1M unique int64 keys (multiples of 10); probe: 10M int64 keys uniform
 *    in [0, 20M) (5% members), hashed once up front with the join's seed, in batches of 8192 —
 *    the shape the composer hands a KeyFilter. joinlab: `SplitBlockBloomFilter.testHashes` over
 *    every batch (filter sized for 1% false positives: 2 MiB); baseline: the swiss table's own
 *    salt test (`mayContain`: its group words alone, no slot read) over the same hashes. DuckDB
 *    (at joinlab's thread count) runs the same membership question as a semi-join count on the same keys — a
 *    reference for what a whole probe costs there, not a like-for-like filter test. Facts: ns per
 *    probe row of each, and each one's measured pass rate (members + false positives).
 * 2. The unsorted-probe Parquet join: the experiment generator `unsorted` (10M rows, 977 row
 *    groups of 10240, every row group's min/max spanning the key range, its own keys
 *    `k mod G = g`, Bloom filters written by DuckDB) joined to 20 build keys; joinlab with
 *    `pushdown=inlist` and Parquet Bloom pruning on (`pushdown.parquetBloom`) vs off, DuckDB
 *    (at joinlab's thread count) on the same files. Notes: row groups pruned (by Bloom) and bytes read.
 * `--scale` scales both.
 */
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import { TABLE_SEED } from '../../core/keys/partition.ts';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import type { KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { SplitBlockBloomFilter } from '../../strategies/pushdown/bloom.ts';
import { buildSwissTable } from '../../strategies/hashmap/swiss.ts';
import { int64Data, int64Values, tableOf, uniformInts } from '../../adapters/datagen/keys.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { generateData } from '../../apps/experiments/generators.ts';
import { GENERATOR_PARAMS, type GeneratedDataSpec } from '../../apps/experiments/schema.ts';
import { caseConfig, type BenchCase, type SuiteOverrides } from '../harness.ts';

const BATCH = 8192;
const BIGINT: KeyKind = { order: 'int', width: 2, sqlType: 'BIGINT' };

interface ProbeBatch {
  readonly keys: readonly KeyColumn[];
  readonly hashes: Uint32Array;
  readonly rows: number;
}

function keyColumnsOf(t: Table): KeyColumn[] {
  return t.batches.map((b) => normalizeKeyColumn(b.getChild('k')!, BIGINT, 'k'));
}

export async function throughputCase(duck: DuckDBSession, scale: number): Promise<BenchCase> {
  const buildRows = Math.round(1_000_000 * scale);
  const probeRows = Math.round(10_000_000 * scale);
  const build = tableOf({ k: int64Data(int64Values(buildRows, (i) => i * 10)) }, buildRows);
  const probeKeys = uniformInts(probeRows, buildRows * 20, 7);
  const probe = tableOf({ k: int64Data(int64Values(probeRows, (i) => probeKeys[i]!)) }, BATCH);
  await duck.loadTable('bloom_build', build);
  await duck.loadTable('bloom_probe', probe);

  const buildKeys = keyColumnsOf(build);
  const buildHashes = hashKeys(buildKeys, TABLE_SEED);
  const bloom = SplitBlockBloomFilter.forKeys(buildRows, 0.01);
  bloom.insertHashes(buildHashes, buildRows);
  const swiss = buildSwissTable({ keys: buildKeys, hashes: buildHashes, rows: buildRows, nullEqualsNull: false });
  const batches: ProbeBatch[] = keyColumnsOf(probe).map((c) => ({ keys: [c], hashes: hashKeys([c], TABLE_SEED), rows: c.length }));
  const keep = new Uint8Array(BATCH);
  const passed = (n: number): number => {
    let p = 0;
    for (let r = 0; r < n; r++) p += keep[r]!;
    return p;
  };
  let bloomMs = 0;
  let swissMs = 0;
  let bloomPass = 0;
  let swissPass = 0;
  return {
    name: `Bloom test of ${probeRows / 1e6}M probe hashes, ${buildRows / 1e6}M keys in ${bloom.bytes >> 20} MiB (baseline: swiss salt test)`,
    joinlab: async () => {
      const t = performance.now();
      let p = 0;
      for (const b of batches) {
        keep.fill(1, 0, b.rows);
        bloom.testHashes(b.hashes, null, keep);
        p += passed(b.rows);
      }
      bloomMs = performance.now() - t;
      bloomPass = p;
      return p;
    },
    baseline: {
      name: 'swiss salts',
      run: async () => {
        const t = performance.now();
        let p = 0;
        for (const b of batches) {
          swiss.mayContain(b, keep, null);
          p += passed(b.rows);
        }
        swissMs = performance.now() - t;
        swissPass = p;
        return p;
      },
    },
    duckdb: async () => Number((await duck.queryRows('SELECT count(*) FROM bloom_probe p WHERE p.k IN (SELECT k FROM bloom_build)'))[0]![0]),
    facts: () => ({
      bloomNsPerRow: Math.round((1e7 * bloomMs) / probeRows) / 10,
      swissSaltNsPerRow: Math.round((1e7 * swissMs) / probeRows) / 10,
      bloomPassRate: Math.round((1e4 * bloomPass) / probeRows) / 1e4,
      swissSaltPassRate: Math.round((1e4 * swissPass) / probeRows) / 1e4,
    }),
  };
}

async function parquetCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides): Promise<BenchCase[]> {
  const spec = {
    kind: 'generator',
    generator: 'unsorted',
    params: GENERATOR_PARAMS.unsorted.parse({ probeRows: Math.round(10_000_000 * scale), distinctPerRowGroup: 1000, buildKeys: 20 }),
    seed: 1,
    rowGroupSize: 10240,
  } as GeneratedDataSpec;
  const files = await generateData(duck, spec);
  const sql = `SELECT count(*) FROM read_parquet('${files.left.path}') p JOIN read_parquet('${files.right.path}') b ON p.k = b.k`;
  const cases: BenchCase[] = [];
  for (const bloomPruning of [true, false]) {
    const engine = await Engine.create(caseConfig({ join: 'hash', pushdown: 'inlist', 'hash.build': 'right', 'pushdown.parquetBloom': bloomPruning }, overrides));
    let note = '';
    cases.push({
      name: `unsorted-probe parquet join ${files.left.rows / 1e6}M rows x ${files.right.rows} keys, pushdown=inlist, Bloom pruning ${bloomPruning ? 'on' : 'off'}`,
      joinlab: async () => {
        const { table, metrics } = await engine.join({ type: 'inner', on: 'k=k' }, files.left.path, files.right.path);
        const s = metrics.scans.left;
        note =
          `probe row groups pruned ${s.containersPruned}/${s.containersTotal} (by Bloom ${s.containersPrunedByBloom}), ` +
          `rows decoded ${s.rowsDecoded}, bytes read ${(s.bytesRead / 2 ** 20).toFixed(1)} MiB (Bloom filters ${(s.bloomBytesRead / 2 ** 10).toFixed(0)} KiB)`;
        return table.numRows;
      },
      duckdb: async () => Number((await duck.queryRows(sql))[0]![0]),
      notes: () => note,
    });
  }
  return cases;
}

export async function bloomCases(duck: DuckDBSession, scale: number, overrides: SuiteOverrides = {}): Promise<BenchCase[]> {
  return [await throughputCase(duck, scale), ...(await parquetCases(duck, scale, overrides))];
}
