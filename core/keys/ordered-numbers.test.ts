import * as arrow from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { Rng } from '../random.ts';
import { normalizeKeyColumn } from './normalize.ts';
import { makeSortComparator, type KeySortOrder } from './order.ts';
import { numberGroupEnd, orderedNumbers } from './ordered-numbers.ts';
import { keyKindOf } from './resolve.ts';

const ORDERS: KeySortOrder[] = [
  { descending: false, nullsFirst: false },
  { descending: false, nullsFirst: true },
  { descending: true, nullsFirst: false },
  { descending: true, nullsFirst: true },
];

function column(type: arrow.DataType, values: unknown[]) {
  const v = arrow.vectorFromArray(values as never[], type as never) as arrow.Vector;
  return normalizeKeyColumn(v, keyKindOf(type, 'k'), 'k');
}

describe('orderedNumbers', () => {
  const rng = new Rng(5);
  const cases: [string, arrow.DataType, () => unknown][] = [
    ['int32', new arrow.Int32(), () => rng.int(-5, 5)],
    ['int64', new arrow.Int64(), () => BigInt(rng.int(-3, 3)) * 2n ** 33n + BigInt(rng.int(0, 3))],
    ['uint64', new arrow.Uint64(), () => BigInt(rng.int(0, 3)) * 2n ** 40n + BigInt(rng.int(0, 2))],
    ['float64', new arrow.Float64(), () => rng.pick([-0, 0, 1.5, -2, 1e300, -1e-300, -1.7976931348623157e308])],
    ['bool', new arrow.Bool(), () => rng.chance(0.5)],
    ['date', new arrow.DateDay(), () => new Date(Date.UTC(2000, 0, rng.int(1, 5)))],
  ];
  for (const [name, type, value] of cases) {
    it(`${name}: < and === agree with the sort comparator under every order, NULLs included`, () => {
      for (let round = 0; round < 20; round++) {
        const values = Array.from({ length: rng.int(1, 30) }, () => (rng.chance(0.2) ? null : value()));
        const col = column(type, values);
        for (const o of ORDERS) {
          const nums = orderedNumbers(col, o);
          expect(nums, `${name} must have numbers`).not.toBeNull();
          const cmp = makeSortComparator([col], [col], [o]);
          for (let i = 0; i < values.length; i++) {
            for (let j = 0; j < values.length; j++) {
              const c = Math.sign(cmp.compare(i, j)) || 0;
              const a = nums![i]!;
              const b = nums![j]!;
              expect(a < b ? -1 : a > b ? 1 : 0, `${name} ${JSON.stringify(o)} rows ${i}, ${j}`).toBe(c);
            }
          }
        }
      }
    });
  }

  it('has no numbers for NaN, ±Inf, ints past 2^53, decimals and strings', () => {
    const o = ORDERS[0]!;
    expect(orderedNumbers(column(new arrow.Float64(), [1, NaN]), o)).toBeNull();
    expect(orderedNumbers(column(new arrow.Float64(), [Infinity, null]), o)).toBeNull();
    expect(orderedNumbers(column(new arrow.Float64(), [Infinity, 2]), o)).toBeNull(); // an infinity always means NULL
    expect(orderedNumbers(column(new arrow.Int64(), [2n ** 53n + 1n]), o)).toBeNull();
    expect(orderedNumbers(column(new arrow.Utf8(), ['a']), o)).toBeNull();
  });

  it('numberGroupEnd finds each run end', () => {
    const nums = Float64Array.from([1, 1, 2, 3, 3, 3, 3, Infinity, Infinity]);
    const ends = [2, 2, 3, 7, 7, 7, 7, 9, 9];
    for (let s = 0; s < nums.length; s++) expect(numberGroupEnd(nums, s, nums.length)).toBe(ends[s]);
  });
});
