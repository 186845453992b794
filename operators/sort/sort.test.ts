/**
 * The in-memory sort against DuckDB's ORDER BY: random tables of every logical type (keys and
 * payload, NULLs, duplicates, skew, -0.0/NaN), cut into random batches, sorted by 1-3 keys in
 * random directions and NULL placements; DuckDB sorts the same table by `…, rid`, so the row ids
 * must come out in the same order (stability) and the rows must be the same values (every column
 * gathered right). Plus the typed refusals, output batch sizes, metrics and the memory limit
 * (spilling past it: external-sort.test.ts).
 */
import { Int32, Table, Utf8, makeVector, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGICAL_TYPES, randomColumn, rebatch } from '../../adapters/datagen/random-tables.ts';
import type { ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { MemoryLimitError, MissingColumnError, UsageError } from '../../core/errors.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { Rng } from '../../core/random.ts';
import { MemoryScan } from '../memory-scan/memory-scan.ts';
import { newSortMetrics, sortScan, type SortKey } from './sort.ts';

async function sorted(table: Table, keys: readonly SortKey[], batchSize: number, pool = new MemoryPool(Infinity), signal?: AbortSignal) {
  const metrics = newSortMetrics();
  const batches = [];
  for await (const b of sortScan(new MemoryScan(table, 't'), keys, { pool, batchSize, metrics, signal })) batches.push(b);
  return { table: new Table(table.schema, batches), batches, metrics };
}

describe('sort vs DuckDB ORDER BY (random tables)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(() => duck?.close());

  it('orders rows like ORDER BY k… [ASC|DESC] NULLS [FIRST|LAST], rid and keeps every value', async () => {
    const rng = new Rng(4242);
    const seen = new Set<string>();
    for (let c = 0; c < 150; c++) {
      const n = rng.chance(0.1) ? rng.int(0, 3) : rng.int(4, 300);
      const gens: ColumnGen[] = Array.from({ length: rng.int(2, 4) }, (_, k) => ({
        name: `c${k}`,
        type: rng.pick(LOGICAL_TYPES),
        domain: rng.int(1, 30),
        nullRate: rng.pick([0, 0.1, 0.4]),
        skew: rng.pick([0, 0.6]),
      }));
      const keyCount = rng.int(1, Math.min(3, gens.length));
      const keys: SortKey[] = gens.slice(0, keyCount).map((g) => ({ column: g.name, descending: rng.chance(0.5), nullsFirst: rng.chance(0.5) }));
      const columns = Object.fromEntries(gens.map((g) => [g.name, randomColumn(rng, g, n)]));
      const table = rebatch(new Table({ ...columns, rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)) }), rng.pick([1, 7, 64, 1000]));
      const batchSize = rng.pick([1, 5, 64, 8192]);
      const got = await sorted(table, keys, batchSize);

      const orderBy = keys.map((k) => `"${k.column}" ${k.descending ? 'DESC' : 'ASC'} NULLS ${k.nullsFirst ? 'FIRST' : 'LAST'}`);
      const sql = `SELECT * FROM t ORDER BY ${[...orderBy, 'rid'].join(', ')}`;
      await duck.loadTable('t', table);
      const want = await duck.query(sql);
      const label = `case ${c}: ${gens.map((g) => `${g.name} ${g.type}`).join(', ')}; ${n} rows; ${sql}`;
      const gotRids = n === 0 ? [] : Array.from(got.table.getChild('rid')!.toArray() as Int32Array);
      const wantRids = n === 0 ? [] : Array.from(want.getChild('rid')!.toArray() as Int32Array);
      expect(gotRids.join(), label).toBe(wantRids.join());
      const cmp = compareResults(got.table, want);
      if (!cmp.equal) expect.fail(`${label}\n${formatComparison(cmp)}`);
      expect(got.batches.every((b, i) => b.numRows === (i < got.batches.length - 1 ? batchSize : n - batchSize * i)), label).toBe(true);
      expect(got.metrics.rows).toBe(n);
      for (const g of gens.slice(0, keyCount)) seen.add(g.type);
    }
    await duck.run('DROP TABLE t');
    for (const t of LOGICAL_TYPES) expect(seen, `sorted by a ${t} key`).toContain(t);
  });
});

