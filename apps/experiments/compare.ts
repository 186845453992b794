/**
 * Each variant against a baseline variant, in words: "1.32x faster", "1.10x slower", "no change".
 *
 * Why: a table of medians leaves the reader to divide and to guess whether a 3% gap is noise.
 * DataFusion's benchmark comparison (benchmarks/compare.py) says it in words per query and counts
 * the faster / slower / unchanged queries; this does the same per data set, with one difference:
 * DataFusion calls a change within ±5% "no change", here it is "no change" when the two variants'
 * 95% confidence intervals of the median overlap (stats.ts: a bootstrap percentile interval over
 * each variant's repetitions), so the verdict follows the noise actually measured, and a ratio is
 * only claimed when the intervals are disjoint. Overlapping intervals are a tie, not a win of the
 * lower median. When either interval is unknown (fewer than 3 repetitions, or results written
 * before intervals existed) it falls back to the two min–max ranges: "no change" when they
 * overlap; with `repeat: 1` a range is one point, and only equal times are "no change". Which rule
 * decided is the comparison's `by` (`ci95` / `min-max`). A data set where either variant did not
 * run is "incomparable" (DataFusion's word for a failed query).
 *
 * Over the data sets each variant gets the geometric mean of its time ratio to the baseline (the
 * usual summary of benchmark ratios: a 2x win and a 2x loss cancel out). With `orders`, the time
 * compared is the cost-based order's (a variant's own fields are its cost-order run). Beside the
 * time, the summary carries counters that do not depend on timing, summed over the same data sets
 * (`decoded`: probe / scan rows and bytes decoded, containers pruned, and the rows and bytes as a
 * ratio to the baseline's), so a reader can tell a win that decodes less from a lucky run.
 *
 * A variant whose run timed out (the experiment's `timeout`) has no time: on that data set it is
 * `timeout`, with no ratio, counted apart from the incomparable ones. When only the baseline timed
 * out, the variant is faster by more than timeout / its median: `> 3.20x faster`, counted as
 * faster but, with no ratio, left out of the geometric mean.
 */
import type { BaselineComparison, ComparisonSummary, DatasetResult, DecodedSummary, RunStats, VariantComparisonSummary, VariantResult } from './results.ts';
import { overlaps } from './stats.ts';

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** `1.32x faster` for a ratio (variant / baseline) of 0.758, `1.10x slower` for 1.1; `no change` when it rounds to 1.00x. */
export function speedText(ratio: number): string {
  const factor = ratio < 1 ? 1 / ratio : ratio;
  const shown = factor.toFixed(2);
  if (shown === '1.00') return 'no change';
  return `${shown}x ${ratio < 1 ? 'faster' : 'slower'}`;
}

/** Whether two runs' min–max ranges overlap (touching counts). */
export function spreadsOverlap(a: RunStats, b: RunStats): boolean {
  return a.minMs <= b.maxMs && b.minMs <= a.maxMs;
}

/** A run's interval: its 95% CI of the median, or, when that is unknown, its min–max range (`kind` says which). */
export function timeInterval(t: RunStats): { readonly lo: number; readonly hi: number; readonly kind: 'ci95' | 'min-max' } {
  return t.ci95 != null ? { lo: t.ci95.loMs, hi: t.ci95.hiMs, kind: 'ci95' } : { lo: t.minMs, hi: t.maxMs, kind: 'min-max' };
}

/**
 * Whether two runs' times are a tie: their 95% intervals overlap when both are known, else their
 * min–max ranges do (touching counts); `by` says which rule decided.
 */
export function timesTie(a: RunStats, b: RunStats): { readonly tie: boolean; readonly by: 'ci95' | 'min-max' } {
  if (a.ci95 != null && b.ci95 != null) return { tie: overlaps({ lo: a.ci95.loMs, hi: a.ci95.hiMs }, { lo: b.ci95.loMs, hi: b.ci95.hiMs }), by: 'ci95' };
  return { tie: spreadsOverlap(a, b), by: 'min-max' };
}

