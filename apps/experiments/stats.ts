/**
 * The statistics of an experiment's times: a median with a 95% confidence interval, and the rule
 * that decides how many repetitions to take (`repeat: auto`).
 *
 * The interval is a bootstrap percentile interval of the median (Efron & Tibshirani, "An
 * Introduction to the Bootstrap", ch. 13): draw 2,000 resamples of the repetitions with
 * replacement, take each one's median, and report the 2.5th and 97.5th percentiles of those
 * medians. Why the median and the bootstrap: run times are skewed (a GC pause, a page-fault storm
 * makes one run slow, nothing makes one fast), so a mean ± t·s interval would be pulled by the
 * outlier and assumes a normality the data lacks; the bootstrap assumes nothing about the shape.
 * The resampling is driven by a seeded PRNG (mulberry32, fixed seed), so the same repetitions
 * always give the same interval: a results.json re-rendered, or a test, never changes its verdict.
 * With fewer than 3 repetitions there is no interval worth the name (2 values resample to 3
 * medians); it is `null`, "unknown", and the tables show the min–max range instead, marked.
 *
 * Why written here rather than a package: it is ~40 lines over a Float64Array, the method is
 * spelled out where the numbers are made (a reader checks it without opening node_modules), and a
 * package such as `simple-statistics` would add a dependency for a resampling loop it does not
 * seed (its bootstrap uses Math.random, so intervals would differ from run to run).
 *
 * `repeat: auto` (schema.ts `repeatAuto`) keeps taking runs until the interval's half-width is at
 * most `precision` × the median (checked from `minRuns` on), or `maxRuns` runs were taken, or the
 * timed runs have used `budgetSeconds` (checked after every run: a variant whose single run takes
 * longer than the budget stops after one). `repeatRuns` drives that loop over a `sample` callback
 * and a clock, so it is tested with fakes; the runner passes the real ones.
 */
import { Rng } from '../../core/random.ts';

/** The interval's confidence level, and how many resamples make it. */
export const CI_LEVEL = 0.95;
export const RESAMPLES = 2000;
/** Seed of the resampling (any fixed value: it only has to be the same every time). */
export const SEED = 0x5eed_2029;
/** Fewest repetitions that get an interval. */
export const MIN_RUNS_FOR_CI = 3;

/** core/random.ts's seeded PRNG (mulberry32) as a function: uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  const g = new Rng(seed);
  return () => g.next();
}

/** Median of the first `n` values of a sorted array. */
function sortedMedian(s: Float64Array, n = s.length): number {
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

/** The median of `xs` (NaN when empty). */
export function median(xs: ArrayLike<number>): number {
  return sortedMedian(Float64Array.from(xs).sort());
}

/** A confidence interval of the median, in the unit of the samples. */
export interface Interval {
  readonly lo: number;
  readonly hi: number;
}

/**
 * The bootstrap percentile interval of the median of `xs` at `level` (default 95%), from
 * `resamples` resamples seeded with `seed`; null with fewer than 3 values (unknown).
 */
export function medianCI(xs: ArrayLike<number>, options: { level?: number; resamples?: number; seed?: number } = {}): Interval | null {
  const n = xs.length;
  if (n < MIN_RUNS_FOR_CI) return null;
  const level = options.level ?? CI_LEVEL;
  const b = options.resamples ?? RESAMPLES;
  const random = mulberry32(options.seed ?? SEED);
  const data = Float64Array.from(xs);
  const sample = new Float64Array(n);
  const medians = new Float64Array(b);
  for (let r = 0; r < b; r++) {
    for (let i = 0; i < n; i++) sample[i] = data[Math.floor(random() * n)]!;
    medians[r] = sortedMedian(sample.sort());
  }
  medians.sort();
  // percentile by the nearest-rank rule on the sorted resample medians
  const at = (p: number) => medians[Math.min(b - 1, Math.max(0, Math.ceil(p * b) - 1))]!;
  const tail = (1 - level) / 2;
  return { lo: at(tail), hi: at(1 - tail) };
}

/** Whether two intervals overlap (touching counts). */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.lo <= b.hi && b.lo <= a.hi;
}

// ---------------------------------------------------------------------------------------------
// How many repetitions
// ---------------------------------------------------------------------------------------------

/** `repeat: auto`'s settings (schema.ts fills the defaults). */
export interface RepeatAuto {
  /** Stop once the 95% interval's half-width is at most this fraction of the median (0.05: ±5%). */
  readonly precision: number;
  /** Runs before the precision is first checked (at least 3: an interval needs them). */
  readonly minRuns: number;
  /** Runs at most. */
  readonly maxRuns: number;
  /** Seconds of timed runs at most, per variant (and join order) and data set. */
  readonly budgetSeconds: number;
}

export const REPEAT_AUTO_DEFAULTS: RepeatAuto = { precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 };

/** How many timed runs to take: a fixed number (`repeat: N`), or until precise (`repeat: auto`). */
export type RepeatPlan = { readonly kind: 'fixed'; readonly runs: number } | ({ readonly kind: 'auto' } & RepeatAuto);

/**
 * Why the runs stopped: `fixed` the `repeat: N` runs were taken; `precise` the interval got narrow
 * enough; `maxRuns` / `budget` `repeat: auto` ran out of runs or time first; `aborted` a run timed
 * out or failed (the runner records why).
 */
export type StopReason = 'fixed' | 'precise' | 'maxRuns' | 'budget' | 'aborted';