describe('sort under a signal: the same order, in steps', () => {
  // past the paced steps' sizes (core/keys/argsort.ts ARGSORT_SLICE, runs.ts NORMALIZE_SLICE_ROWS):
  // keys normalised a group of batches at a time and argsorted in slices give the order of one call
  it('in memory and spilled, NULLs, floats and strings, uneven batches', { timeout: 60_000 }, async () => {
    const rng = new Rng(31);
    const n = 300_000;
    const k = Array.from({ length: n }, () => (rng.chance(0.1) ? null : rng.int(-50, 50)));
    const d = Float64Array.from({ length: n }, () => rng.int(0, 1000) / 7);
    const s = Array.from({ length: n }, () => (rng.chance(0.05) ? null : `s${rng.int(0, 40)}`));
    const whole = new Table({ k: vectorFromArray(k, new Int32()), d: makeVector(d), s: vectorFromArray(s, new Utf8()), rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)) });
    const table = rebatch(whole, 70_001);
    const keys: SortKey[] = [{ column: 'k', descending: true, nullsFirst: true }, { column: 'd' }, { column: 's', descending: true }];
    const rids = (t: Table) => t.getChild('rid')!.toArray() as Int32Array;
    const plain = rids((await sorted(table, keys, 8192)).table);
    const paced = rids((await sorted(table, keys, 8192, new MemoryPool(Infinity), new AbortController().signal)).table);
    expect(paced.length).toBe(n);
    expect(paced.findIndex((x, i) => x !== plain[i]), 'first row out of place (in memory)').toBe(-1);
    const spilled = await sorted(table, keys, 8192, new MemoryPool(12 << 20), new AbortController().signal);
    expect(spilled.metrics.runsSpilled).toBeGreaterThan(1);
    expect(rids(spilled.table).findIndex((x, i) => x !== plain[i]), 'first row out of place (spilled)').toBe(-1);
  });
});

describe('sort: refusals, empty input, memory', () => {
  const table = new Table({ k: vectorFromArray([3, 1, null, 2], new Int32()), v: vectorFromArray(['c', 'a', 'n', 'b']) });

  it('refuses no keys and a missing column before reading, with typed errors', async () => {
    await expect(sorted(table, [], 10)).rejects.toBeInstanceOf(UsageError);
    await expect(sorted(table, [{ column: 'nope' }], 10)).rejects.toBeInstanceOf(MissingColumnError);
  });

  it('an empty input yields no batch; the default order is ASC NULLS LAST', async () => {
    expect((await sorted(new Table({ k: vectorFromArray([], new Int32()) }), [{ column: 'k' }], 10)).batches).toEqual([]);
    const out = await sorted(table, [{ column: 'k' }], 3);
    expect(out.table.getChild('v')!.toArray()).toEqual(['a', 'b', 'c', 'n']);
    expect(out.batches.map((b) => b.numRows)).toEqual([3, 1]);
    expect(out.metrics).toMatchObject({ rows: 4, outputBatches: 2, runsSpilled: 0, bytesSpilled: 0 });
    expect(out.metrics.peakReservedBytes).toBeGreaterThan(0);
  });

  it('a row over memoryLimit fails with a MemoryLimitError naming the sort, and frees what it reserved', async () => {
    const wide = new Table({ k: vectorFromArray([2, 1, 3], new Int32()), s: vectorFromArray(['a', 'b', 'y'.repeat(100_000)], new Utf8()) });
    const pool = new MemoryPool(64 * 1024);
    await expect(sorted(wide, [{ column: 'k' }], 1000, pool)).rejects.toThrow(MemoryLimitError);
    await expect(sorted(wide, [{ column: 'k' }], 1000, pool)).rejects.toThrow(/sort input/);
    expect(pool.reserved).toBe(0);
  });
});