/** `time` (a variant's) against `base` (the baseline's); either undefined when that variant did not run. */
export function compareTimes(baseline: string, time: RunStats | undefined, base: RunStats | undefined): BaselineComparison {
  if (time === undefined || base === undefined || !(base.medianMs > 0) || !(time.medianMs > 0)) {
    return { baseline, ratio: null, verdict: 'incomparable', text: 'incomparable' };
  }
  const ratio = round3(time.medianMs / base.medianMs);
  const { tie, by } = timesTie(time, base);
  if (tie) return { baseline, ratio, verdict: 'no change', text: 'no change', by };
  const faster = time.medianMs < base.medianMs;
  const factor = faster ? base.medianMs / time.medianMs : time.medianMs / base.medianMs;
  return { baseline, ratio, verdict: faster ? 'faster' : 'slower', text: `${factor.toFixed(2)}x ${faster ? 'faster' : 'slower'}`, by };
}

function timeOf(v: VariantResult | undefined): RunStats | undefined {
  return v !== undefined && v.status === 'ok' ? v.time : undefined;
}

/**
 * `v` against the baseline variant `base` on one data set: `compareTimes`, except that a variant
 * that timed out is `timeout`, and one that ran where only the baseline timed out (after
 * `timeoutMs`) is faster by more than timeoutMs / its median.
 */
export function compareVariant(baseline: string, v: VariantResult, base: VariantResult | undefined, timeoutMs: number | null): BaselineComparison {
  if (v.status === 'timeout') return { baseline, ratio: null, verdict: 'timeout', text: 'timeout' };
  const time = timeOf(v);
  if (base?.status === 'timeout' && time !== undefined && timeoutMs !== null && time.medianMs > 0) {
    return { baseline, ratio: null, verdict: 'faster', text: `> ${(timeoutMs / time.medianMs).toFixed(2)}x faster` };
  }
  return compareTimes(baseline, time, timeOf(base));
}

/**
 * Every variant of `d` but the baseline with its `comparison` filled in (unchanged with fewer than
 * two variants); `timeoutS` is the experiment's per-run limit (null: none).
 */
export function withComparisons<D extends DatasetResult>(d: D, baseline: string, timeoutS: number | null = null): D {
  if (d.variants.length < 2) return d;
  const base = d.variants.find((v) => v.name === baseline);
  const timeoutMs = timeoutS === null ? null : timeoutS * 1000;
  const variants = d.variants.map((v) => (v.name === baseline ? v : { ...v, comparison: compareVariant(baseline, v, base, timeoutMs) }));
  return { ...d, variants };
}

/**
 * Rows and bytes decoded and containers pruned summed over `pairs` (a variant and the baseline on
 * each data set both ran, where both report a probe / scan summary), with the rows and bytes as a
 * ratio to the baseline's sums; null when no data set has the counters.
 */
function decodedOver(pairs: readonly { readonly v: VariantResult; readonly base: VariantResult }[]): DecodedSummary | null {
  const withScans = pairs.filter(({ v, base }) => v.probe !== undefined && base.probe !== undefined);
  if (withScans.length === 0) return null;
  const sum = (pick: (x: VariantResult) => number) => withScans.reduce((n, p) => [n[0]! + pick(p.v), n[1]! + pick(p.base)], [0, 0]);
  const [rows, baseRows] = sum((x) => x.probe!.rowsDecoded);
  const [bytes, baseBytes] = sum((x) => x.probe!.bytesDecoded);
  const [pruned] = sum((x) => x.probe!.containersPruned);
  const [total] = sum((x) => x.probe!.containersTotal);
  return {
    datasets: withScans.length,
    rowsDecoded: rows!,
    bytesDecoded: bytes!,
    containersPruned: pruned!,
    containersTotal: total!,
    rowsVsBaseline: baseRows! > 0 ? round3(rows! / baseRows!) : null,
    bytesVsBaseline: baseBytes! > 0 ? round3(bytes! / baseBytes!) : null,
  };
}

