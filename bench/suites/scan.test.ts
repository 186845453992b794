/**
 * The scan suite computes the right thing: on a small file with several row groups, every case's
 * joinlab query, DuckDB query and raw scan run and agree (the suite's own checks would throw), the
 * 1% slice is pruned to its row group, and a different answer is refused. No timings.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromArrays } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { checkAnswer, SCAN_COLUMNS, SCAN_TABLE, scanCasesOn, scanFile, WrongAnswerError } from './scan.ts';

const ROWS = 20_000;
let root: string;
let duck: DuckDBSession;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'joinlab-scan-'));
  duck = await DuckDBSession.open({ threads: 1 });
});
afterAll(async () => {
  duck.close();
  await rm(root, { recursive: true, force: true });
});

describe('the scan suite', () => {
  it('runs every case at threads 1 and 2 with the answers agreeing, and prunes the 1% slice', async () => {
    const f = await scanFile(duck, ROWS, { root, rowGroupSize: 2_000 });
    await duck.createViewOnParquet(SCAN_TABLE, f.path);
    const [shape] = await duck.queryRows(`SELECT count(*) - count(i32_null), count(*) - count(s_null), count(*) - count(d), count(DISTINCT s_dict) FROM ${SCAN_TABLE}`);
    const [i32Nulls, stringNulls, dateNulls, modes] = shape!.map(Number);
    expect(Math.min(i32Nulls!, stringNulls!, dateNulls!)).toBeGreaterThan(0);
    expect(modes).toBe(20);
    for (const threads of [1, 2]) {
      const cases = await scanCasesOn(duck, f, { threads, 'parallel.minStartRows': 0 });
      expect(cases).toHaveLength(2 * SCAN_COLUMNS.length);
      for (const c of cases) {
        const selective = c.baseline === undefined;
        const want = selective ? f.to - f.from + 1 : ROWS;
        expect(await c.joinlab(), c.name).toBe(want);
        expect(await c.duckdb(), c.name).toBe(want);
        if (!selective) expect(await c.baseline!.run(), c.name).toBe(ROWS);
        const facts = c.facts!();
        expect(facts['rowGroupsTotal'], c.name).toBe(10);
        expect(facts['rowGroupsPruned'], c.name).toBe(selective ? 9 : 0);
        expect(c.notes!(), c.name).toMatch(/row groups pruned/);
      }
    }
  });

  it('refuses an answer that is not DuckDB’s', () => {
    const want = tableFromArrays({ n: new BigInt64Array([3n]), v: new Float64Array([1.5]) });
    expect(checkAnswer('joinlab', 'q', tableFromArrays({ n: new BigInt64Array([3n]), v: new Float64Array([1.5 * (1 + 1e-12)]) }), want)).toBe(3);
    expect(() => checkAnswer('joinlab', 'q', tableFromArrays({ n: new BigInt64Array([3n]), v: new Float64Array([1.6]) }), want)).toThrow(WrongAnswerError);
    expect(() => checkAnswer('joinlab', 'q', tableFromArrays({ n: new BigInt64Array([4n]), v: new Float64Array([1.5]) }), want)).toThrow(WrongAnswerError);
  });
});
