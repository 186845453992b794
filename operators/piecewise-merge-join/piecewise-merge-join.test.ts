/**
 * The piecewise merge join's contract beyond the answers (which the fuzz, prefilter and watermark
 * tests check): what it refuses before reading data, the extreme-key filter pruning streamed
 * containers, the streamed side left unread once nothing can be marked, the lazy sort, output in
 * `batchSize` chunks however many pairs one streamed batch makes, and the memory limit.
 */
import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../composition.ts';
import { MemoryLimitError, UnsupportedJoinError } from '../../core/errors.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { toJoinSpec } from '../../core/spec.ts';
import { slicedScan } from '../sort-merge-join/test-helpers.ts';

/** `n` rows of int32 key `k` (from `key(i)`) and payload `p`, in batches of `batch` rows. */
function table(n: number, key: (i: number) => number | null, batch = n): arrow.Table {
  const batches: arrow.RecordBatch[] = [];
  for (let at = 0; at < n; at += batch) {
    const m = Math.min(batch, n - at);
    batches.push(
      new arrow.RecordBatch({
        k: arrow.vectorFromArray(Array.from({ length: m }, (_, i) => key(at + i)), new arrow.Int32()).data[0]!,
        p: arrow.vectorFromArray(Array.from({ length: m }, (_, i) => at + i), new arrow.Int32()).data[0]!,
      }),
    );
  }
  return new arrow.Table(batches);
}

