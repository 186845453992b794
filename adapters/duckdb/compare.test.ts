import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { compareResults, decimalText, formatComparison } from './compare.ts';

const i32 = (v: (number | null)[]) => arrow.vectorFromArray(v, new arrow.Int32());
const i64 = (v: (bigint | null)[]) => arrow.vectorFromArray(v, new arrow.Int64());
const f64 = (v: (number | null)[]) => arrow.vectorFromArray(v, new arrow.Float64());
const str = (v: (string | null)[]) => arrow.vectorFromArray(v, new arrow.Utf8());

function ts(unit: arrow.TimeUnit, values: bigint[], tz?: string) {
  const type = new arrow.Timestamp(unit, tz ?? null);
  return arrow.makeVector(arrow.makeData({ type, length: values.length, nullCount: 0, data: BigInt64Array.from(values) }));
}

function dec(precision: number, scale: number, scaled: bigint[]) {
  const words = new Uint32Array(scaled.length * 4);
  scaled.forEach((v, i) => {
    let x = BigInt.asUintN(128, v);
    for (let k = 0; k < 4; k++, x >>= 32n) words[i * 4 + k] = Number(x & 0xffffffffn);
  });
  return arrow.makeVector(arrow.makeData({ type: new arrow.Decimal(scale, precision, 128), length: scaled.length, nullCount: 0, data: words }));
}

