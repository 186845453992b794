/**
 * The sort comparator (`order.ts`) and argsort (`argsort.ts`) against a brute-force reference: the
 * decoded JS values sorted by an explicit reference order per logical type (Array.prototype.sort is
 * stable, so ties keep the input order), on random data of every key kind with extreme values,
 * NULLs and many duplicates, every direction x NULL placement, 0/1/odd sizes around the radix
 * threshold, both algorithms, multi-column keys and the `rows` argument.
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Dictionary,
  Float32,
  Float64,
  Int16,
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
import { Rng } from '../random.ts';
import { ARGSORT_SLICE, RADIX_MIN_ROWS, argsortKeys, argsortKeysPaced, canRadixSort } from './argsort.ts';
import type { ArgsortMethod } from './argsort.ts';
import { makeKeyComparator } from './compare.ts';
import { normalizeKeyColumn } from './normalize.ts';
import { ASC_NULLS_LAST, defaultSortOrders, isSorted, makeSortComparator } from './order.ts';
import type { KeySortOrder } from './order.ts';
import { keyKindOf, resolveKeyKind } from './resolve.ts';
import type { KeyColumn, KeyKind } from './types.ts';

type Value = number | bigint | boolean | string | Uint8Array;
type RefOrder = (a: Value, b: Value) => number;

const num: RefOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const float: RefOrder = (a, b) => {
  const x = a as number;
  const y = b as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
  if (Number.isNaN(y)) return -1;
  return x < y ? -1 : x > y ? 1 : 0; // -0 == 0
};
const bool: RefOrder = (a, b) => Number(a) - Number(b);
const encoded = new Map<string, Buffer>();
const utf8Of = (s: string) => {
  let b = encoded.get(s);
  if (b === undefined) encoded.set(s, (b = Buffer.from(s, 'utf8')));
  return b;
};
/** UTF-8 byte order (not JS's UTF-16 code unit order: they differ above U+FFFF and for U+E000..). */
const utf8: RefOrder = (a, b) => Buffer.compare(utf8Of(a as string), utf8Of(b as string));
const bytes: RefOrder = (a, b) => Buffer.compare(a as Uint8Array, b as Uint8Array);

interface KindSpec {
  readonly name: string;
  readonly type: DataType;
  /** The common kind, when not the type's own (widened keys). */
  readonly kind?: KeyKind;
  readonly gen: (rng: Rng) => Value;
  readonly ref: RefOrder;
  /** How to build the vector; default makeBuilder. */
  readonly vector?: (values: readonly (Value | null)[]) => Vector;
}

const pick = <T,>(rng: Rng, pool: readonly T[], random: () => T): T => (rng.chance(0.6) ? rng.pick(pool) : random());
const bigRandom = (rng: Rng, bits: number): bigint => {
  let v = 0n;
  for (let b = 0; b < bits; b += 16) v = (v << 16n) | BigInt(rng.int(0, 0xffff));
  return v;
};

function bitmap(values: readonly unknown[]): { nullBitmap: Uint8Array | null; nullCount: number } {
  const bm = new Uint8Array((values.length + 7) >> 3);
  let nullCount = 0;
  values.forEach((v, i) => {
    if (v === null) nullCount++;
    else bm[i >> 3]! |= 1 << (i & 7);
  });
  return { nullBitmap: nullCount ? bm : null, nullCount };
}
function fixedVector(type: DataType, data: ArrayBufferView, values: readonly unknown[]): Vector {
  return makeVector(makeData({ type, length: values.length, data, ...bitmap(values) } as never));
}
const big64Vector = (type: DataType) => (values: readonly (Value | null)[]) =>
  fixedVector(type, BigInt64Array.from(values, (v) => (v === null ? 0n : (v as bigint))), values);
const int32Vector = (type: DataType) => (values: readonly (Value | null)[]) =>
  fixedVector(type, Int32Array.from(values, (v) => (v === null ? 0 : (v as number))), values);
function decimalVector(values: readonly (Value | null)[]): Vector {
  const words = new Uint32Array(values.length * 4);
  values.forEach((v, i) => {
    let u = BigInt.asUintN(128, (v ?? 0n) as bigint);
    for (let k = 0; k < 4; k++) {
      words[i * 4 + k] = Number(u & 0xffffffffn);
      u >>= 32n;
    }
  });
  return fixedVector(new Decimal(4, 38, 128), words, values);
}

