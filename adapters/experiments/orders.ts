/**
 * A variant over join orders: what an experiment with `orders: N` reports per variant and data set.
 *
 * Why: a dynamic-filter or predicate-transfer policy is only robust if it makes the join order
 * matter less. Robust Predicate Transfer (Zhao et al., SIGMOD 2025) measures that as the ratio of
 * the slowest to the fastest time over a set of join orders; the largest intermediate result (the
 * most rows any one join outputs) says why an order is slow. The runner runs each variant under
 * the cost-based order and under random:1 … random:N (the same orders for every variant), each with
 * its own repetitions; this module turns those runs into one summary, kept apart from the runner so
 * it can be tested on made-up results.
 *
 * Each order's time is its median over the repetitions. Min, median and max are over the orders
 * that ran; an order that could not run (unsupported, memory limit) is listed in `failed` and left
 * out, so with failures max/min understates the spread.
 */
import type { OrderRunResult, OrdersSummary } from './results.ts';

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function medianOf(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

/** The largest intermediate result of one run: the most rows any one join output (0 without joins). */
export function largestJoinRows(joinRows: readonly number[]): number {
  return joinRows.reduce((m, r) => Math.max(m, r), 0);
}

/** Time (min, median, max, max/min) and largest intermediate result over the runs of one variant's orders. */
export function summarizeOrders(runs: readonly OrderRunResult[]): OrdersSummary {
  const ran = runs.filter((r) => r.status === 'ok' && r.time !== undefined);
  const cost = runs.find((r) => r.order === 'cost');
  const costRan = cost !== undefined && cost.status === 'ok' && cost.time !== undefined;
  let fastest: OrderRunResult | null = null;
  let slowest: OrderRunResult | null = null;
  for (const r of ran) {
    if (fastest === null || r.time!.medianMs < fastest.time!.medianMs) fastest = r;
    if (slowest === null || r.time!.medianMs > slowest.time!.medianMs) slowest = r;
  }
  const times = ran.map((r) => r.time!.medianMs);
  const min = fastest?.time!.medianMs ?? null;
  const max = slowest?.time!.medianMs ?? null;
  const largest = ran.filter((r) => r.largestJoinRows !== undefined).map((r) => r.largestJoinRows!);
  return {
    orders: runs.length,
    ran: ran.length,
    failed: runs.filter((r) => !ran.includes(r)).map((r) => r.order),
    costMs: costRan ? cost.time!.medianMs : null,
    minMs: min,
    medianMs: times.length > 0 ? round(medianOf(times), 2) : null,
    maxMs: max,
    maxOverMin: min !== null && max !== null && min > 0 ? round(max / min, 3) : null,
    fastest: fastest?.order ?? null,
    slowest: slowest?.order ?? null,
    costLargestJoinRows: costRan ? (cost.largestJoinRows ?? null) : null,
    largestJoinRows: largest.length > 0 ? Math.max(...largest) : null,
  };
}
