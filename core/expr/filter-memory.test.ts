/**
 * Issue 31, "Resources": a join's residual filter holds scratch per node per pair (a 9,000-term
 * OR cost a gigabyte, none of it counted). Now the pool counts it as it grows (scratch.ts): the
 * run's peak reserved includes it, a limit the whole batch's scratch would pass makes the filter
 * evaluate smaller chunks — the answer still DuckDB's, the peak within the limit — and a limit
 * below what a few rows need is a MemoryLimitError naming the filter, not an uncounted gigabyte.
 */
import { Int32, type RecordBatch, Table, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { Engine, MemoryLimitError } from '../../index.ts';
import { toJoinSpec } from '../spec.ts';

const LEFT_ROWS = 3000;
const RIGHT_ROWS = 300;

const left = new Table({
  k: vectorFromArray(Array.from({ length: LEFT_ROWS }, (_, i) => i % 20), new Int32()),
  a: vectorFromArray(Array.from({ length: LEFT_ROWS }, (_, i) => (i % 13 === 0 ? null : (i * 7) % 500)), new Int32()),
  s: vectorFromArray(Array.from({ length: LEFT_ROWS }, (_, i) => `s${i % 17}`), new Utf8()),
});
const right = new Table({
  k: vectorFromArray(Array.from({ length: RIGHT_ROWS }, (_, i) => i % 20), new Int32()),
  b: vectorFromArray(Array.from({ length: RIGHT_ROWS }, (_, i) => (i * 11) % 600), new Int32()),
  t: vectorFromArray(Array.from({ length: RIGHT_ROWS }, (_, i) => (i % 9 === 0 ? null : `s${i % 5}`)), new Utf8()),
});

/** 240 ORed terms over both sides that no IN set absorbs (45,000 candidate pairs). */
const FILTER = Array.from({ length: 240 }, (_, i) =>
  i % 3 === 0 ? `l.a + ${i} = r.b` : i % 3 === 1 ? `(l.s = r.t AND l.a > ${i * 2})` : `r.b - l.a = ${i}`,
).join(' OR ');
const spec = toJoinSpec({ type: 'left', on: 'k=k', filter: FILTER });

/** The join streamed (the output is not held: only the join's state and its filter count). */
async function run(memoryLimit?: number): Promise<{ table: Table; peak: number }> {
  const engine = await Engine.create({ join: 'hash', ...(memoryLimit === undefined ? {} : { memoryLimit }) });
  const s = await engine.stream(spec, left, right);
  const batches: RecordBatch[] = [];
  for await (const b of s.batches) batches.push(b);
  return { table: new Table(s.schema, batches), peak: s.metrics.memory.peakReservedBytes };
}

describe('a join filter’s scratch counts against memoryLimit', () => {
  let duck: DuckDBSession;
  let want: Table;
  beforeAll(async () => {
    duck = await DuckDBSession.open({ threads: 1 });
    await duck.loadTable('l', left);
    await duck.loadTable('r', right);
    want = await duck.query(joinToSql(spec, { table: 'l', columns: ['k', 'a', 's'] }, { table: 'r', columns: ['k', 'b', 't'] }));
  });
  afterAll(async () => {
    await duck?.close();
  });

  it('is in the peak; under a limit it cannot fit whole it runs in chunks, equal to DuckDB, within the limit', async () => {
    const free = await run();
    const cmp = compareResults(free.table, want);
    expect(cmp.equal, formatComparison(cmp)).toBe(true);
    // the filter's node buffers: ~240 terms x several buffers x thousands of pairs, megabytes
    expect(free.peak).toBeGreaterThan(8_000_000);

    const limit = Math.floor(free.peak / 6);
    const tight = await run(limit);
    expect(tight.peak).toBeLessThanOrEqual(limit);
    const c2 = compareResults(tight.table, want);
    expect(c2.equal, formatComparison(c2)).toBe(true);
  });

  it('below what a few pairs need: a MemoryLimitError naming the filter', async () => {
    const error = await run(100_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryLimitError);
    expect((error as Error).message).toMatch(/join filter scratch \(filter l\.a \+ 0 = r\.b OR .*…\)/);
  });
});
