/**
 * The summary over join orders, on made-up runs: min / median / max over each order's median,
 * max/min, the largest intermediate result, and orders that did not run left out but named.
 */
import { describe, expect, it } from 'vitest';
import { largestJoinRows, summarizeOrders } from './orders.ts';
import type { OrderRunResult } from './results.ts';
import { stats } from './runner.ts';

function run(order: string, runsMs: number[], joinRows: number[]): OrderRunResult {
  return { order, status: 'ok', time: stats(runsMs), joinMs: 1, rows: 10, joins: joinRows.length, joinRows, largestJoinRows: largestJoinRows(joinRows), parity: null };
}

describe('summarizeOrders', () => {
  it('takes each order at its median over the repetitions, then min, median, max and max/min over the orders', () => {
    const s = summarizeOrders([
      run('cost', [10, 12, 50], [100, 40]), // median 12 (the 50 outlier does not count)
      run('random:1', [30, 31, 29], [5000, 40]), // 30
      run('random:2', [8, 9, 7], [90, 80]), // 8
      run('random:3', [20], [700, 40, 2]), // 20
    ]);
    expect(s).toEqual({
      orders: 4,
      ran: 4,
      failed: [],
      costMs: 12,
      minMs: 8,
      medianMs: 16, // (12 + 20) / 2
      maxMs: 30,
      maxOverMin: 3.75,
      fastest: 'random:2',
      slowest: 'random:1',
      costLargestJoinRows: 100,
      largestJoinRows: 5000,
    });
  });

  it('an odd number of orders has its middle time as the median; one order gives max/min 1', () => {
    expect(summarizeOrders([run('cost', [5], [1]), run('random:1', [7], [2]), run('random:2', [6], [3])])).toMatchObject({ medianMs: 6, maxOverMin: 1.4 });
    expect(summarizeOrders([run('cost', [5], [3, 9])])).toMatchObject({ orders: 1, ran: 1, minMs: 5, medianMs: 5, maxMs: 5, maxOverMin: 1, fastest: 'cost', slowest: 'cost', largestJoinRows: 9 });
  });

  it('leaves out orders that did not run, naming them; without the cost order its fields are null', () => {
    const failed: OrderRunResult = { order: 'random:1', status: 'failed', reason: 'memory limit', parity: null };
    const s = summarizeOrders([run('cost', [10], [4]), failed, run('random:2', [40], [8])]);
    expect(s).toMatchObject({ orders: 3, ran: 2, failed: ['random:1'], minMs: 10, medianMs: 25, maxMs: 40, maxOverMin: 4, largestJoinRows: 8 });
    const noCost = summarizeOrders([{ order: 'cost', status: 'unsupported', reason: 'x', parity: null }, run('random:1', [3], [2])]);
    expect(noCost).toMatchObject({ costMs: null, costLargestJoinRows: null, minMs: 3, failed: ['cost'] });
    const none = summarizeOrders([{ order: 'cost', status: 'unsupported', reason: 'x', parity: null }]);
    expect(none).toMatchObject({ ran: 0, costMs: null, minMs: null, medianMs: null, maxMs: null, maxOverMin: null, fastest: null, slowest: null, largestJoinRows: null });
  });

  it('a query without joins has a largest intermediate result of 0', () => {
    expect(largestJoinRows([])).toBe(0);
    expect(largestJoinRows([3, 17, 2])).toBe(17);
  });
});
