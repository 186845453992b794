import { Int32, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { MemoryPool } from '../../core/memory/pool.ts';
import { MemoryScan } from '../memory-scan/memory-scan.ts';
import { collectKeys } from './transfer-filter.ts';

/** `n` rows in batches of 100: k (97 values) and a 200-character string. */
function wideTable(n: number): Table {
  const one = (start: number, rows: number) =>
    new Table({
      k: vectorFromArray(Array.from({ length: rows }, (_, i) => (start + i) % 97), new Int32()),
      wide: vectorFromArray(Array.from({ length: rows }, (_, i) => `${start + i}`.padStart(200, 'x')), new Utf8()),
    }).batches[0]!;
  const batches = [];
  for (let s = 0; s < n; s += 100) batches.push(one(s, Math.min(100, n - s)));
  return new Table(batches);
}

describe('collectKeys', () => {
  it('holds every column asked for while they fit, and says so', async () => {
    const pool = new MemoryPool(Infinity);
    const keys = await collectKeys(new MemoryScan(wideTable(1000), 't'), ['k', 'wide'], ['k'], pool.reservation('t'));
    expect(keys.complete).toBe(true);
    expect(keys.rows).toBe(1000);
    expect(keys.batches[0]!.schema.fields.map((f) => f.name)).toEqual(['k', 'wide']);
  });
  it('past its budget (or what the pool grants) keeps only the key columns and reads on', async () => {
    for (const [limit, budget] of [
      [Infinity, 20_000],
      [60_000, Infinity],
    ] as const) {
      const pool = new MemoryPool(limit);
      const held = pool.reservation('t');
      const keys = await collectKeys(new MemoryScan(wideTable(1000), 't'), ['k', 'wide'], ['k'], held, budget);
      expect(keys.complete).toBe(false);
      expect(keys.rows).toBe(1000);
      for (const b of keys.batches) expect(b.schema.fields.map((f) => f.name)).toEqual(['k']);
      expect(held.size).toBeLessThan(20_000);
    }
  });
  it('a read of key columns only is always complete', async () => {
    const keys = await collectKeys(new MemoryScan(wideTable(10), 't'), ['k'], ['k'], new MemoryPool(Infinity).reservation('t'));
    expect(keys.complete).toBe(true);
  });
});
