/**
 * readIfSmall: a relation's rows held as a table when they are few; otherwise the same rows,
 * once, in order — the batches read so far replayed, then the rest of the same stream — and a
 * second read running the scan again. The pool holds nothing once the replay is read, and a pool
 * that refuses the rows makes it replay rather than fail.
 */
import { Int32, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MemoryPool } from '../../core/memory/pool.ts';
import { rebatch } from '../datagen/random-tables.ts';
import { MemoryScan } from '../../operators/memory-scan/memory-scan.ts';
import { scanRelation } from './relation.ts';
import { readIfSmall } from './small-relation.ts';

const table = rebatch(new Table({ k: vectorFromArray(Array.from({ length: 20 }, (_, i) => i), new Int32()), s: vectorFromArray(Array.from({ length: 20 }, (_, i) => `r${i}`), new Utf8()) }), 3);
const relation = () => scanRelation(new MemoryScan(table, 't'), 't');

async function rows(batches: AsyncIterable<RecordBatch>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const b of batches) out.push(...b.toArray().map((r) => JSON.stringify(r.toJSON())));
  return out;
}

const all = table.toArray().map((r) => JSON.stringify(r.toJSON()));

describe('readIfSmall', () => {
  it('few rows: a table of them', async () => {
    const pool = new MemoryPool(Infinity);
    const got = await readIfSmall(relation(), 20, pool);
    expect(got.table?.numRows).toBe(20);
    expect(await rows(got.relation.input.batches())).toEqual(all);
    expect(got.relation.columns.every((c) => c.route === null)).toBe(true);
    expect(pool.reserved).toBeGreaterThan(0);
  });

  it('many rows: the same rows replayed once, in order, projected on request; a second read runs the scan again', async () => {
    for (const [maxRows, pool] of [
      [5, new MemoryPool(Infinity)],
      [1000, new MemoryPool(64)],
    ] as const) {
      const got = await readIfSmall(relation(), maxRows, pool);
      expect(got.table).toBeNull();
      expect(await rows(got.relation.input.batches())).toEqual(all);
      expect(pool.reserved).toBe(0);
      expect(await rows(got.relation.input.batches({ columns: ['s'] }))).toEqual(table.toArray().map((r) => JSON.stringify({ s: r.s })));
    }
    const replay = (await readIfSmall(relation(), 5, new MemoryPool(Infinity))).relation.input;
    expect(await rows(replay.batches({ columns: ['k'] }))).toEqual(table.toArray().map((r) => JSON.stringify({ k: r.k })));
  });
});