describe('compareResults', () => {
  it('ignores row order and batch boundaries', () => {
    const a = new arrow.Table({ k: i32([1, 2, 3, null]), s: str(['a', 'b', 'c', 'd']) });
    const b = new arrow.Table({ k: i32([null, 3, 1, 2]), s: str(['d', 'c', 'a', 'b']) });
    const rebatched = new arrow.Table([...b.slice(0, 1).batches, ...b.slice(1, 4).batches]);
    const r = compareResults(a, rebatched);
    expect(r).toMatchObject({ equal: true, actualRows: 4, expectedRows: 4, missingCount: 0, extraCount: 0, schemaProblems: [] });
    expect(formatComparison(r)).toMatch(/^MATCH: 4 rows/);
  });

  it('counts duplicates: a row twice vs once is a mismatch', () => {
    const twice = new arrow.Table({ k: i32([7, 7, 8]) });
    const once = new arrow.Table({ k: i32([7, 8]) });
    const r = compareResults(twice, once);
    expect(r.equal).toBe(false);
    expect(r.extra).toEqual([[7]]);
    expect(r.extraCount).toBe(1);
    expect(r.missing).toEqual([]);
    const back = compareResults(once, twice);
    expect(back.missing).toEqual([[7]]);
    expect(back.extra).toEqual([]);
  });

  it('reports missing and extra rows with their values', () => {
    const actual = new arrow.Table({ k: i64([1n, 2n, 2n, null]), s: str(['x', 'y', 'y', null]) });
    const expected = new arrow.Table({ k: i64([1n, 2n, 3n, 9223372036854775807n]), s: str(['x', 'y', 'z', '']) });
    const r = compareResults(actual, expected);
    expect(r.equal).toBe(false);
    expect(r.missingCount).toBe(2);
    expect(r.extraCount).toBe(2);
    expect(r.missing).toEqual(expect.arrayContaining([[3n, 'z'], [9223372036854775807n, '']]));
    expect(r.extra).toEqual(expect.arrayContaining([[2n, 'y'], [null, null]]));
    const text = formatComparison(r);
    expect(text).toContain('MISMATCH: actual 4 rows, expected 4 rows');
    expect(text).toContain('missing (in expected, not in actual): 2 rows');
    expect(text).toContain('(9223372036854775807, "")');
    expect(text).toContain('extra (in actual, not in expected): 2 rows');
    expect(text).toContain('(NULL, NULL)');
  });

  it('NULL is distinct from 0, from the empty string and from NaN', () => {
    expect(compareResults(new arrow.Table({ k: i32([null]) }), new arrow.Table({ k: i32([0]) })).equal).toBe(false);
    expect(compareResults(new arrow.Table({ s: str([null]) }), new arrow.Table({ s: str(['']) })).equal).toBe(false);
    expect(compareResults(new arrow.Table({ s: str(['N']) }), new arrow.Table({ s: str([null]) })).equal).toBe(false);
    expect(compareResults(new arrow.Table({ f: f64([null]) }), new arrow.Table({ f: f64([NaN]) })).equal).toBe(false);
  });

  it('floats: -0.0 equals 0.0, NaNs are equal, tolerance is opt-in', () => {
    const a = new arrow.Table({ f: f64([-0, NaN, 0.1 + 0.2, Infinity]) });
    const b = new arrow.Table({ f: f64([0, -NaN, 0.30000000000000004, Infinity]) });
    expect(compareResults(a, b).equal).toBe(true);
    const c = new arrow.Table({ f: f64([0, NaN, 0.3, Infinity]) });
    expect(compareResults(a, c).equal).toBe(false);
    expect(compareResults(a, c, { floatTolerance: 1e-12 }).equal).toBe(true);
    // A Float32 NaN with another payload is still NaN.
    const f32 = arrow.makeVector(new Float32Array(new Uint32Array([0x7fc00001, 0xffc00000]).buffer));
    expect(compareResults(new arrow.Table({ f: f32 }), new arrow.Table({ f: f64([NaN, NaN]) })).equal).toBe(true);
  });

  it('integers of any width and decimals of any scale compare by value', () => {
    const a = new arrow.Table({ n: i32([5, -1, 0]) });
    const b = new arrow.Table({ n: i64([0n, 5n, -1n]) });
    expect(compareResults(a, b).equal).toBe(true);
    const d1 = new arrow.Table({ d: dec(10, 2, [150n, -5n, 0n]) }); // 1.50, -0.05, 0.00
    const d2 = new arrow.Table({ d: dec(12, 3, [1500n, -50n, 0n]) }); // 1.500, -0.050, 0.000
    expect(compareResults(d1, d2).equal).toBe(true);
    const d3 = new arrow.Table({ d: dec(12, 3, [1501n, -50n, 0n]) });
    const r = compareResults(d1, d3);
    expect(r.equal).toBe(false);
    expect(r.missing).toEqual([['1.501']]);
    expect(r.extra).toEqual([['1.50']]);
    expect(decimalText(-5n, 2, false)).toBe('-0.05');
    expect(decimalText(12345n, 0, true)).toBe('12345');
  });

  it('timestamps compare by instant across units and zones; dates across Date32/Date64', () => {
    const U = arrow.TimeUnit;
    const s = new arrow.Table({ t: ts(U.SECOND, [1_700_000_000n, -1n]) });
    const us = new arrow.Table({ t: ts(U.MICROSECOND, [-1_000_000n, 1_700_000_000_000_000n]) });
    const tz = new arrow.Table({ t: ts(U.NANOSECOND, [1_700_000_000_000_000_000n, -1_000_000_000n], 'UTC') });
    expect(compareResults(s, us).equal).toBe(true);
    expect(compareResults(s, tz).equal).toBe(true);
    const off = new arrow.Table({ t: ts(U.MICROSECOND, [-1_000_000n, 1_700_000_000_000_001n]) });
    const r = compareResults(s, off);
    expect(r.equal).toBe(false);
    expect(r.missing).toEqual([['2023-11-14T22:13:20.000001Z']]);

    const d32 = new arrow.Table({ d: arrow.makeVector(arrow.makeData({ type: new arrow.DateDay(), length: 2, nullCount: 0, data: Int32Array.from([0, 19000]) })) });
    const d64 = new arrow.Table({
      d: arrow.makeVector(arrow.makeData({ type: new arrow.DateMillisecond(), length: 2, nullCount: 0, data: BigInt64Array.from([19000n * 86_400_000n, 0n]) })),
    });
    expect(compareResults(d32, d64).equal).toBe(true);
  });

  it('decodes dictionaries and compares binary by bytes', () => {
    const dict = new arrow.Table({ s: arrow.vectorFromArray(['a', 'b', null, 'a'], new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32())) });
    expect(compareResults(dict, new arrow.Table({ s: str(['a', 'a', 'b', null]) })).equal).toBe(true);
    const bin = (v: (Uint8Array | null)[]) => new arrow.Table({ b: arrow.vectorFromArray(v, new arrow.Binary()) });
    expect(compareResults(bin([new Uint8Array([1, 2]), null]), bin([null, new Uint8Array([1, 2])])).equal).toBe(true);
    const r = compareResults(bin([new Uint8Array([1, 2])]), bin([new Uint8Array([1, 3])]));
    expect(r.extra).toEqual([['0x0102']]);
  });

  it('reports schema problems: names, counts, incompatible types', () => {
    const a = new arrow.Table({ k: i32([1]), v: i32([2]) });
    expect(compareResults(a, new arrow.Table({ k: i32([1]), w: i32([2]) })).schemaProblems).toEqual([
      "column 1: actual name 'v', expected 'w'",
    ]);
    const fewer = compareResults(a, new arrow.Table({ k: i32([1]) }));
    expect(fewer.equal).toBe(false);
    expect(fewer.schemaProblems[0]).toMatch(/column count differs: actual 2 \(k, v\), expected 1 \(k\)/);
    const typed = compareResults(new arrow.Table({ k: i32([1]) }), new arrow.Table({ k: str(['1']) }));
    expect(typed.equal).toBe(false);
    expect(typed.schemaProblems[0]).toMatch(/actual type Int32 \(exact\) cannot equal expected type Utf8 \(string\)/);
    expect(formatComparison(typed)).toContain('schema problems:');
  });

  it('reports at most maxReported rows of each kind, with exact counts', () => {
    const many = new arrow.Table({ k: i32(Array.from({ length: 30 }, (_, i) => i)) });
    const none = new arrow.Table({ k: i32([]) });
    const r = compareResults(many, none);
    expect(r.extraCount).toBe(30);
    expect(r.extra).toHaveLength(20);
    expect(formatComparison(r)).toContain('30 rows (showing 20)');
    expect(compareResults(none, many, { maxReported: 3 }).missing).toHaveLength(3);
  });

  it('strings are length-prefixed, so separators inside values cannot fake a match', () => {
    const a = new arrow.Table({ x: str(['a\u0001s1:b']), y: str(['c']) });
    const b = new arrow.Table({ x: str(['a']), y: str(['b\u0001s1:c']) });
    expect(compareResults(a, b).equal).toBe(false);
  });
});
