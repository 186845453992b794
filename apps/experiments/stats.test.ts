/**
 * The statistics of the times, on known samples: the bootstrap interval of the median (a point for
 * a constant sample, wide for a wide one, the same every time for the same runs), and the adaptive
 * stop of `repeat: auto` driven by a fake sampler and a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { median, medianCI, mulberry32, overlaps, relativeHalfWidth, repeatPlan, repeatRuns, repeatText, runStats, stopReason, type RepeatPlan } from './stats.ts';

describe('median and its 95% bootstrap interval', () => {
  it('median of odd and even samples, NaN when empty', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('a constant sample has a point interval at its value', () => {
    expect(medianCI([7, 7, 7, 7, 7])).toEqual({ lo: 7, hi: 7 });
    expect(relativeHalfWidth([7, 7, 7, 7, 7])).toBe(0);
  });

  it('is unknown (null) with fewer than 3 runs', () => {
    expect(medianCI([])).toBeNull();
    expect(medianCI([1])).toBeNull();
    expect(medianCI([1, 2])).toBeNull();
    expect(relativeHalfWidth([1, 2])).toBeNull();
    expect(medianCI([1, 2, 3])).not.toBeNull();
  });

  it('lies within the sample range and holds the median', () => {
    const xs = [10.2, 9.8, 10.1, 10.4, 9.9, 10.0, 10.3, 9.7, 10.6, 10.05];
    const ci = medianCI(xs)!;
    expect(ci.lo).toBeGreaterThanOrEqual(Math.min(...xs));
    expect(ci.hi).toBeLessThanOrEqual(Math.max(...xs));
    expect(ci.lo).toBeLessThanOrEqual(median(xs));
    expect(ci.hi).toBeGreaterThanOrEqual(median(xs));
  });

  it('a wide sample gives a wide interval, a tight one a narrow interval', () => {
    const tight = [100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100];
    const wide = [60, 140, 80, 120, 100, 70, 130, 90, 110, 65];
    const w = (xs: number[]) => {
      const ci = medianCI(xs)!;
      return ci.hi - ci.lo;
    };
    expect(w(tight)).toBeLessThan(1.5);
    expect(w(wide)).toBeGreaterThan(20);
    expect(relativeHalfWidth(tight)!).toBeLessThan(0.01);
    expect(relativeHalfWidth(wide)!).toBeGreaterThan(0.1);
  });

  it('is reproducible: the same runs give the same interval; another seed may differ, within the range', () => {
    const xs = [12, 15, 11, 19, 14, 13, 22, 16, 12.5, 17, 14.5];
    expect(medianCI(xs)).toEqual(medianCI([...xs]));
    expect(medianCI(xs)).toEqual(medianCI(xs, { seed: undefined }));
    const other = medianCI(xs, { seed: 42 })!;
    expect(other.lo).toBeGreaterThanOrEqual(11);
    expect(other.hi).toBeLessThanOrEqual(22);
    // the PRNG itself: same seed, same stream
    const a = mulberry32(1);
    const b = mulberry32(1);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });

  it('a lower level gives an interval inside the 95% one', () => {
    const xs = [5, 9, 6, 8, 7, 10, 4, 7.5, 6.5, 8.5, 5.5, 9.5];
    const ci95 = medianCI(xs)!;
    const ci50 = medianCI(xs, { level: 0.5 })!;
    expect(ci50.lo).toBeGreaterThanOrEqual(ci95.lo);
    expect(ci50.hi).toBeLessThanOrEqual(ci95.hi);
  });

  it('overlaps: touching counts, disjoint does not', () => {
    expect(overlaps({ lo: 1, hi: 2 }, { lo: 2, hi: 3 })).toBe(true);
    expect(overlaps({ lo: 1, hi: 2 }, { lo: 1.5, hi: 1.6 })).toBe(true);
    expect(overlaps({ lo: 1, hi: 2 }, { lo: 2.01, hi: 3 })).toBe(false);
  });

  it('runStats records the interval (null when unknown) and why the runs stopped', () => {
    const s = runStats([3, 1, 2, 2, 2]);
    expect(s).toMatchObject({ medianMs: 2, minMs: 1, maxMs: 3, runsMs: [3, 1, 2, 2, 2] });
    expect(s.ci95).not.toBeNull();
    expect(s.stop).toBeUndefined();
    expect(runStats([1, 2]).ci95).toBeNull();
    expect(runStats([5, 5, 5], { stop: 'precise', relativeHalfWidth: 0 })).toMatchObject({ ci95: { loMs: 5, hiMs: 5 }, stop: 'precise', relativeHalfWidth: 0 });
  });
});

describe('repeat: auto — when to stop', () => {
  const auto = (o: Partial<Omit<Extract<RepeatPlan, { kind: 'auto' }>, 'kind'>> = {}): RepeatPlan => ({ kind: 'auto', precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60, ...o });

  /** A sampler returning `times` in turn (the last one forever), and a clock that each run advances by its time. */
  function fake(times: readonly number[]) {
    let clock = 0;
    let calls = 0;
    return {
      sample: async (i: number) => {
        calls++;
        const ms = times[Math.min(i, times.length - 1)]!;
        clock += ms;
        return ms;
      },
      now: () => clock,
      calls: () => calls,
    };
  }

  it('a fixed repeat takes exactly N runs', async () => {
    const f = fake([10, 11, 12]);
    const out = await repeatRuns({ kind: 'fixed', runs: 3 }, f.sample, f.now);
    expect(out).toMatchObject({ runsMs: [10, 11, 12], stop: 'fixed' });
    expect(f.calls()).toBe(3);
  });

  it('stops as soon as the interval is precise, but not before minRuns', async () => {
    const f = fake([100, 100.5, 99.5, 100.2, 99.8, 100.1, 100]);
    const out = await repeatRuns(auto(), f.sample, f.now);
    expect(out.stop).toBe('precise');
    expect(out.runsMs).toHaveLength(5); // precise from the start; checked first at minRuns
    expect(out.relativeHalfWidth!).toBeLessThanOrEqual(0.05);
  });

  it('stops at maxRuns when the times stay noisy', async () => {
    // alternating 50 / 150: the median's interval stays about ±50%
    const f = fake(Array.from({ length: 40 }, (_, i) => (i % 2 ? 150 : 50)));
    const out = await repeatRuns(auto({ maxRuns: 12 }), f.sample, f.now);
    expect(out.stop).toBe('maxRuns');
    expect(out.runsMs).toHaveLength(12);
    expect(out.relativeHalfWidth!).toBeGreaterThan(0.05);
  });

  it('stops when the time budget runs out, even before minRuns', async () => {
    const f = fake(Array.from({ length: 40 }, (_, i) => (i % 2 ? 1500 : 500)));
    // 4 s budget: 500 + 1500 + 500 + 1500 = 4000 ms after 4 runs
    const out = await repeatRuns(auto({ budgetSeconds: 4 }), f.sample, f.now);
    expect(out.stop).toBe('budget');
    expect(out.runsMs).toHaveLength(4);
    // one run longer than the budget: one run
    const slow = fake([90_000]);
    expect(await repeatRuns(auto(), slow.sample, slow.now)).toMatchObject({ runsMs: [90_000], stop: 'budget', relativeHalfWidth: null });
  });

  it('a sampler that gives up (a timeout) ends the runs as aborted', async () => {
    const out = await repeatRuns(auto(), async (i) => (i < 2 ? 10 : undefined));
    expect(out).toEqual({ runsMs: [10, 10], stop: 'aborted', relativeHalfWidth: null });
  });

  it('stopReason: precision is checked from minRuns on, then maxRuns, then the budget', () => {
    const flat = [10, 10, 10, 10, 10];
    expect(stopReason(auto(), flat.slice(0, 4), 0)).toBeNull();
    expect(stopReason(auto(), flat, 0)).toBe('precise');
    expect(stopReason(auto({ maxRuns: 5 }), [1, 9, 1, 9, 1], 0)).toBe('maxRuns');
    expect(stopReason(auto(), [1, 9, 1, 9, 1], 60_000)).toBe('budget');
    expect(stopReason(auto(), [1, 9, 1, 9, 1], 59_999)).toBeNull();
  });

  it('plans and their words', () => {
    expect(repeatPlan(3)).toEqual({ kind: 'fixed', runs: 3 });
    expect(repeatPlan('auto')).toEqual({ kind: 'auto', precision: 0.05, minRuns: 5, maxRuns: 30, budgetSeconds: 60 });
    expect(repeatText(repeatPlan(1))).toBe('1 timed run');
    expect(repeatText(repeatPlan('auto'))).toBe('timed runs until the 95% CI of the median is within ±5% of it (5–30 runs, at most 60 s)');
  });
});
