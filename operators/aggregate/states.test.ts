/**
 * `updateAll` (an aggregate without GROUP BY) against `update` with every group id 0: the same
 * state for counts, exact sums of every width (extreme values, NULLs, more rows than one local sum
 * takes before it folds into the limbs) and double sums (same order, so the same bits).
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.ts';
import { CountState, ExactSumState, FloatSumState, type AggregateInput, type AggregateState } from './states.ts';

function both(make: () => AggregateState, input: AggregateInput, n: number): [unknown, unknown] {
  const a = make();
  const b = make();
  a.resize(1);
  b.resize(1);
  // two batches, so the fast path also adds to a non-empty state
  const half = Math.floor(n / 2);
  const slice = (from: number, to: number): AggregateInput => {
    const v = input.values;
    const cut = <T extends { subarray(a: number, b: number): T }>(x: T | null, w = 1) => (x === null ? null : x.subarray(from * w, to * w));
    return {
      nulls: cut(input.nulls),
      values: v === null ? null : { length: to - from, numbers: v.numbers === null ? null : (v.numbers as Float64Array).subarray(from, to), words: cut(v.words, v.words === null ? 1 : v.words.length / v.length), bytes: null, nulls: cut(v.nulls) },
    };
  };
  for (const [from, to] of [[0, half], [half, n]] as const) {
    const part = slice(from, to);
    a.update(part, new Int32Array(to - from), null, to - from);
    b.updateAll!(part, to - from);
  }
  const text = (s: AggregateState) => Array.from(s.finish(0, 1).values as ArrayLike<number>, String).join(',');
  return [text(a), text(b)];
}

describe('updateAll = update with one group', () => {
  const rng = new Rng(7);
  const n = (1 << 20) + 4099;
  const nulls = new Uint8Array(n).map(() => (rng.int(0, 9) === 0 ? 1 : 0));

  it('count(*) and count(x)', () => {
    for (const skip of [false, true]) {
      const [x, y] = both(() => new CountState(skip), { values: null, nulls }, n);
      expect(y).toBe(x);
    }
  });

  it('exact sums of 32-bit numbers, 64-bit and 128-bit words, at the extremes', () => {
    const numbers = new Float64Array(n).map(() => (rng.int(0, 1) ? 4294967295 : -2147483648));
    const [a, b] = both(() => new ExactSumState(0, false, { fn: 'sum', scale: 0 }, 's'), { values: { length: n, numbers, words: null, bytes: null, nulls }, nulls }, n);
    expect(b).toBe(a);
    for (const [width, unsigned] of [[2, false], [2, true], [4, false]] as const) {
      // extreme words, but a 128-bit value's top word small enough that 2^20 of them fit 128 bits
      const words = new Int32Array(n * width).map((_, i) => (width === 4 && i % 4 === 3 ? rng.int(-3, 3) : rng.int(0, 2) === 0 ? -1 : rng.int(0, 2) === 0 ? 0x7fffffff : -0x80000000));
      const [x, y] = both(() => new ExactSumState(width, unsigned, { fn: 'sum', scale: 2 }, 's'), { values: { length: n, numbers: null, words, bytes: null, nulls }, nulls }, n);
      expect(y).toBe(x);
    }
  });

  it('double sums, in input order', () => {
    const numbers = new Float64Array(n).map(() => rng.int(-1e6, 1e6) / 7);
    const [a, b] = both(() => new FloatSumState('sum'), { values: { length: n, numbers, words: null, bytes: null, nulls }, nulls }, n);
    expect(b).toBe(a);
  });

  it('grouped decimal sums, small values on the one-limb path and wide ones on the four-word path, equal BigInt sums', () => {
    const m = 200_003;
    const words = new Int32Array(4 * m);
    const groups = new Int32Array(m);
    const expected = [0n, 0n, 0n];
    for (let r = 0; r < m; r++) {
      const small = rng.int(0, 9) !== 0;
      let v = small ? BigInt(rng.int(-4503599627370495, 4503599627370495) % 2 ** 52) : BigInt(rng.int(-(2 ** 30), 2 ** 30)) * 10n ** 25n + BigInt(rng.int(0, 2 ** 31));
      if (r % 1000 === 7) v = -(2n ** 52n) + 1n;
      for (let j = 0; j < 4; j++) words[4 * r + j] = Number(BigInt.asIntN(32, v >> BigInt(32 * j)));
      groups[r] = r % 3;
      expected[r % 3]! += v;
    }
    const state = new ExactSumState(4, false, { fn: 'sum', scale: 0 }, 's');
    state.resize(3);
    state.update({ values: { length: m, numbers: null, words, bytes: null, nulls: null }, nulls: null }, groups, null, m);
    const out = state.finish(0, 3).values as Uint32Array;
    for (let g = 0; g < 3; g++) {
      let got = 0n;
      for (let j = 3; j >= 0; j--) got = (got << 32n) | BigInt(out[4 * g + j]!);
      expect(BigInt.asIntN(128, got)).toBe(expected[g]);
    }
  });
});
