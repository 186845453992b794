/**
 * The summary over join orders, on made-up runs: min / median / max over each order's median,
 * max/min, the largest intermediate result, orders that did not run left out but named, and
 * orders that timed out counted as more than the timeout (lower bounds).
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
      timedOut: [],
      lowerBounds: [],
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

  it('counts an order that timed out as more than the timeout: max > T, max/min > T/min, a lower bound', () => {
    const timeout = (order: string): OrderRunResult => ({ order, status: 'timeout', reason: 'no answer within 0.05 s (run 1/1)', parity: null });
    const s = summarizeOrders([run('cost', [10], [4]), timeout('random:1'), run('random:2', [20], [8])], 50);
    expect(s).toEqual({
      orders: 3,
      ran: 2,
      failed: [],
      timedOut: ['random:1'],
      lowerBounds: ['maxMs', 'maxOverMin'],
      costMs: 10,
      minMs: 10,
      medianMs: 20, // the middle of 10, 20, > 50
      maxMs: 50,
      maxOverMin: 5,
      fastest: 'cost',
      slowest: 'random:1',
      costLargestJoinRows: 4,
      largestJoinRows: 8,
    });
    // an even count: the median is the mean of the middle two, a lower bound when one is a timeout
    const even = summarizeOrders([run('cost', [10], [4]), timeout('random:1'), timeout('random:2'), run('random:3', [30], [2])], 50);
    expect(even).toMatchObject({ medianMs: 40, maxMs: 50, maxOverMin: 5, slowest: 'random:1', timedOut: ['random:1', 'random:2'], lowerBounds: ['medianMs', 'maxMs', 'maxOverMin'] });
    // the cost order timed out: its time is > T too, and there is no cost-order largest join
    const costOut = summarizeOrders([timeout('cost'), run('random:1', [25], [3])], 50);
    expect(costOut).toMatchObject({ costMs: 50, costLargestJoinRows: null, minMs: 25, medianMs: 37.5, maxOverMin: 2, lowerBounds: ['costMs', 'medianMs', 'maxMs', 'maxOverMin'] });
    // every order timed out: min is > T as well, and max/min is unknown
    const all = summarizeOrders([timeout('cost'), timeout('random:1')], 50);
    expect(all).toMatchObject({ ran: 0, minMs: 50, maxMs: 50, maxOverMin: null, fastest: 'cost', lowerBounds: ['costMs', 'minMs', 'medianMs', 'maxMs'] });
    // a failure beside a timeout is still left out, and named apart
    const mixed = summarizeOrders([run('cost', [10], [1]), { order: 'random:1', status: 'failed', reason: 'memory limit', parity: null }, timeout('random:2')], 50);
    expect(mixed).toMatchObject({ ran: 1, failed: ['random:1'], timedOut: ['random:2'], medianMs: 30, maxOverMin: 5 });
  });

  it('a query without joins has a largest intermediate result of 0', () => {
    expect(largestJoinRows([])).toBe(0);
    expect(largestJoinRows([3, 17, 2])).toBe(17);
  });
});
