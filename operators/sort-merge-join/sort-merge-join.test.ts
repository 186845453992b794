/**
 * The sort-merge join's named rules: which input is sorted and which is only checked (Parquet
 * `sorting_columns`, declared in-memory orders in any direction, NULL placement and permutation of
 * the key pairs), a NULL filter result being no match for the full join, and the refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as arrow from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { UnsupportedJoinError } from '../../core/errors.ts';
import { toJoinSpec } from '../../core/spec.ts';
import type { JoinType } from '../../core/types.ts';
import { writeSortedParquet } from '../../adapters/datagen/sorted-parquet.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { sortedTable } from '../memory-scan/memory-scan.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'joinlab-smj-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const i32 = (v: (number | null)[]) => arrow.vectorFromArray(v, new arrow.Int32());
const L = new arrow.Table({ a: i32([1, 1, 2, null, 3, 5, 5]), b: i32([9, 8, 7, 6, 5, 4, 3]), x: i32([1, 2, 3, 4, null, 6, 7]) });
const R = new arrow.Table({ a: i32([5, 1, null, 2, 2, 4]), b: i32([4, 8, 6, 7, 7, 0]), x: i32([0, 1, 2, null, 9, 5]) });

async function expectSame(type: JoinType, on: string, left: unknown, right: unknown, order: RegExp, filter?: string) {
  const spec = toJoinSpec({ type, on, filter });
  const expected = (await (await Engine.create({ join: 'nested-loop' })).join(spec, L, R)).table;
  const result = await (await Engine.create({ join: 'sort-merge', batchSize: 2 })).join(spec, left as arrow.Table, right as arrow.Table);
  const cmp = compareResults(result.table, expected);
  expect(cmp.equal, `${type} on ${on}\n${formatComparison(cmp)}`).toBe(true);
  expect(result.metrics.operators.join!.details.order).toMatch(order);
}

describe('sort-merge join: sorted or checked', () => {
  it('a Parquet file with sorting_columns is not sorted again', async () => {
    const lp = path.join(dir, 'l.parquet');
    const rp = path.join(dir, 'r.parquet');
    await writeSortedParquet(lp, L, [{ column: 'a' }], { rowGroupSize: 2 });
    await writeSortedParquet(rp, R, [{ column: 'a' }], { rowGroupSize: 3 });
    for (const type of ['inner', 'full', 'left-semi', 'right-anti'] as JoinType[]) {
      await expectSame(type, 'a=a', lp, rp, /^a ASC NULLS LAST; (left|right) declared \(checked\), (left|right) declared \(checked\)$/);
    }
  });

  it('follows a declared DESC NULLS FIRST order, sorting only the side that has none', async () => {
    const desc = [{ column: 'a', descending: true, nullsFirst: true }];
    const sortedBy = (t: arrow.Table) => {
      const rows = t.toArray().map((r) => r.toJSON() as Record<string, number | null>);
      rows.sort((p, q) => (p.a === null ? -1 : q.a === null ? 1 : q.a - p.a));
      return new arrow.Table({ a: i32(rows.map((r) => r.a)), b: i32(rows.map((r) => r.b)), x: i32(rows.map((r) => r.x)) });
    };
    await expectSame('full', 'a=a', sortedTable(sortedBy(L), desc), R, /^a DESC NULLS FIRST; left declared \(checked\), right sorted$/, 'r.x < l.x');
    await expectSame('left-mark', 'a=a', L, sortedTable(sortedBy(R), desc), /^a DESC NULLS FIRST; left sorted, right declared \(checked\)$/);
  });

  it('reorders the key pairs to follow a declared (b, a) order', async () => {
    const byBA = (t: arrow.Table) => {
      const rows = t.toArray().map((r) => r.toJSON() as Record<string, number | null>);
      const key = (v: number | null) => (v === null ? Infinity : v);
      rows.sort((p, q) => key(p.b) - key(q.b) || key(p.a) - key(q.a));
      return new arrow.Table({ a: i32(rows.map((r) => r.a)), b: i32(rows.map((r) => r.b)), x: i32(rows.map((r) => r.x)) });
    };
    const ba = [{ column: 'b' }, { column: 'a' }];
    await expectSame('inner', 'a=a,b=b', sortedTable(byBA(L), ba), sortedTable(byBA(R), ba), /^b ASC NULLS LAST, a ASC NULLS LAST; left declared \(checked\), right declared \(checked\)$/);
  });

  it('NOT IN sorts NULLS FIRST even when the inputs declare NULLS LAST', async () => {
    const spec = toJoinSpec({ type: 'left-anti', on: 'a=a', nullAware: true, filter: 'r.x < l.x' });
    const result = await (await Engine.create({ join: 'sort-merge' })).join(spec, L, R);
    expect(result.metrics.operators.join!.details.order).toBe('a ASC NULLS FIRST; left sorted, right sorted');
  });
});

describe('sort-merge join: semantics and refusals', () => {
  it('a filter that is NULL for a pair is no match, also for the full join', async () => {
    const l = new arrow.Table({ k: i32([1, 1]), x: i32([null, 5]) });
    const r = new arrow.Table({ k: i32([1]), x: i32([3]) });
    const result = await (await Engine.create({ join: 'sort-merge' })).join(toJoinSpec({ type: 'full', on: 'k=k', filter: 'l.x > r.x' }), l, r);
    const rows = result.table.toArray().map((row) => JSON.stringify(row.toJSON()));
    expect(rows.sort()).toEqual(['{"k":1,"x":5,"k_right":1,"x_right":3}', '{"k":1,"x":null,"k_right":null,"x_right":null}'].sort());
  });

  it('refuses a join without an equi-key before reading data; runs a range beside the keys as a residual filter', async () => {
    const engine = await Engine.create({ join: 'sort-merge' });
    await expect(engine.join(toJoinSpec({ type: 'inner', range: 'a < a' }), L, R)).rejects.toThrow(UnsupportedJoinError);
    const oracle = await Engine.create({ join: 'nested-loop' });
    for (const type of ['inner', 'full', 'left-anti', 'right-mark'] as const) {
      const spec = toJoinSpec({ type, on: 'a=a', range: 'b < b' });
      const cmp = compareResults((await engine.join(spec, L, R)).table, (await oracle.join(spec, L, R)).table);
      expect(cmp.equal, `${type}\n${formatComparison(cmp)}`).toBe(true);
    }
    // a range the filter cannot compare (BOOLEAN with INTEGER) is refused, naming why
    const B = new arrow.Table({ a: i32([1]), b: arrow.vectorFromArray([true], new arrow.Bool()) });
    await expect(engine.join(toJoinSpec({ type: 'inner', on: 'a=a', range: 'b < b' }), B, R)).rejects.toThrow(/range predicate cannot be evaluated as a residual filter/);
  });
});