function geomean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  return round3(Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length));
}

/**
 * Per variant over every data set: how many data sets it was faster, slower, unchanged or
 * incomparable on, and the geometric mean of its ratio to the baseline (over the comparable ones).
 * `datasets` must carry comparisons (`withComparisons`). Undefined with fewer than two variants.
 */
export function summarizeComparisons(datasets: readonly DatasetResult[], names: readonly string[], baseline: string): ComparisonSummary | undefined {
  if (names.length < 2) return undefined;
  const variants: VariantComparisonSummary[] = names.map((name) => {
    const rows = datasets.map((d) => ({ d, v: d.variants.find((x) => x.name === name) }));
    const robustness = rows.flatMap(({ d, v }) =>
      v?.ordersSummary?.maxOverMin != null ? [{ dataset: d.name, x: v.ordersSummary.maxOverMin, atLeast: (v.ordersSummary.lowerBounds ?? []).includes('maxOverMin') }] : [],
    );
    // the worst: the largest max/min, a lower bound ahead of an exact value it equals
    const worst = robustness.reduce<(typeof robustness)[number] | null>((w, r) => (w === null || r.x > w.x || (r.x === w.x && r.atLeast && !w.atLeast) ? r : w), null);
    const atLeast = robustness.some((r) => r.atLeast);
    const orders = rows.some(({ v }) => v?.ordersSummary !== undefined)
      ? {
          orders: {
            geomeanMaxOverMin: geomean(robustness.map((r) => r.x)),
            worstMaxOverMin: worst?.x ?? null,
            worstDataset: worst?.dataset ?? null,
            ...(atLeast ? { atLeast: true, worstAtLeast: worst!.atLeast } : {}),
          },
        }
      : {};
    const timeout = rows.filter(({ v }) => v?.status === 'timeout').length;
    const base = (d: DatasetResult) => d.variants.find((x) => x.name === baseline);
    const decoded = decodedOver(rows.flatMap(({ d, v }) => (timeOf(v) !== undefined && timeOf(base(d)) !== undefined ? [{ v: v!, base: base(d)! }] : [])));
    const counters = decoded !== null ? { decoded } : {};
    if (name === baseline) {
      const ran = rows.filter(({ v }) => timeOf(v) !== undefined).length;
      return { name, compared: ran, geomeanRatio: 1, text: 'baseline', faster: 0, slower: 0, noChange: 0, incomparable: 0, timeout, ...counters, ...orders };
    }
    const cs = rows.map(({ v }) => v?.comparison).filter((c): c is BaselineComparison => c !== undefined);
    // from the medians themselves, not the rounded ratios
    const ratios = rows.flatMap(({ d, v }) => {
      const t = v?.comparison?.ratio != null ? timeOf(v) : undefined;
      const b = timeOf(d.variants.find((x) => x.name === baseline));
      return t !== undefined && b !== undefined ? [t.medianMs / b.medianMs] : [];
    });
    const g = geomean(ratios);
    const count = (verdict: BaselineComparison['verdict']) => cs.filter((c) => c.verdict === verdict).length;
    return {
      name,
      compared: ratios.length,
      geomeanRatio: g,
      // no ratio anywhere: `timeout` when every data set timed out, else incomparable
      text: g === null ? (timeout > 0 && timeout === rows.length ? 'timeout' : 'incomparable') : speedText(g),
      faster: count('faster'),
      slower: count('slower'),
      noChange: count('no change'),
      incomparable: count('incomparable') + rows.filter(({ v }) => v === undefined).length,
      timeout,
      ...counters,
      ...orders,
    };
  });
  return { baseline, spread: 'ci95', variants };
}