const STRINGS = ['', 'a', 'ab', 'abc', 'abd', 'b', 'ba', 'A', 'é', 'éa', 'e', '日本', 'a\u0000', 'a\u0000b', 'zz'];
const randomString = (rng: Rng) => Array.from({ length: rng.int(0, 4) }, () => rng.pick(['a', 'b', 'é', '\u0000'])).join('');
const I64_POOL = [-(2n ** 63n), -(2n ** 63n) + 1n, -(2n ** 32n), -(2n ** 31n), -1n, 0n, 1n, 2n ** 31n, 2n ** 32n, 2n ** 63n - 1n];
const U64_POOL = [0n, 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 63n + 1n, 2n ** 64n - 1n];
const F64_POOL = [NaN, -0, 0, Infinity, -Infinity, Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE, 1, -1, 0.5];
const F32_POOL = [NaN, -0, 0, Infinity, -Infinity, Math.fround(3.4e38), Math.fround(-3.4e38), Math.fround(1e-45), Math.fround(-1e-45), 1, -1, 0.5];
const D38 = 10n ** 38n - 1n;
const DEC_POOL = [-D38, D38, -(2n ** 96n), 2n ** 96n, -(2n ** 64n), 2n ** 64n, -(2n ** 32n), 2n ** 32n, -1n, 0n, 1n];

const KINDS: readonly KindSpec[] = [
  { name: 'int8', type: new Int8(), gen: (r) => pick(r, [-128, -127, -1, 0, 1, 127], () => r.int(-128, 127)), ref: num },
  { name: 'int16', type: new Int16(), gen: (r) => pick(r, [-32768, -1, 0, 1, 32767], () => r.int(-32768, 32767)), ref: num },
  { name: 'int32', type: new Int32(), gen: (r) => pick(r, [-(2 ** 31), -1, 0, 1, 2 ** 31 - 1, 65536, -65536], () => r.int(-(2 ** 31), 2 ** 31 - 1)), ref: num },
  { name: 'int64', type: new Int64(), gen: (r) => pick(r, I64_POOL, () => BigInt.asIntN(64, bigRandom(r, 64))), ref: num },
  { name: 'uint64', type: new Uint64(), gen: (r) => pick(r, U64_POOL, () => bigRandom(r, 64)), ref: num },
  {
    name: 'uint64 as HUGEINT (with int64)',
    type: new Uint64(),
    kind: resolveKeyKind(new Uint64(), new Int64(), 'u', 's'),
    gen: (r) => pick(r, U64_POOL, () => bigRandom(r, 64)),
    ref: num,
  },
  { name: 'int8 as BIGINT (with int64)', type: new Int8(), kind: resolveKeyKind(new Int8(), new Int64(), 'a', 'b'), gen: (r) => r.int(-128, 127), ref: num },
  { name: 'float32', type: new Float32(), gen: (r) => pick(r, F32_POOL, () => Math.fround((r.next() - 0.5) * 10 ** r.int(-40, 38))), ref: float },
  { name: 'float64', type: new Float64(), gen: (r) => pick(r, F64_POOL, () => (r.next() - 0.5) * 10 ** r.int(-300, 300)), ref: float },
  { name: 'float32 as DOUBLE (with float64)', type: new Float32(), kind: resolveKeyKind(new Float32(), new Float64(), 'a', 'b'), gen: (r) => r.pick(F32_POOL), ref: float },
  { name: 'decimal(38,4)', type: new Decimal(4, 38, 128), gen: (r) => pick(r, DEC_POOL, () => (r.chance(0.5) ? -1n : 1n) * (bigRandom(r, 120) % (D38 + 1n))), ref: num, vector: decimalVector },
  { name: 'bool', type: new Bool(), gen: (r) => r.chance(0.5), ref: bool },
  { name: 'utf8', type: new Utf8(), gen: (r) => pick(r, STRINGS, () => randomString(r)), ref: utf8 },
  { name: 'large-utf8', type: new LargeUtf8(), gen: (r) => pick(r, STRINGS, () => randomString(r)), ref: utf8 },
  { name: 'dict-utf8', type: new Dictionary(new Utf8(), new Int32()), gen: (r) => pick(r, STRINGS, () => randomString(r)), ref: utf8 },
  { name: 'binary', type: new Binary(), gen: (r) => Uint8Array.from({ length: r.int(0, 3) }, () => r.pick([0, 1, 127, 128, 255])), ref: bytes },
  { name: 'date32', type: new DateDay(), gen: (r) => pick(r, [-(2 ** 31), -1, 0, 1, 2 ** 31 - 1], () => r.int(-100000, 100000)), ref: num, vector: int32Vector(new DateDay()) },
  { name: 'timestamp(s)', type: new TimestampSecond(), gen: (r) => pick(r, [-(10n ** 11n), -1n, 0n, 1n, 10n ** 11n], () => BigInt(r.int(-1e9, 1e9))), ref: num, vector: big64Vector(new TimestampSecond()) },
  {
    name: 'timestamp(s) as ms (with ms)',
    type: new TimestampSecond(),
    kind: resolveKeyKind(new TimestampSecond(), new TimestampMillisecond(), 'a', 'b'),
    gen: (r) => BigInt(r.int(-1e9, 1e9)),
    ref: num,
    vector: big64Vector(new TimestampSecond()),
  },
  { name: 'timestamp(ns)', type: new TimestampNanosecond(), gen: (r) => pick(r, I64_POOL, () => BigInt.asIntN(64, bigRandom(r, 64))), ref: num, vector: big64Vector(new TimestampNanosecond()) },
];

