/**
 * The comparison with the baseline variant, on made-up times: "faster" / "slower" by the ratio of
 * medians when the 95% intervals (min–max ranges with fewer than 3 runs) do not overlap, "no
 * change" when they do, "incomparable" when
 * either did not run, "timeout" (no ratio, counted apart) when the variant's run timed out; the
 * geometric mean over data sets and the counts per variant.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../core/config/schema.ts';
import { compareTimes, speedText, spreadsOverlap, summarizeComparisons, timeInterval, timesTie, withComparisons } from './compare.ts';
import type { DatasetResult, OrdersSummary, VariantResult } from './results.ts';
import { configJson, stats } from './runner.ts';

function variant(name: string, runsMs: number[] | null | 'timeout', ordersSummary?: Partial<OrdersSummary>): VariantResult {
  const base = { name, overrides: {}, config: configJson(parseConfig({})), parity: null, ratio: null };
  if (runsMs === null) return { ...base, status: 'unsupported', reason: 'no' };
  if (runsMs === 'timeout') return { ...base, status: 'timeout', reason: 'no answer within 1 s (run 1/1)', ...(ordersSummary ? { ordersSummary: ordersSummary as OrdersSummary } : {}) };
  return { ...base, status: 'ok', time: stats(runsMs), ...(ordersSummary ? { ordersSummary: ordersSummary as OrdersSummary } : {}) };
}

function dataset(name: string, variants: VariantResult[]): DatasetResult {
  return { kind: 'sql', name, tables: {}, sql: 'SELECT 1', variants, duckdb: null };
}

describe('compareTimes', () => {
  it('says faster / slower by the ratio of medians when the min–max ranges do not overlap', () => {
    expect(compareTimes('none', stats([7.5, 7.6, 7.7]), stats([9.9, 10, 10.2]))).toEqual({ baseline: 'none', ratio: 0.76, verdict: 'faster', text: '1.32x faster', by: 'ci95' });
    expect(compareTimes('none', stats([11, 11.1]), stats([9.8, 10.2]))).toEqual({ baseline: 'none', ratio: 1.105, verdict: 'slower', text: '1.10x slower', by: 'min-max' });
  });

  it('says no change when the ranges overlap, however far apart the medians', () => {
    expect(compareTimes('none', stats([5, 6, 10.5]), stats([10, 20, 30]))).toEqual({ baseline: 'none', ratio: 0.3, verdict: 'no change', text: 'no change', by: 'ci95' });
    // touching ranges overlap
    expect(compareTimes('none', stats([8, 10]), stats([10, 12])).verdict).toBe('no change');
    expect(spreadsOverlap(stats([1, 2]), stats([2.01, 3]))).toBe(false);
  });

  it('with one run each a range is a point: only equal times are no change', () => {
    expect(compareTimes('b', stats([10]), stats([10])).text).toBe('no change');
    expect(compareTimes('b', stats([10]), stats([10.1])).text).toBe('1.01x faster');
  });

  it('with 3+ runs each the 95% intervals decide: an outlier that stretches the range does not hide a real change', () => {
    const a = stats([10, 10.1, 9.9, 10, 10.05, 9.95, 10, 30]); // one slow outlier: its min–max reaches 30
    const b = stats([12, 12.1, 11.9, 12, 12.05, 11.95, 12, 12]);
    expect(spreadsOverlap(a, b)).toBe(true); // the old rule: no change
    expect(timesTie(a, b)).toEqual({ tie: false, by: 'ci95' });
    expect(compareTimes('b', a, b)).toEqual({ baseline: 'b', ratio: 0.833, verdict: 'faster', text: '1.20x faster', by: 'ci95' });
    expect(compareTimes('a', b, a).text).toBe('1.20x slower');
  });

  it('overlapping intervals are a tie ("no change") however far apart the medians', () => {
    const auto = stats([64, 60, 70, 130, 62, 125, 61]);
    const map = stats([131, 60, 140, 65, 135, 66, 128]);
    expect(auto.ci95!.hiMs).toBeGreaterThanOrEqual(map.ci95!.loMs);
    expect(compareTimes('map', auto, map)).toMatchObject({ verdict: 'no change', text: 'no change', by: 'ci95' });
  });

  it('falls back to the min–max ranges when either interval is unknown (fewer than 3 runs, older results)', () => {
    expect(timesTie(stats([10, 11]), stats([10.5, 10.6, 10.7]))).toEqual({ tie: true, by: 'min-max' });
    expect(timesTie(stats([10, 11]), stats([12, 12.5, 13]))).toEqual({ tie: false, by: 'min-max' });
    const old = { medianMs: 10, minMs: 9, maxMs: 11, runsMs: [9, 10, 11] }; // results.json before intervals: no ci95
    expect(compareTimes('x', old, stats([10.5, 10.6, 10.7]))).toMatchObject({ verdict: 'no change', by: 'min-max' });
    expect(timeInterval(old)).toEqual({ lo: 9, hi: 11, kind: 'min-max' });
  });

  it('is incomparable when either variant did not run', () => {
    expect(compareTimes('none', undefined, stats([1]))).toEqual({ baseline: 'none', ratio: null, verdict: 'incomparable', text: 'incomparable' });
    expect(compareTimes('none', stats([1]), undefined).verdict).toBe('incomparable');
  });

  it('speedText words a ratio alone', () => {
    expect(speedText(0.5)).toBe('2.00x faster');
    expect(speedText(1.25)).toBe('1.25x slower');
    expect(speedText(1.004)).toBe('no change');
  });
});

describe('withComparisons and summarizeComparisons', () => {
  const datasets = [
    dataset('a', [variant('none', [10, 11]), variant('fast', [4, 5]), variant('slow', [20, 21]), variant('same', [10.5])]),
    dataset('b', [variant('none', [100]), variant('fast', [25]), variant('slow', [100]), variant('same', null)]),
  ].map((d) => withComparisons(d, 'none'));

  it('fills each variant but the baseline with its comparison', () => {
    const a = datasets[0]!.variants;
    expect(a[0]!.comparison).toBeUndefined();
    expect(a.slice(1).map((v) => v.comparison?.text)).toEqual(['2.33x faster', '1.95x slower', 'no change']);
    expect(datasets[1]!.variants.slice(1).map((v) => v.comparison?.text)).toEqual(['4.00x faster', 'no change', 'incomparable']);
    // one variant: nothing to compare
    const alone = withComparisons(dataset('c', [variant('none', [1])]), 'none');
    expect(alone.variants[0]!.comparison).toBeUndefined();
  });

  it('sums up per variant: geometric mean of the time ratios over the data sets both ran, and the counts', () => {
    const c = summarizeComparisons(datasets, ['none', 'fast', 'slow', 'same'], 'none')!;
    expect(c.baseline).toBe('none');
    expect(c.spread).toBe('ci95');
    const [none, fast, slow, same] = c.variants;
    expect(none).toEqual({ name: 'none', compared: 2, geomeanRatio: 1, text: 'baseline', faster: 0, slower: 0, noChange: 0, incomparable: 0, timeout: 0 });
    // sqrt((4.5 / 10.5) * (25 / 100)) = 0.3273
    expect(fast).toEqual({ name: 'fast', compared: 2, geomeanRatio: 0.327, text: '3.06x faster', faster: 2, slower: 0, noChange: 0, incomparable: 0, timeout: 0 });
    // sqrt((20.5 / 10.5) * 1) = 1.3973
    expect(slow).toMatchObject({ compared: 2, geomeanRatio: 1.397, text: '1.40x slower', faster: 0, slower: 1, noChange: 1 });
    expect(same).toMatchObject({ compared: 1, geomeanRatio: 1, text: 'no change', noChange: 1, incomparable: 1 });
    expect(summarizeComparisons(datasets, ['none'], 'none')).toBeUndefined();
  });

  it('sums the counters that do not depend on timing over the data sets both ran: rows and bytes decoded vs the baseline, containers pruned', () => {
    const scan = (rowsDecoded: number, bytesDecoded: number, containersPruned: number) => ({ containersTotal: 10, containersPruned, rowsDecoded, rowsAfterFilter: 0, bytesDecoded, bytesSkipped: 0, bytesRead: 0 });
    const withScan = (v: VariantResult, rows: number, bytes: number, pruned: number): VariantResult => ({ ...v, probe: scan(rows, bytes, pruned) });
    const ds = [
      dataset('a', [withScan(variant('none', [10, 10, 10]), 1000, 4000, 0), withScan(variant('map', [5, 5, 5]), 100, 400, 9)]),
      dataset('b', [withScan(variant('none', [10, 10, 10]), 1000, 4000, 0), withScan(variant('map', [11, 11, 11]), 300, 1200, 7)]),
      dataset('c', [withScan(variant('none', [10, 10, 10]), 1000, 4000, 0), variant('map', null)]), // map did not run: left out
    ].map((d) => withComparisons(d, 'none'));
    const [none, map] = summarizeComparisons(ds, ['none', 'map'], 'none')!.variants;
    expect(map!.decoded).toEqual({ datasets: 2, rowsDecoded: 400, bytesDecoded: 1600, containersPruned: 16, containersTotal: 20, rowsVsBaseline: 0.2, bytesVsBaseline: 0.2 });
    expect(none!.decoded).toEqual({ datasets: 3, rowsDecoded: 3000, bytesDecoded: 12000, containersPruned: 0, containersTotal: 30, rowsVsBaseline: 1, bytesVsBaseline: 1 });
  });

  it('with orders: the geometric mean and the worst of max/min over the data sets', () => {
    const ds = [
      dataset('q1', [variant('none', [10], { maxOverMin: 4 }), variant('t', [5], { maxOverMin: 1 })]),
      dataset('q2', [variant('none', [10], { maxOverMin: 9 }), variant('t', [5], { maxOverMin: 1.21 })]),
    ].map((d) => withComparisons(d, 'none'));
    const c = summarizeComparisons(ds, ['none', 't'], 'none')!;
    expect(c.variants[0]!.orders).toEqual({ geomeanMaxOverMin: 6, worstMaxOverMin: 9, worstDataset: 'q2' });
    expect(c.variants[1]!.orders).toEqual({ geomeanMaxOverMin: 1.1, worstMaxOverMin: 1.21, worstDataset: 'q2' });
    expect(c.variants[1]!.text).toBe('2.00x faster');
  });

  it('a variant that timed out: "timeout", no ratio, counted apart; one that beat a timed-out baseline: "> Nx faster"', () => {
    const ds = [
      dataset('q1', [variant('none', [10]), variant('t', 'timeout'), variant('u', [5])]),
      dataset('q2', [variant('none', 'timeout'), variant('t', [250]), variant('u', 'timeout')]),
      dataset('q3', [variant('none', [10]), variant('t', [20]), variant('u', [5])]),
    ].map((d) => withComparisons(d, 'none', 1));
    expect(ds.map((d) => d.variants.slice(1).map((v) => v.comparison?.text))).toEqual([
      ['timeout', '2.00x faster'],
      ['> 4.00x faster', 'timeout'], // 1000 ms / 250 ms: more than 4x
      ['2.00x slower', '2.00x faster'],
    ]);
    expect(ds[0]!.variants[1]!.comparison).toEqual({ baseline: 'none', ratio: null, verdict: 'timeout', text: 'timeout' });
    expect(ds[1]!.variants[1]!.comparison).toMatchObject({ ratio: null, verdict: 'faster' });
    const c = summarizeComparisons(ds, ['none', 't', 'u'], 'none')!;
    const [none, t, u] = c.variants;
    expect(none).toMatchObject({ compared: 2, timeout: 1 });
    // t: a timeout, a faster without a ratio, and one ratio (2) in the geometric mean
    expect(t).toMatchObject({ compared: 1, geomeanRatio: 2, faster: 1, slower: 1, incomparable: 0, timeout: 1 });
    expect(u).toMatchObject({ compared: 2, geomeanRatio: 0.5, faster: 2, incomparable: 0, timeout: 1 });
  });

  it('with orders and timeouts: a max/min that is a lower bound makes the geometric mean one', () => {
    const ds = [
      dataset('q1', [variant('none', [10], { maxOverMin: 4, lowerBounds: ['maxMs', 'maxOverMin'] }), variant('t', [5], { maxOverMin: 1, lowerBounds: [] })]),
      dataset('q2', [variant('none', [10], { maxOverMin: 9, lowerBounds: [] }), variant('t', [5], { maxOverMin: 1.21, lowerBounds: [] })]),
    ].map((d) => withComparisons(d, 'none', 1));
    const c = summarizeComparisons(ds, ['none', 't'], 'none')!;
    expect(c.variants[0]!.orders).toEqual({ geomeanMaxOverMin: 6, worstMaxOverMin: 9, worstDataset: 'q2', atLeast: true, worstAtLeast: false });
    expect(c.variants[1]!.orders).toEqual({ geomeanMaxOverMin: 1.1, worstMaxOverMin: 1.21, worstDataset: 'q2' });
  });
});
