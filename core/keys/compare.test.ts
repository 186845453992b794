import fc from 'fast-check';
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Float32,
  Float64,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Uint64,
  Utf8,
  makeBuilder,
  makeData,
  makeVector,
} from 'apache-arrow';
import type { DataType, Vector } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { compareRowsWithin, makeKeyComparator } from './compare.ts';
import { normalizeKeyColumn } from './normalize.ts';
import { keyKindOf, resolveKeyKind } from './resolve.ts';
import type { KeyColumn, KeyKind } from './types.ts';

function build<T extends DataType>(type: T, values: readonly unknown[]): Vector<T> {
  const b = makeBuilder({ type, nullValues: [null, undefined] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector() as Vector<T>;
}
const norm = (type: DataType, values: readonly unknown[], kind: KeyKind = keyKindOf(type, 'k')): KeyColumn =>
  normalizeKeyColumn(build(type, values), kind);

function big64(type: DataType, values: readonly bigint[]): Vector {
  return makeVector(makeData({ type, data: new BigInt64Array(values), length: values.length } as never));
}

function decimalVector(values: readonly bigint[], scale: number, precision: number): Vector {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    let u = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++) {
      words[i * 4 + k] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  });
  return makeVector(makeData({ type: new Decimal(scale, precision, 128), data: words, length: values.length }));
}

const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

/** Every pair (i, j) of `a` x `b` compares like `expected(i, j)`, and equal agrees with it. */
function expectOrder(a: KeyColumn[], b: KeyColumn[], expected: (i: number, j: number) => number): void {
  const cmp = makeKeyComparator(a, b);
  for (let i = 0; i < a[0]!.length; i++) {
    for (let j = 0; j < b[0]!.length; j++) {
      const want = expected(i, j);
      expect(sign(cmp.compare(i, j)), `compare(${i}, ${j})`).toBe(want);
      expect(cmp.equal(i, j), `equal(${i}, ${j})`).toBe(want === 0);
    }
  }
}

/** Rows are listed in ascending order; `ties` holds groups of indices that are equal. */
function expectAscending(col: KeyColumn, ties: number[][] = []): void {
  const rank = Array.from({ length: col.length }, (_, i) => i);
  for (const group of ties) for (const i of group) rank[i] = group[0]!;
  expectOrder([col], [col], (i, j) => sign(rank[i]! - rank[j]!));
}

