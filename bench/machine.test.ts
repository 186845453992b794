import { describe, expect, it } from 'vitest';
import { KERNELS, measureScaling } from './machine.ts';

// Timings are never asserted: this checks that every kernel runs in one and in two workers and reports a rate.
describe('bench:machine kernels', () => {
  it.each(KERNELS)('%s runs alone and two at once', async (kernel) => {
    const r = await measureScaling(kernel, 30);
    expect(r.kernel).toBe(kernel);
    expect(r.oneMops).toBeGreaterThan(0);
    expect(r.twoMops).toBeGreaterThan(0);
    expect(r.speedup).toBeCloseTo(r.twoMops / r.oneMops, 10);
  });
  it('an unknown kernel fails instead of reporting a rate', async () => {
    await expect(measureScaling('no-such-kernel', 10)).rejects.toThrow(/unknown kernel 'no-such-kernel'/);
  });
});