/** What `repeatRuns` did: the runs taken, why it stopped, and the interval's half-width / median then (null: unknown). */
export interface RepeatOutcome {
  readonly runsMs: number[];
  readonly stop: StopReason;
  readonly relativeHalfWidth: number | null;
}

/** The plan of `repeat: N` or `repeat: auto` (with its settings; the defaults when absent). */
export function repeatPlan(repeat: number | 'auto', auto?: RepeatAuto | null): RepeatPlan {
  return repeat === 'auto' ? { kind: 'auto', ...(auto ?? REPEAT_AUTO_DEFAULTS) } : { kind: 'fixed', runs: repeat };
}

/** `3 timed runs`, or `timed runs until the 95% CI of the median is within ±5% of it (5–30 runs, at most 60 s)`. */
export function repeatText(plan: RepeatPlan): string {
  if (plan.kind === 'fixed') return `${plan.runs} timed run${plan.runs === 1 ? '' : 's'}`;
  return `timed runs until the 95% CI of the median is within ±${Number((plan.precision * 100).toPrecision(6))}% of it (${plan.minRuns}–${plan.maxRuns} runs, at most ${plan.budgetSeconds} s)`;
}

/** The most runs a plan can take (the progress bar's share of it). */
export function maxRunsOf(plan: RepeatPlan): number {
  return plan.kind === 'fixed' ? plan.runs : plan.maxRuns;
}

/** The interval's half-width as a fraction of the median; null when unknown (fewer than 3 runs, median 0). */
export function relativeHalfWidth(runsMs: readonly number[]): number | null {
  const ci = medianCI(runsMs);
  const m = median(runsMs);
  return ci === null || !(m > 0) ? null : (ci.hi - ci.lo) / 2 / m;
}

/** Whether to stop after `runsMs` (taken in `elapsedMs` of timed runs), and why; null: take another. */
export function stopReason(plan: RepeatPlan, runsMs: readonly number[], elapsedMs: number): Exclude<StopReason, 'aborted'> | null {
  const n = runsMs.length;
  if (plan.kind === 'fixed') return n >= plan.runs ? 'fixed' : null;
  if (n >= plan.minRuns) {
    const w = relativeHalfWidth(runsMs);
    if (w !== null && w <= plan.precision) return 'precise';
  }
  if (n >= plan.maxRuns) return 'maxRuns';
  if (elapsedMs >= plan.budgetSeconds * 1000) return 'budget';
  return null;
}

/**
 * Takes timed runs under `plan`: `sample(i)` runs the i-th (0-based) and resolves to its time in ms,
 * or to undefined when the runs must stop (a timeout: the outcome is then `aborted`); `now` is the
 * clock (ms) the budget is measured on. An error from `sample` propagates.
 */
export async function repeatRuns(plan: RepeatPlan, sample: (i: number) => Promise<number | undefined>, now: () => number = () => performance.now()): Promise<RepeatOutcome> {
  const runsMs: number[] = [];
  const started = now();
  for (;;) {
    const ms = await sample(runsMs.length);
    if (ms === undefined) return { runsMs, stop: 'aborted', relativeHalfWidth: relativeHalfWidth(runsMs) };
    runsMs.push(ms);
    const stop = stopReason(plan, runsMs, now() - started);
    if (stop !== null) return { runsMs, stop, relativeHalfWidth: relativeHalfWidth(runsMs) };
  }
}

// ---------------------------------------------------------------------------------------------
// A variant's time, as results.json records it
// ---------------------------------------------------------------------------------------------

/** Times over the timed runs (stats.ts `runStats`), in ms rounded to 0.01. */
export interface RunStats {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly runsMs: readonly number[];
  /**
   * The 95% bootstrap percentile confidence interval of the median (stats.ts); null: unknown (fewer
   * than 3 runs; tables then show the min–max range, marked). Absent in results written before it existed.
   */
  readonly ci95?: { readonly loMs: number; readonly hiMs: number } | null;
  /**
   * Why the timed runs stopped: `fixed` (`repeat: N`), `precise`, `maxRuns` or `budget` (`repeat:
   * auto`); `runsMs.length` is how many were taken. Absent in older results.
   */
  readonly stop?: StopReason;
  /** The interval's half-width / the median when the runs stopped (null: unknown). Absent in older results. */
  readonly relativeHalfWidth?: number | null;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * Median, min, max, every run and the 95% interval of the median (null with fewer than 3 runs),
 * rounded to 0.01 ms; with `outcome`, also why the runs stopped and the precision then.
 */
export function runStats(runs: readonly number[], outcome?: Pick<RepeatOutcome, 'stop' | 'relativeHalfWidth'>): RunStats {
  const sorted = Float64Array.from(runs).sort();
  const n = sorted.length;
  const ci = medianCI(runs);
  return {
    medianMs: round2(sortedMedian(sorted)),
    minMs: round2(n === 0 ? NaN : sorted[0]!),
    maxMs: round2(n === 0 ? NaN : sorted[n - 1]!),
    runsMs: runs.map(round2),
    ci95: ci === null ? null : { loMs: round2(ci.lo), hiMs: round2(ci.hi) },
    ...(outcome !== undefined
      ? { stop: outcome.stop, relativeHalfWidth: outcome.relativeHalfWidth === null ? null : Math.round(outcome.relativeHalfWidth * 10000) / 10000 }
      : {}),
  };
}