interface Col {
  readonly spec: KindSpec;
  readonly values: (Value | null)[];
  readonly key: KeyColumn;
}

function buildVector(spec: KindSpec, values: readonly (Value | null)[]): Vector {
  if (spec.vector) return spec.vector(values);
  const b = makeBuilder({ type: spec.type, nullValues: [null, undefined] });
  for (const v of values) b.append(v as never);
  return b.finish().toVector();
}

/** `n` random values (a pool of `distinct` drawn values, for duplicates) with NULLs at `nullRate`. */
function randomCol(rng: Rng, spec: KindSpec, n: number, nullRate: number, distinct = Math.max(1, Math.ceil(n / 3)), fresh = 0.2): Col {
  const pool = Array.from({ length: distinct }, () => spec.gen(rng));
  const values = Array.from({ length: n }, () => (rng.chance(nullRate) ? null : rng.chance(fresh) ? spec.gen(rng) : rng.pick(pool)));
  return colOf(spec, values);
}

function colOf(spec: KindSpec, values: (Value | null)[]): Col {
  const key = normalizeKeyColumn(buildVector(spec, values), spec.kind ?? keyKindOf(spec.type, spec.name), spec.name);
  return { spec, values, key };
}

function refCompare(a: readonly Col[], b: readonly Col[], orders: readonly KeySortOrder[], i: number, j: number): number {
  for (let k = 0; k < a.length; k++) {
    const x = a[k]!.values[i]!;
    const y = b[k]!.values[j]!;
    if (x === null && y === null) continue;
    const nullSign = orders[k]!.nullsFirst ? -1 : 1;
    if (x === null) return nullSign;
    if (y === null) return -nullSign;
    const c = Math.sign(a[k]!.spec.ref(x, y));
    if (c !== 0) return orders[k]!.descending ? -c : c;
  }
  return 0;
}

function refArgsort(cols: readonly Col[], orders: readonly KeySortOrder[], rows: readonly number[]): number[] {
  return [...rows].sort((i, j) => refCompare(cols, cols, orders, i, j));
}

