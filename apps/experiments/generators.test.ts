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
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { ParquetScan } from '../../adapters/io/parquet-scan.ts';
import { readParquetFile } from '../../adapters/io/parquet.ts';
import { generateData, generateTables, generatorOrder } from './generators.ts';
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

describe('the starschema generator', () => {
  it('writes four tables in their declared order, the fact keys clustered so each dimension filter prunes row groups', async () => {
    const s = spec('starschema', { factRows: 40_960, customers: 1000, products: 200, customerRunRows: 4096, productRunRows: 2048 });
    const g = await generateTables(duck, s, { root });
    expect(Object.keys(g.tables)).toEqual(['fact', 'date_dim', 'customer', 'product']);
    expect(Object.values(g.tables).map((t) => t.rows)).toEqual([40_960, 1096, 1000, 200]);
    const claims: Record<string, string> = { fact: 'date_key', date_dim: 'date_key', customer: 'customer_key', product: 'product_key' };
    for (const [name, column] of Object.entries(claims)) {
      const scan = await ParquetScan.open(g.tables[name]!.path);
      expect(scan.sortedOn, name).toEqual([{ column, descending: false, nullsFirst: false }]);
    }
    await expect(generateData(duck, s, { root })).rejects.toThrow(/writes the tables fact, date_dim, customer, product, not left and right/);
    const fact = g.tables.fact!.path;
    const [range] = await duck.queryRows(`SELECT min(date_key), max(date_key), count(DISTINCT date_key) FROM '${fact}'`);
    expect(range!.map(Number)).toEqual([20240101, 20241231, 366]);
    // every row group's customer (product) keys lie in one quarter of the keys, or two neighbouring ones
    const stats = await duck.queryRows(
      `SELECT path_in_schema, stats_min_value::INTEGER, stats_max_value::INTEGER FROM parquet_metadata('${fact}') WHERE path_in_schema IN ('customer_key', 'product_key')`,
    );
    expect(stats.length).toBe(2 * 20);
    const quarters = new Set<string>();
    for (const [col, min, max] of stats) {
      const n = col === 'customer_key' ? 1000 : 200;
      const [lo, hi] = [Math.floor((4 * Number(min)) / n), Math.floor((4 * Number(max)) / n)];
      expect(hi - lo, `${col} ${min}..${max}`).toBeLessThanOrEqual(1);
      if (hi === lo) quarters.add(`${col} ${lo}`);
    }
    expect(quarters.size).toBe(8); // all four quarters of both keys occur alone in some row group
    const [regions] = await duck.queryRows(`SELECT count(DISTINCT region), min(customer_key) FILTER (region = 'region-07'), count(*) FILTER (region = 'region-07') FROM '${g.tables.customer!.path}'`);
    expect(regions!.map(Number)).toEqual([20, 350, 50]);
  });
});

describe('the h2o generator', () => {
  it("follows join-datagen.R: key sets 0.9/0.1/0.1, every key of a set sampled, the right tables' last key unique", async () => {
    const N = 2_000_000; // the smallest size whose small table has more than one key set member (n = 2)
    const g = await generateTables(duck, spec('h2o', { rows: N }), { root });
    expect(Object.keys(g.tables)).toEqual(['x', 'small', 'medium', 'big']);
    expect(Object.values(g.tables).map((t) => t.rows)).toEqual([N, 2, 2000, N]);
    const q = async (sql: string) => (await duck.queryRows(sql))[0]!.map(Number);
    const f = (t: string) => `'${g.tables[t]!.path}'`;
    // x: every left key of each level occurs (n, n/1e3·…, N distinct); the string ids mirror the ints
    expect(await q(`SELECT count(DISTINCT id1), count(DISTINCT id2), count(DISTINCT id3), count(*) FILTER (id4 <> 'id' || id1 OR id6 <> 'id' || id3) FROM ${f('x')}`)).toEqual([2, 2000, N, 0]);
    // the right tables: the last id column unique, so each x row matches at most one row
    expect(await q(`SELECT count(DISTINCT id1) FROM ${f('small')}`)).toEqual([2]);
    expect(await q(`SELECT count(DISTINCT id2), count(DISTINCT id1) FROM ${f('medium')}`)).toEqual([2000, 2]);
    expect(await q(`SELECT count(DISTINCT id3), count(DISTINCT id2), count(DISTINCT id1) FROM ${f('big')}`)).toEqual([N, 2000, 2]);
    // 90% of the keys are common: the inner joins keep 0.9 of x (exactly, for the unique keys of big)
    expect(await q(`SELECT count(*) FROM ${f('x')} x JOIN ${f('big')} b USING (id3)`)).toEqual([0.9 * N]);
    const [medium] = await q(`SELECT count(*) FROM ${f('x')} x JOIN ${f('medium')} m USING (id2)`);
    expect(Math.abs(medium! / N - 0.9)).toBeLessThan(0.01);
    // the measures: uniform in [0, 100) with 6 decimals
    const [lo, hi, mean] = await q(`SELECT min(v1), max(v1), avg(v1) FROM ${f('x')}`);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(100);
    expect(Math.abs(mean! - 50)).toBeLessThan(0.5);
    // the same spec twice: the same files (hash-seeded, whatever DuckDB's thread count)
    const again = await generateTables(duck, spec('h2o', { rows: N }), { root });
    expect(again.cached).toBe(true);
  });
});
