/**
 * Top-k against the full sort and DuckDB: random tables of every logical type (NULLs, duplicates
 * — many ties —, skew, -0.0 / NaN), cut into random batches, 1-3 keys in random directions and
 * NULL placements, random k (0 past the row count) and offset. The rows must be exactly the
 * stable full sort's rows [offset, k) — the same row ids in the same order, so ties keep the input
 * order — and DuckDB's `ORDER BY …, rid LIMIT k - offset OFFSET offset`. Plus the bounded memory
 * (the pool never holds the input) and the degenerate cases.
 */
import { Int32, Table, makeVector, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGICAL_TYPES, randomColumn, rebatch } from '../../adapters/datagen/random-tables.ts';
import type { ColumnGen } from '../../adapters/datagen/random-tables.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { MissingColumnError, UsageError } from '../../core/errors.ts';
import { MemoryPool } from '../../core/memory/pool.ts';
import { Rng } from '../../core/random.ts';
import { MemoryScan } from '../memory-scan/memory-scan.ts';
import { sortScan, type SortKey } from './sort.ts';
import { topK } from './top-k.ts';

async function collect(gen: AsyncIterable<import('apache-arrow').RecordBatch>): Promise<import('apache-arrow').RecordBatch[]> {
  const out = [];
  for await (const b of gen) out.push(b);
  return out;
}

function rids(batches: readonly import('apache-arrow').RecordBatch[]): number[] {
  return batches.flatMap((b) => Array.from(b.getChild('rid')!.toArray() as Int32Array));
}

const input = (table: Table) => ({ schema: table.schema, batches: new MemoryScan(table, 't').batches() });

describe('top-k vs the full sort and DuckDB (random tables)', () => {
  let duck: DuckDBSession;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
  });
  afterAll(() => duck?.close());

  it('keeps exactly the stable sort rows [offset, k), ties in input order', async () => {
    const rng = new Rng(7331);
    for (let c = 0; c < 150; c++) {
      const n = rng.chance(0.1) ? rng.int(0, 3) : rng.int(4, 400);
      const gens: ColumnGen[] = Array.from({ length: rng.int(1, 3) }, (_, k) => ({
        name: `c${k}`,
        type: rng.pick(LOGICAL_TYPES),
        domain: rng.int(1, 12),
        nullRate: rng.pick([0, 0.1, 0.4]),
        skew: rng.pick([0, 0.6]),
      }));
      const keyCount = rng.int(1, gens.length);
      const keys: SortKey[] = gens.slice(0, keyCount).map((g) => ({ column: g.name, descending: rng.chance(0.5), nullsFirst: rng.chance(0.5) }));
      const columns = Object.fromEntries(gens.map((g) => [g.name, randomColumn(rng, g, n)]));
      const table = rebatch(new Table({ ...columns, rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)) }), rng.pick([1, 7, 64, 1000]));
      const k = rng.int(0, n + 3);
      const offset = rng.chance(0.3) ? rng.int(0, k) : 0;
      const batchSize = rng.pick([1, 5, 64, 8192]);
      const pool = new MemoryPool(Infinity);
      const got = await collect(topK(input(table), keys, k, { pool, batchSize, offset }));
      const full = rids(await collect(sortScan(new MemoryScan(table, 't'), keys, { pool: new MemoryPool(Infinity), batchSize: 8192 })));
      const label = `case ${c}: ${gens.map((g) => `${g.name} ${g.type}`).join(', ')}; ${n} rows; k ${k} offset ${offset}; keys ${JSON.stringify(keys)}`;
      expect(rids(got), label).toEqual(full.slice(offset, k));
      expect(got.every((b) => b.numRows > 0 && b.numRows <= batchSize), label).toBe(true);
      expect(pool.reserved, label).toBe(0);
      if (c % 5 === 0) {
        const orderBy = keys.map((key) => `"${key.column}" ${key.descending ? 'DESC' : 'ASC'} NULLS ${key.nullsFirst ? 'FIRST' : 'LAST'}`);
        await duck.loadTable('t', table);
        const want = await duck.query(`SELECT rid FROM t ORDER BY ${[...orderBy, 'rid'].join(', ')} LIMIT ${k - offset} OFFSET ${offset}`);
        expect(rids(got), `${label} (DuckDB)`).toEqual(want.numRows === 0 ? [] : Array.from(want.getChild('rid')!.toArray() as Int32Array));
      }
    }
  });
});

describe('top-k: memory and degenerate cases', () => {
  it('holds about k rows and a batch, not the input', async () => {
    const n = 1_000_003; // a prime: i * 7919 % n is a permutation of 0..n-1
    const table = rebatch(new Table({ k: makeVector(Int32Array.from({ length: n }, (_, i) => (i * 7919) % n)), rid: makeVector(Int32Array.from({ length: n }, (_, i) => i)) }), 4096);
    const pool = new MemoryPool(Infinity);
    const got = await collect(topK(input(table), [{ column: 'k', descending: true }], 10, { pool, batchSize: 1024 }));
    expect(got.flatMap((b) => Array.from(b.getChild('k')!.toArray() as Int32Array))).toEqual(Array.from({ length: 10 }, (_, i) => n - 1 - i));
    expect(pool.peak).toBeLessThan(n); // the input is 8 bytes a row: the pool held under an eighth of it
  });

  it('k = 0 reads nothing; an empty input yields nothing; keys are checked first', async () => {
    const table = new Table({ k: vectorFromArray([3, 1, null, 2], new Int32()) });
    let read = false;
    const never = { schema: table.schema, batches: (async function* () { read = true; yield* table.batches; })() };
    expect(await collect(topK(never, [{ column: 'k' }], 0, { pool: new MemoryPool(Infinity), batchSize: 4 }))).toEqual([]);
    expect(read).toBe(false);
    expect(await collect(topK(input(new Table({ k: vectorFromArray([], new Int32()) })), [{ column: 'k' }], 3, { pool: new MemoryPool(Infinity), batchSize: 4 }))).toEqual([]);
    await expect(collect(topK(input(table), [], 3, { pool: new MemoryPool(Infinity), batchSize: 4 }))).rejects.toBeInstanceOf(UsageError);
    await expect(collect(topK(input(table), [{ column: 'x' }], 3, { pool: new MemoryPool(Infinity), batchSize: 4 }))).rejects.toBeInstanceOf(MissingColumnError);
    const out = await collect(topK(input(table), [{ column: 'k', nullsFirst: true }], 3, { pool: new MemoryPool(Infinity), batchSize: 2 }));
    expect(out.flatMap((b) => [...b.getChild('k')!])).toEqual([null, 1, 2]);
  });
});