const ALL_ORDERS: readonly KeySortOrder[] = [
  { descending: false, nullsFirst: false },
  { descending: false, nullsFirst: true },
  { descending: true, nullsFirst: false },
  { descending: true, nullsFirst: true },
];
const describeOrders = (orders: readonly KeySortOrder[]) => orders.map((o) => `${o.descending ? 'DESC' : 'ASC'} NULLS ${o.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');
const SIZES = [0, 1, 2, 3, 7, 16, 17, 33, RADIX_MIN_ROWS - 1, RADIX_MIN_ROWS, RADIX_MIN_ROWS + 1, 129, 517];

function methodsFor(keys: readonly KeyColumn[], rows: number): ArgsortMethod[] {
  return canRadixSort(keys, rows) ? ['auto', 'merge', 'radix'] : ['auto', 'merge'];
}

function expectArgsort(cols: readonly Col[], orders: readonly KeySortOrder[], label: string, rows?: number[]): void {
  const keys = cols.map((c) => c.key);
  const n = keys[0]?.length ?? 0;
  const input = rows ?? Array.from({ length: n }, (_, i) => i);
  const want = refArgsort(cols, orders, input);
  for (const method of methodsFor(keys, input.length)) {
    const got = argsortKeys(keys, orders, rows ? Int32Array.from(rows) : undefined, method);
    expect(Array.from(got), `${label} ${method} [${describeOrders(orders)}]`).toEqual(want);
    expect(isSorted(keys, orders, got), `${label} isSorted`).toBe(true);
  }
}

describe('argsortKeys vs a brute-force reference', () => {
  it('sorts one column of every key kind, every direction and NULL placement, stably', () => {
    const rng = new Rng(20240610);
    for (const spec of KINDS) {
      for (const n of SIZES) {
        for (const nullRate of [0, 0.25]) {
          const col = randomCol(rng, spec, n, nullRate);
          for (const o of ALL_ORDERS) expectArgsort([col], [o], `${spec.name} n=${n} nulls=${nullRate}`);
        }
      }
    }
  });

  it('takes the radix path for radix-sortable keys and the merge path otherwise', () => {
    const rng = new Rng(5);
    const n = 300;
    for (const spec of KINDS) {
      const { key } = randomCol(rng, spec, n, 0.1, 20);
      const radixable = spec.name !== 'utf8' && spec.name !== 'large-utf8' && spec.name !== 'binary';
      expect(canRadixSort([key], n), spec.name).toBe(radixable);
    }
    // a dictionary larger than the rows sorted is not ranked
    const dict = randomCol(rng, KINDS.find((k) => k.name === 'dict-utf8')!, 200, 0, 200).key;
    expect(canRadixSort([dict], 5)).toBe(false);
    expect(() => argsortKeys([randomCol(rng, KINDS.find((k) => k.name === 'utf8')!, 10, 0).key], [ASC_NULLS_LAST], undefined, 'radix')).toThrow(RangeError);
  });

  it('sorts multi-column keys with mixed directions and NULL placements', () => {
    const rng = new Rng(77);
    for (let c = 0; c < 400; c++) {
      const width = rng.int(1, 4);
      const n = rng.chance(0.2) ? rng.int(0, 5) : rng.int(0, 400);
      const distinct = rng.int(1, 8); // few distinct values per column: ties decided by later columns
      const cols = Array.from({ length: width }, () => randomCol(rng, rng.pick(KINDS), n, rng.pick([0, 0.1, 0.5]), distinct));
      const orders = cols.map(() => rng.pick(ALL_ORDERS));
      expectArgsort(cols, orders, `case ${c} (${cols.map((x) => x.spec.name).join(', ')}) n=${n}`);
    }
  });

  it('sorts the rows argument: a shuffled subset with repeats, stably in its order', () => {
    const rng = new Rng(99);
    for (let c = 0; c < 200; c++) {
      const n = rng.int(1, 300);
      const cols = Array.from({ length: rng.int(1, 3) }, () => randomCol(rng, rng.pick(KINDS), n, 0.2, rng.int(1, 10)));
      const orders = cols.map(() => rng.pick(ALL_ORDERS));
      const rows = Array.from({ length: rng.int(0, 2 * n) }, () => rng.int(0, n - 1));
      expectArgsort(cols, orders, `case ${c} rows=${rows.length}`, rows);
    }
  });

  it('keeps input order for all-equal keys, sorted and reverse-sorted input', () => {
    const rng = new Rng(3);
    const int64 = KINDS.find((k) => k.name === 'int64')!;
    const same = randomCol(rng, int64, 500, 0, 1, 0);
    expectArgsort([same], [ASC_NULLS_LAST], 'all equal');
    const sorted = argsortKeys([same.key], [ASC_NULLS_LAST]);
    expect(Array.from(sorted)).toEqual(Array.from({ length: 500 }, (_, i) => i));
    const col = randomCol(rng, int64, 500, 0.1);
    const asc = Array.from(argsortKeys([col.key], [ASC_NULLS_LAST]));
    expectArgsort([col], [ASC_NULLS_LAST], 'sorted input', asc);
    expectArgsort([col], [ASC_NULLS_LAST], 'reverse-sorted input', [...asc].reverse());
    const allNull = randomCol(rng, int64, 100, 1);
    for (const o of ALL_ORDERS) expectArgsort([allNull], [o], 'all NULL');
  });

  it('returns the input order for no key columns and checks its arguments', () => {
    expect(Array.from(argsortKeys([], [], Int32Array.from([2, 0, 1])))).toEqual([2, 0, 1]);
    expect(argsortKeys([], []).length).toBe(0);
    const col = randomCol(new Rng(1), KINDS[0]!, 4, 0).key;
    expect(() => argsortKeys([col], [])).toThrow(/sort orders/);
    const other = randomCol(new Rng(1), KINDS[0]!, 5, 0).key;
    expect(() => argsortKeys([col, other], defaultSortOrders(2))).toThrow(/length/);
    const rows = Int32Array.from([3, 1]);
    const out = argsortKeys([col], [ASC_NULLS_LAST], rows);
    expect(out).not.toBe(rows);
    expect(Array.from(rows)).toEqual([3, 1]);
  });
});

describe('argsortKeysPaced: the same sort in steps, a turn whenever one is due', () => {
  // past two slices, so every loop (histogram, scatter passes, NULL split, run sorts, one merge
  // whose output is longer than a slice) is cut into steps and resumed
  const n = 2 * ARGSORT_SLICE + 123;
  // (toEqual on arrays this long is slow: the first index where they differ, -1 when equal)
  const firstDiff = (a: Int32Array, b: readonly number[]) => (a.length !== b.length ? -2 : a.findIndex((x, i) => x !== b[i]));
  const always = () => {
    const p = { turns: 0, due: () => true, turn: async () => void p.turns++ };
    return p;
  };

  it('sorts stably (as argsortKeys does), radix and merge, with NULLs, DESC, dictionaries, multi-column', { timeout: 60_000 }, async () => {
    const rng = new Rng(31);
    const kind = (name: string) => KINDS.find((k) => k.name === name)!;
    const cases: { cols: Col[]; orders: KeySortOrder[] }[] = [
      { cols: [randomCol(rng, kind('int64'), n, 0.1)], orders: [ALL_ORDERS[3]!] },
      { cols: [randomCol(rng, kind('float64'), n, 0)], orders: [ALL_ORDERS[0]!] },
      { cols: [randomCol(rng, kind('utf8'), n, 0.2, 5000)], orders: [ALL_ORDERS[1]!] },
      { cols: [randomCol(rng, kind('dict-utf8'), n, 0.05, 3000)], orders: [ALL_ORDERS[2]!] },
      { cols: [randomCol(rng, kind('int32'), n, 0.3, 7), randomCol(rng, kind('utf8'), n, 0, 50)], orders: [ALL_ORDERS[3]!, ALL_ORDERS[0]!] },
    ];
    for (const [i, { cols, orders }] of cases.entries()) {
      const keys = cols.map((c) => c.key);
      // sorted, stable and a permutation (the brute-force reference is too slow at this size)
      const sync = argsortKeys(keys, orders);
      const cmp = makeSortComparator(keys, keys, orders).compare;
      let bad = -1;
      const seen = new Uint8Array(n);
      for (let p = 0; p < n; p++) {
        seen[sync[p]!]++;
        if (p > 0 && (cmp(sync[p - 1]!, sync[p]!) > 0 || (cmp(sync[p - 1]!, sync[p]!) === 0 && sync[p - 1]! > sync[p]!))) bad = p;
      }
      expect(bad, `case ${i} sorted and stable`).toBe(-1);
      expect(seen.every((x) => x === 1), `case ${i} a permutation`).toBe(true);
      const want = Array.from(sync);
      for (const method of methodsFor(keys, n)) {
        const label = `case ${i} (${cols.map((c) => c.spec.name).join(', ')}) ${method}`;
        if (method !== 'auto') expect(firstDiff(argsortKeys(keys, orders, undefined, method), want), label).toBe(-1);
        const pacer = always();
        expect(firstDiff(await argsortKeysPaced(keys, orders, pacer, undefined, method), want), `${label} paced`).toBe(-1);
        expect(pacer.turns, label).toBeGreaterThan(2); // each pass is several steps
      }
    }
  });

  it('stops at the first turn that throws (an aborted signal), without finishing the sort', async () => {
    const col = randomCol(new Rng(7), KINDS.find((k) => k.name === 'utf8')!, n, 0, 1000).key;
    let turns = 0;
    const pacer = {
      due: () => true,
      turn: async () => {
        if (++turns === 3) throw new Error('aborted');
      },
    };
    await expect(argsortKeysPaced([col], [ASC_NULLS_LAST], pacer)).rejects.toThrow('aborted');
    expect(turns).toBe(3);
    // a pacer never due: no turn, the same order
    const never = { due: () => false, turn: async () => expect.unreachable() };
    expect(firstDiff(await argsortKeysPaced([col], [ASC_NULLS_LAST], never), Array.from(argsortKeys([col], [ASC_NULLS_LAST])))).toBe(-1);
  });
});

describe('makeSortComparator vs a brute-force reference', () => {
  const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);

  it('compares rows of two batches of every kind, NULL masks on neither, one or both sides', () => {
    const rng = new Rng(4242);
    for (const spec of KINDS) {
      for (const [ra, rb] of [
        [0, 0],
        [0.3, 0],
        [0, 0.3],
        [0.3, 0.3],
      ] as const) {
        const a = randomCol(rng, spec, 25, ra, 6);
        const b = randomCol(rng, spec, 19, rb, 6);
        for (const o of ALL_ORDERS) {
          const cmp = makeSortComparator([a.key], [b.key], [o]);
          const wrong: string[] = [];
          for (let i = 0; i < 25; i++) {
            for (let j = 0; j < 19; j++) {
              const want = refCompare([a], [b], [o], i, j);
              if (sign(cmp.compare(i, j)) !== want || cmp.equal(i, j) !== (want === 0)) {
                wrong.push(`(${String(a.values[i])}, ${String(b.values[j])}): want ${want}, got ${cmp.compare(i, j)}/${cmp.equal(i, j)}`);
              }
            }
          }
          expect(wrong.slice(0, 5), `${spec.name} nulls ${ra}/${rb} [${describeOrders([o])}]`).toEqual([]);
        }
      }
    }
  });

  it('compares multi-column keys lexicographically with per-column orders', () => {
    const rng = new Rng(8);
    for (let c = 0; c < 150; c++) {
      const specs = Array.from({ length: rng.int(1, 4) }, () => rng.pick(KINDS));
      const a = specs.map((s) => randomCol(rng, s, 12, rng.pick([0, 0.3]), 3));
      const b = specs.map((s) => randomCol(rng, s, 9, rng.pick([0, 0.3]), 3));
      const orders = specs.map(() => rng.pick(ALL_ORDERS));
      const cmp = makeSortComparator(a.map((x) => x.key), b.map((x) => x.key), orders);
      const wrong: string[] = [];
      for (let i = 0; i < 12; i++) {
        for (let j = 0; j < 9; j++) {
          const want = refCompare(a, b, orders, i, j);
          if (sign(cmp.compare(i, j)) !== want || cmp.equal(i, j) !== (want === 0)) wrong.push(`(${i}, ${j}): want ${want}`);
        }
      }
      expect(wrong.slice(0, 5), `case ${c} (${specs.map((s) => s.name).join(', ')}) [${describeOrders(orders)}]`).toEqual([]);
    }
  });

  it('is makeKeyComparator when ascending without NULLs; rejects mismatched arguments', () => {
    const rng = new Rng(12);
    for (const spec of KINDS) {
      const a = randomCol(rng, spec, 20, 0, 5).key;
      const b = randomCol(rng, spec, 20, 0, 5).key;
      const plain = makeKeyComparator([a], [b]);
      const sorted = makeSortComparator([a], [b], [ASC_NULLS_LAST]);
      let differ = 0;
      for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) if (sign(sorted.compare(i, j)) !== sign(plain.compare(i, j))) differ++;
      expect(differ, spec.name).toBe(0);
    }
    const i32 = randomCol(rng, KINDS[2]!, 3, 0).key;
    const str = randomCol(rng, KINDS.find((k) => k.name === 'utf8')!, 3, 0).key;
    expect(() => makeSortComparator([i32], [str], [ASC_NULLS_LAST])).toThrow(/different kinds/);
    expect(() => makeSortComparator([i32], [i32], [])).toThrow(/sort orders/);
  });

  it('isSorted detects an out-of-order pair', () => {
    const rng = new Rng(6);
    const col = randomCol(rng, KINDS[3]!, 50, 0.2, 50);
    const rows = argsortKeys([col.key], [ASC_NULLS_LAST]);
    expect(isSorted([col.key], [ASC_NULLS_LAST], rows)).toBe(true);
    const cmp = makeSortComparator([col.key], [col.key], [ASC_NULLS_LAST]);
    const k = rows.findIndex((_, p) => p > 0 && cmp.compare(rows[p - 1]!, rows[p]!) < 0);
    [rows[k - 1], rows[k]] = [rows[k]!, rows[k - 1]!];
    expect(isSorted([col.key], [ASC_NULLS_LAST], rows)).toBe(false);
    expect(isSorted([col.key], [{ descending: true, nullsFirst: true }], argsortKeys([col.key], [{ descending: true, nullsFirst: true }]))).toBe(true);
    expect(isSorted([], [])).toBe(true);
  });
});
