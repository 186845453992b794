/**
 * The spill suite runs what it says: at a small scale, the grace hash join (under a tenth of its
 * inputs' bytes), the sort-merge baseline and DuckDB give the same row count, the hash join did
 * spill, and the pool's peak stayed within the limit. No timing is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { spillCases } from './spill.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(() => duck.close());

describe('bench --suite spill', () => {
  it('the grace hash join, the sort-merge join and DuckDB agree at scale 0.01, within the limit', async () => {
    // batchSize 1024: the sort-merge join's merge at 8192-row batches needs more than 640 KB
    const [c] = await spillCases(duck, 0.01, { threads: 1, batchSize: 1024 });
    try {
      const rows = await c!.joinlab();
      expect(rows).toBeGreaterThan(90_000); // ~100K: 200K x 200K keys uniform in [0, 400K)
      expect(await c!.baseline!.run()).toBe(rows);
      expect(await c!.duckdb()).toBe(rows);
      const facts = c!.facts!();
      expect(String(facts.spill)).toMatch(/^grace hash join: \d+ partitions/);
      expect(Number(facts.spilledBytes)).toBeGreaterThan(0);
      expect(Number(facts.peakReservedBytes)).toBeLessThanOrEqual(Number(facts.memoryLimit));
    } finally {
      await c!.close?.();
    }
  }, 120_000);
});