describe('piecewise merge join', () => {
  it('refuses, before reading anything, what it cannot run: equi-keys, a residual filter, no range', async () => {
    const engine = await Engine.create({ join: 'piecewise' });
    const data = table(3, (i) => i);
    // a scan that fails the test if it is ever read
    const t: Scan = { ...slicedScan(data.batches, data.schema, 'untouched'), batches: () => { throw new Error('read before the refusal'); } };
    const cases: [Parameters<typeof toJoinSpec>[0], RegExp][] = [
      [{ type: 'inner', on: 'k=k' }, /needs one range predicate/],
      [{ type: 'inner', on: 'k=k', range: 'k < k' }, /without equi-keys/],
      [{ type: 'left', range: 'k < k', filter: 'l.p <> r.p' }, /without a residual --filter/],
    ];
    for (const [spec, message] of cases) {
      await expect(engine.join(spec, t, t)).rejects.toThrow(UnsupportedJoinError);
      await expect(engine.join(spec, t, t)).rejects.toThrow(message);
    }
  });

  it('the extreme key prunes streamed containers that cannot match (inner), never for a join that outputs them (right)', async () => {
    const buffered = table(1000, (i) => 5000 + i); // l.k in [5000, 6000)
    const streamed = table(10_000, (i) => (i < 9000 ? i % 5000 : 5000 + (i % 1000)), 1000); // nine batches below 5000
    const spec = { range: 'l.k < r.k' };
    const engine = await Engine.create({ join: 'piecewise' });
    const inner = await engine.join({ type: 'inner', ...spec }, buffered, streamed);
    const oracle = await Engine.create({ join: 'nested-loop' });
    expect(inner.table.numRows).toBe((await oracle.join({ type: 'inner', ...spec }, buffered, streamed)).table.numRows);
    expect(inner.metrics.scans.right.containersPruned).toBe(9);
    expect(inner.metrics.operators.join!.details.dynamicFilter).toBe('k > 5000 (piecewise extreme key)');
    const right = await engine.join({ type: 'right', ...spec }, buffered, streamed);
    expect(right.metrics.scans.right.containersPruned).toBe(0);
    expect(right.table.numRows).toBe((await oracle.join({ type: 'right', ...spec }, buffered, streamed)).table.numRows);
    // the baseline publishes nothing
    const base = await (await Engine.create({ join: 'piecewise', 'pwmj.prefilter': false, 'pwmj.search': 'linear' })).join({ type: 'inner', ...spec }, buffered, streamed);
    expect(base.metrics.scans.right.containersPruned).toBe(0);
    expect(base.table.numRows).toBe(inner.table.numRows);
  });

  it('no streamed row can match: the buffered side is never sorted', async () => {
    const engine = await Engine.create({ join: 'piecewise' });
    const r = await engine.join({ type: 'left', range: 'l.k < r.k' }, table(100, (i) => 1000 + i), table(500, (i) => i, 100));
    expect(r.table.numRows).toBe(100); // every buffered row, NULL-padded
    expect(r.metrics.operators.join!.details.bufferedSort).toMatch(/not needed/);
  });

  it('an existence join stops reading the streamed side once every buffered row is marked', async () => {
    const engine = await Engine.create({ join: 'piecewise' });
    const buffered = table(1000, (i) => i);
    const streamed = table(50_000, (i) => 100_000 + i, 1000); // every streamed row matches every buffered row
    const r = await engine.join({ type: 'left-semi', range: 'l.k < r.k' }, buffered, streamed);
    expect(r.table.numRows).toBe(1000);
    const m = r.metrics.operators.join!;
    expect(m.counters.rightRows).toBe(1000); // the first streamed batch only
    expect(m.counters.batchesAllMatched).toBe(1);
    expect(m.details.bufferedSort).toMatch(/not needed/); // matched the first key: no sort, no search
    expect(m.details.minMarked).toBe('0 of 1000 non-NULL buffered keys');
  });

  it('under a signal: the same answers and the same lazy sort, made in steps before the batch that needs it', async () => {
    const signal = new AbortController().signal;
    const rows = (t: arrow.Table) => t.toArray().map((r) => JSON.stringify(r)).sort();
    const cases: [Parameters<Engine['join']>[0], arrow.Table, arrow.Table, RegExp, boolean][] = [
      [{ type: 'left', range: 'l.k < r.k' }, table(100, (i) => 1000 + i), table(500, (i) => i, 100), /not needed/, true],
      [{ type: 'left-semi', range: 'l.k < r.k' }, table(1000, (i) => i), table(5000, (i) => 100_000 + i, 1000), /not needed/, true],
      [{ type: 'left-semi', range: 'l.k < r.k' }, table(1000, (i) => (i % 7 === 0 ? null : (i * 37) % 1000)), table(3000, (i) => i % 1200, 500), /^sorted/, true],
      [{ type: 'left-anti', range: 'l.k > r.k' }, table(1000, (i) => (i * 37) % 1000), table(3000, (i) => i % 1200, 500), /^sorted/, false],
      [{ type: 'inner', range: 'l.k >= r.k' }, table(1000, (i) => (i * 37) % 1000), table(300, (i) => (i % 5 === 0 ? null : i * 3), 100), /^sorted/, true],
      [{ type: 'full', range: 'l.k < r.k' }, table(500, (i) => (i * 37) % 500), table(300, (i) => i * 3, 100), /^sorted/, false],
    ];
    for (const [spec, l, r, sort, prefilter] of cases) {
      const engine = await Engine.create({ join: 'piecewise', 'pwmj.prefilter': prefilter, threads: 1 });
      const plain = await engine.join(spec, l, r);
      const paced = await engine.join(spec, l, r, { signal });
      const label = `${spec.type} ${spec.range} prefilter=${prefilter}`;
      expect(rows(paced.table), label).toEqual(rows(plain.table));
      expect(paced.metrics.operators.join!.details.bufferedSort, label).toMatch(sort);
      expect(paced.metrics.operators.join!.details.bufferedSort, label).toBe(plain.metrics.operators.join!.details.bufferedSort);
    }
  });

  it('one streamed batch making many output chunks emits every chunk', async () => {
    const buffered = table(300, (i) => i);
    const streamed = table(40, (i) => 1000 + i); // 40 x 300 pairs from one streamed batch
    for (const batchSize of [1, 7, 299, 300, 301, 8192]) {
      const r = await (await Engine.create({ join: 'piecewise', batchSize })).join({ type: 'inner', range: 'l.k < r.k' }, buffered, streamed);
      expect(r.table.numRows, `batchSize ${batchSize}`).toBe(12_000);
      expect(r.table.batches.every((b) => b.numRows <= batchSize)).toBe(true);
    }
  });

  it('a buffered side over memoryLimit is a MemoryLimitError naming the join', async () => {
    const engine = await Engine.create({ join: 'piecewise', memoryLimit: 64 * 1024 });
    const big = table(100_000, (i) => i, 10_000);
    await expect(engine.join({ type: 'inner', range: 'l.k < r.k' }, big, table(10, (i) => i))).rejects.toThrow(MemoryLimitError);
    await expect(engine.join({ type: 'inner', range: 'l.k < r.k' }, big, table(10, (i) => i))).rejects.toThrow(/piecewise merge join/);
  });
});
