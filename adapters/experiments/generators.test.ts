/**
 * The generated data sets declare the order their ORDER BY writes them in, and a ParquetScan of
 * each file claims what the statistics prove of it — the declaration checked here against the
 * rows themselves (small sizes, several row groups).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSorted } from '../../core/keys/order.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import { DuckDBSession } from '../duckdb/session.ts';
import { ParquetScan } from '../io/parquet-scan.ts';
import { readParquetFile } from '../io/parquet.ts';
import { generateData, generatorOrder } from './generators.ts';
import { GENERATOR_PARAMS, type GeneratedDataSpec, type GeneratorName } from './schema.ts';

let root: string;
let duck: DuckDBSession;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'joinlab-gen-'));
  duck = await DuckDBSession.open({ threads: 2 });
});
afterAll(async () => {
  duck.close();
  await rm(root, { recursive: true, force: true });
});

function spec<G extends GeneratorName>(generator: G, params: Record<string, unknown>): GeneratedDataSpec {
  return { kind: 'generator', generator, params: GENERATOR_PARAMS[generator].parse(params), seed: 7, rowGroupSize: 2048 } as GeneratedDataSpec;
}

describe('generated data declares its order', () => {
  const cases: [string, GeneratedDataSpec][] = [
    ['star', spec('star', { orders: 10_000, customers: 2000 })],
    ['sparse', spec('sparse', { probeRows: 10_000, period: 100, islandWidth: 10 })],
    ['skewed', spec('skewed', { probeRows: 5000, buildRows: 1000 })],
    ['unsorted', spec('unsorted', { probeRows: 10_000, distinctPerRowGroup: 50, buildKeys: 5 })],
    ['range sorted', spec('range', { leftRows: 5000, rightRows: 3000, sorted: true })],
  ];
  for (const [name, s] of cases) {
    it(name, async () => {
      const files = await generateData(duck, s, { root });
      const order = generatorOrder(s);
      for (const side of ['left', 'right'] as const) {
        const scan = await ParquetScan.open(files[side].path);
        const want = order[side].map((c) => ({ column: c.column, descending: false, nullsFirst: false }));
        // the claim is what the row groups' statistics prove of the declaration: star's order_id
        // restarts with each customer_id, so its bounds overlap across row groups
        const claimed = name === 'star' && side === 'left' ? want.slice(0, 1) : want;
        expect(scan.sortedOn ?? [], `${name} ${side}`).toEqual(claimed);
        if (want.length === 0) continue;
        expect(scan.numContainers, `${name} ${side}: several row groups`).toBeGreaterThan(side === 'left' ? 1 : 0);
        const t = await readParquetFile(files[side].path);
        const keys = want.map((c) => normalizeKeyColumn(t.getChild(c.column)!, keyKindOf(t.schema.fields.find((f) => f.name === c.column)!.type, c.column)));
        expect(isSorted(keys, want), `${name} ${side}: rows in the declared order`).toBe(true);
      }
    });
  }
});

describe('the unsorted generator', () => {
  it('defeats min/max (every row group spans the key range) and gives each row group its own keys, with Bloom filters', async () => {
    const s = spec('unsorted', { probeRows: 20_000, distinctPerRowGroup: 100, buildKeys: 5 });
    const files = await generateData(duck, s, { root });
    const groups = Math.ceil(20_000 / 2048);
    const meta = await duck.queryRows(
      `SELECT row_group_id, stats_min_value::BIGINT, stats_max_value::BIGINT, bloom_filter_offset IS NOT NULL FROM parquet_metadata('${files.left.path}') WHERE path_in_schema = 'k' ORDER BY row_group_id`,
    );
    expect(meta.length).toBe(groups);
    const span = 100 * groups;
    for (const [, min, max, bloom] of meta) {
      expect(Number(max) - Number(min)).toBeGreaterThan(0.9 * span);
      expect(bloom).toBe(true);
    }
    const residues = await duck.queryRows(`SELECT count(*) FROM (SELECT i // 2048 AS g, k FROM '${files.left.path}') WHERE k % ${groups} <> g`);
    expect(Number(residues[0]![0])).toBe(0);
  });
});
