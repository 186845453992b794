/**
 * The iejoin suite computes the right thing: at a small scale every case's joinlab IEJoin, its
 * DuckDB query and (where there is one) the nested-loop baseline return the same row count, and
 * the 100%-selective intervals case returns one pair per interval. No timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { iejoinCases } from './iejoin.ts';

let duck: DuckDBSession;
beforeAll(async () => {
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(() => duck.close());

describe('the iejoin suite', () => {
  it('gives DuckDB’s row count in every case, and the nested loop’s', async () => {
    const cases = await iejoinCases(duck, 0.02, { threads: 1 });
    expect(cases.map((c) => c.name)).toEqual([
      'iejoin events 600x600 (overlaps)',
      'iejoin vs nested-loop events 60x60 (overlaps)',
      'iejoin events 20000x20000 (overlaps, counted)',
      'iejoin intervals 20000x20000 (100% selective, counted)',
    ]);
    for (const c of cases) {
      const want = await c.duckdb();
      expect(await c.joinlab(), c.name).toBe(want);
      if (c.baseline) expect(await c.baseline.run(), c.name).toBe(want);
    }
    expect(await cases[2]!.duckdb()).toBeGreaterThan(100);
    expect(await cases[3]!.duckdb()).toBe(20_000);
  });
});