describe('makeKeyComparator', () => {
  it('orders signed 64-bit integers (property, against BigInt)', () => {
    const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    fc.assert(
      fc.property(fc.array(i64, { minLength: 1, maxLength: 20 }), fc.array(i64, { minLength: 1, maxLength: 20 }), (xs, ys) => {
        const a = norm(new Int64(), xs);
        const b = norm(new Int64(), ys);
        const cmp = makeKeyComparator([a], [b]);
        for (let i = 0; i < xs.length; i++) {
          for (let j = 0; j < ys.length; j++) {
            const want = xs[i]! < ys[j]! ? -1 : xs[i]! > ys[j]! ? 1 : 0;
            if (sign(cmp.compare(i, j)) !== want || cmp.equal(i, j) !== (want === 0)) return false;
          }
        }
        return true;
      }),
      { seed: 1234, numRuns: 200 },
    );
  });

  it('compares integers of different widths through the common kind', () => {
    const kind = resolveKeyKind(new Int8(), new Int64(), 'a', 'b');
    const a = norm(new Int8(), [-128, -1, 0, 127], kind);
    const bValues = [-(2n ** 40n), -1n, 0n, 127n, 2n ** 40n];
    const b = norm(new Int64(), bValues, kind);
    const av = [-128n, -1n, 0n, 127n];
    expectOrder([a], [b], (i, j) => (av[i]! < bValues[j]! ? -1 : av[i]! > bValues[j]! ? 1 : 0));
  });

  it('orders UInt64 above 2^63 against negative Int64 (HUGEINT)', () => {
    const kind = resolveKeyKind(new Uint64(), new Int64(), 'u', 's');
    const uv = [0n, 5n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n];
    const sv = [-(2n ** 63n), -1n, 0n, 5n, 2n ** 63n - 1n];
    expectOrder([norm(new Uint64(), uv, kind)], [norm(new Int64(), sv, kind)], (i, j) => (uv[i]! < sv[j]! ? -1 : uv[i]! > sv[j]! ? 1 : 0));
  });

  it('orders unsigned 64-bit integers', () => {
    expectAscending(norm(new Uint64(), [0n, 1n, 2n ** 31n, 2n ** 32n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n]));
  });

  it('orders floats like DuckDB: -0 == 0, NaN == NaN, NaN above +Inf', () => {
    const values = [-Infinity, -1e308, -1, -Number.MIN_VALUE, -0, 0, Number.MIN_VALUE, 0.5, 1, 1e308, Infinity, NaN, NaN];
    expectAscending(norm(new Float64(), values), [
      [4, 5],
      [11, 12],
    ]);
    const kind = resolveKeyKind(new Float32(), new Float64(), 'a', 'b');
    const f32 = norm(new Float32(), [NaN, -0, 0.5], kind);
    const f64 = norm(new Float64(), [0, NaN, 0.5, Infinity], kind);
    const x = [NaN, 0, 0.5];
    const y = [0, NaN, 0.5, Infinity];
    const order = (u: number, v: number) => (Number.isNaN(u) ? (Number.isNaN(v) ? 0 : 1) : Number.isNaN(v) ? -1 : sign(u - v));
    expectOrder([f32], [f64], (i, j) => order(x[i]!, y[j]!));
  });

  it('orders booleans false < true', () => {
    expectAscending(norm(new Bool(), [false, false, true]), [[0, 1]]);
  });

  it('orders 128-bit decimals, rescaled to a common scale', () => {
    const big = 10n ** 37n;
    expectAscending(normalizeKeyColumn(decimalVector([-big, -(2n ** 64n), -1n, 0n, 1n, 2n ** 32n, 2n ** 64n, big], 0, 38), keyKindOf(new Decimal(0, 38, 128), 'd')));
    const kind = resolveKeyKind(new Decimal(2, 10, 128), new Decimal(5, 12, 128), 'a', 'b');
    const a = normalizeKeyColumn(decimalVector([150n, -150n, 1n], 2, 10), kind); // 1.50, -1.50, 0.01
    const b = normalizeKeyColumn(decimalVector([150000n, 1000n, -150001n], 5, 12), kind); // 1.5, 0.01, -1.50001
    const av = [1.5, -1.5, 0.01];
    const bv = [1.5, 0.01, -1.50001];
    expectOrder([a], [b], (i, j) => sign(av[i]! - bv[j]!));
  });

  it('compares decimals with integers', () => {
    const kind = resolveKeyKind(new Decimal(2, 10, 128), new Int32(), 'a', 'b');
    const a = normalizeKeyColumn(decimalVector([300n, 299n, -300n], 2, 10), kind);
    const b = norm(new Int32(), [3, -3], kind);
    const av = [3, 2.99, -3];
    const bv = [3, -3];
    expectOrder([a], [b], (i, j) => sign(av[i]! - bv[j]!));
  });

  it('compares timestamps of different units and dates with timestamps', () => {
    const kind = resolveKeyKind(new TimestampSecond(), new TimestampMillisecond(), 'a', 'b');
    const a = normalizeKeyColumn(big64(new TimestampSecond(), [1n, -1n, 0n]), kind);
    const b = normalizeKeyColumn(big64(new TimestampMillisecond(), [1000n, 999n, -1000n, -1001n]), kind);
    const av = [1000, -1000, 0];
    const bv = [1000, 999, -1000, -1001];
    expectOrder([a], [b], (i, j) => sign(av[i]! - bv[j]!));
    const ns = resolveKeyKind(new DateDay(), new TimestampNanosecond(), 'd', 't');
    const d = normalizeKeyColumn(build(new DateDay(), [new Date(86_400_000)]), ns);
    const t = normalizeKeyColumn(big64(new TimestampNanosecond(), [86_400_000_000_000n, 86_400_000_000_001n]), ns);
    expectOrder([d], [t], (_i, j) => (j === 0 ? 0 : -1));
  });

  it('orders strings byte-wise: shared prefixes, empty, non-ASCII', () => {
    const values = ['', 'a', 'ab', 'abc', 'abd', 'b', 'z', 'é', 'éa', '日本'];
    expectAscending(norm(new Utf8(), values));
    const kind = keyKindOf(new Utf8(), 's');
    const dict = norm(new Dictionary(new Utf8(), new Int32()), ['abd', 'ab', 'é', 'ab'], kind);
    const large = norm(new LargeUtf8(), ['ab', 'abc', 'é'], kind);
    const x = ['abd', 'ab', 'é', 'ab'];
    const y = ['ab', 'abc', 'é'];
    const bytes = (s: string) => Buffer.from(s, 'utf8');
    expectOrder([dict], [large], (i, j) => sign(Buffer.compare(bytes(x[i]!), bytes(y[j]!))));
  });

  it('orders binary values as unsigned bytes', () => {
    const values = [[], [0], [0, 0], [0, 255], [1], [127], [128], [255], [255, 0]].map((b) => new Uint8Array(b));
    expectAscending(norm(new Binary(), values));
  });

  it('compares multi-column keys lexicographically', () => {
    const a = [norm(new Int32(), [1, 1, 2, 2]), norm(new Utf8(), ['b', 'a', 'a', 'b'])];
    const cmp = makeKeyComparator(a, a);
    expect(sign(cmp.compare(0, 1))).toBe(1);
    expect(sign(cmp.compare(1, 2))).toBe(-1);
    expect(sign(cmp.compare(3, 2))).toBe(1);
    expect(cmp.equal(0, 0)).toBe(true);
    expect(cmp.equal(0, 3)).toBe(false);
    const three = [...a, norm(new Bool(), [true, true, false, false])];
    const c3 = makeKeyComparator(three, three);
    expect(sign(c3.compare(0, 1))).toBe(1);
    expect(c3.equal(2, 2)).toBe(true);
    expect(c3.equal(2, 3)).toBe(false);
  });

  it('rejects columns normalised to different kinds', () => {
    expect(() => makeKeyComparator([norm(new Int32(), [1])], [norm(new Utf8(), ['1'])])).toThrow(/different kinds/);
    expect(() => makeKeyComparator([norm(new Int32(), [1])], [])).toThrow(/arity/);
  });
});

describe('compareRowsWithin', () => {
  it('sorts one side', () => {
    const cols = [norm(new Utf8(), ['b', 'a', 'b', 'a']), norm(new Int64(), [2n, 9n, -1n, -3n])];
    const order = [0, 1, 2, 3].sort((i, j) => compareRowsWithin(cols, i, j));
    expect(order).toEqual([3, 1, 2, 0]);
  });
});
