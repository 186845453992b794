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
 *
 * An order that timed out (the experiment's `timeout`) is no failure: it is the slowest kind of
 * order, the one a robust variant should not have. It is listed in `timedOut` and counted as
 * "more than the timeout" T: the max is then `> T`, max/min `> T / min`, the median `> …` when it
 * falls on (or, for an even count, beside) a timed-out order, and the cost time `> T` when the
 * cost order timed out. Which fields are such lower bounds is in `lowerBounds`; the report prints
 * them with '>'. With every order timed out, min is `> T` too and max/min is unknown (null).
 */
import type { OrderRunResult, OrdersBound, OrdersSummary } from './results.ts';

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The largest intermediate result of one run: the most rows any one join output (0 without joins). */
export function largestJoinRows(joinRows: readonly number[]): number {
  return joinRows.reduce((m, r) => Math.max(m, r), 0);
}

/** One order's time: its median, or (`over`) more than the timeout `ms`. */
interface OrderTime {
  readonly order: string;
  readonly ms: number;
  readonly over: boolean;
}

/**
 * Time (min, median, max, max/min) and largest intermediate result over the runs of one variant's
 * orders; `timeoutMs` is the experiment's per-run limit (null: none), the time a timed-out order
 * is known to exceed.
 */
export function summarizeOrders(runs: readonly OrderRunResult[], timeoutMs: number | null = null): OrdersSummary {
  const ran = runs.filter((r) => r.status === 'ok' && r.time !== undefined);
  const timedOut = timeoutMs === null ? [] : runs.filter((r) => r.status === 'timeout');
  const cost = runs.find((r) => r.order === 'cost');
  const costRan = cost !== undefined && cost.status === 'ok' && cost.time !== undefined;
  const costOver = cost !== undefined && timedOut.includes(cost);
  // a run that finished did so within the timeout: every timed-out order sorts after every one that ran
  const times: OrderTime[] = [
    ...ran.map((r) => ({ order: r.order, ms: r.time!.medianMs, over: false })),
    ...timedOut.map((r) => ({ order: r.order, ms: timeoutMs!, over: true })),
  ];
  const sorted = [...times].sort((a, b) => a.ms - b.ms || Number(a.over) - Number(b.over));
  // the fastest / slowest: the first order (in run order) with the least / greatest time
  const first = (t: OrderTime | undefined) => (t === undefined ? null : times.find((x) => x.ms === t.ms && x.over === t.over)!);
  const fastest = first(sorted[0]);
  const slowest = first(sorted.at(-1));
  const median = middleOf(sorted);
  const bounds: OrdersBound[] = [];
  if (costOver) bounds.push('costMs');
  if (fastest?.over) bounds.push('minMs');
  if (median?.over) bounds.push('medianMs');
  if (slowest?.over) bounds.push('maxMs');
  // max over min: exact, a lower bound (only max is), or unknown (both are: > T over > T)
  const maxOverMin = fastest === null || slowest === null || !(fastest.ms > 0) || fastest.over ? null : round(slowest.ms / fastest.ms, 3);
  if (maxOverMin !== null && slowest!.over) bounds.push('maxOverMin');
  const largest = ran.filter((r) => r.largestJoinRows !== undefined).map((r) => r.largestJoinRows!);
  return {
    orders: runs.length,
    ran: ran.length,
    failed: runs.filter((r) => !ran.includes(r) && !timedOut.includes(r)).map((r) => r.order),
    timedOut: timedOut.map((r) => r.order),
    lowerBounds: bounds,
    costMs: costRan ? cost.time!.medianMs : costOver ? timeoutMs : null,
    minMs: fastest?.ms ?? null,
    medianMs: median === null ? null : round(median.ms, 2),
    maxMs: slowest?.ms ?? null,
    maxOverMin,
    fastest: fastest?.order ?? null,
    slowest: slowest?.order ?? null,
    costLargestJoinRows: costRan ? (cost.largestJoinRows ?? null) : null,
    largestJoinRows: largest.length > 0 ? Math.max(...largest) : null,
  };
}

/** The median of sorted times: the middle one, or the mean of the two middle ones (a lower bound when either is). */
function middleOf(sorted: readonly OrderTime[]): { readonly ms: number; readonly over: boolean } | null {
  const n = sorted.length;
  if (n === 0) return null;
  if (n % 2) return sorted[(n - 1) / 2]!;
  const a = sorted[n / 2 - 1]!;
  const b = sorted[n / 2]!;
  return { ms: (a.ms + b.ms) / 2, over: a.over || b.over };
}
