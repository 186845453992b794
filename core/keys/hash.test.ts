import {
  Binary,
  Dictionary,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
  Utf8View,
  Vector,
  makeBuilder,
  makeData,
  makeVector,
} from 'apache-arrow';
import type { DataType } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { bytesKeyHash, hashBytes, hashKeys } from './hash.ts';
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
const hashes = (cols: KeyColumn[], seed = 42) => Array.from(hashKeys(cols, seed));
const utf8 = new TextEncoder();

describe('hashBytes', () => {
  it('is murmur3_x86_32', () => {
    const h = (s: string, seed: number) => {
      const b = utf8.encode(s);
      return hashBytes(b, 0, b.length, seed);
    };
    expect(h('', 0)).toBe(0);
    expect(h('', 1)).toBe(0x514e28b7);
    expect(h('test', 0)).toBe(0xba6bd213);
    expect(h('Hello, world!', 1234)).toBe(0xfaf6cdb3);
    expect(h('The quick brown fox jumps over the lazy dog', 0)).toBe(0x2e4ff723);
    expect(h('héllo', 7)).toBe(0xbde83a6c);
  });

  it('hashes a sub-range like the standalone value', () => {
    const b = utf8.encode('xxtestyy');
    expect(hashBytes(b, 2, 6, 0)).toBe(0xba6bd213);
  });
});

describe('hashKeys', () => {
  it('hashes one value equally from every integer width and signedness', () => {
    const values = [0, 1, 7, 100, 127, null];
    const expected = hashes([norm(new Int64(), values.map((v) => (v === null ? null : BigInt(v))))]);
    for (const type of [new Int8(), new Int16(), new Int32(), new Uint8(), new Uint16(), new Uint32()]) {
      expect(hashes([norm(type, values)])).toEqual(expected);
    }
    expect(hashes([norm(new Uint64(), values.map((v) => (v === null ? null : BigInt(v))))])).toEqual(expected);
    // widened to the 3-word HUGEINT as well
    const huge = resolveKeyKind(new Int8(), new Uint64(), 'a', 'b');
    expect(hashes([norm(new Int8(), values, huge)])).toEqual(expected);
    expect(hashes([norm(new Int8(), [-1, -128], huge)])).toEqual(hashes([norm(new Int64(), [-1n, -128n])]));
  });

  it('hashes plain, large, view and dictionary strings equally', () => {
    const values = ['apple', '', 'a much longer string than twelve bytes', 'héllo', null, 'apple'];
    const kind = keyKindOf(new Utf8(), 's');
    const expected = hashes([norm(new Utf8(), values)]);
    expect(hashes([norm(new LargeUtf8(), values, kind)])).toEqual(expected);
    expect(hashes([norm(new Utf8View(), values, kind)])).toEqual(expected);
    expect(hashes([norm(new Dictionary(new Utf8(), new Int32()), values, kind)])).toEqual(expected);
    expect(expected[0]).toBe(expected[5]);
    expect(hashes([norm(new Binary(), values.map((v) => (v === null ? null : utf8.encode(v))), kind)])).toEqual(expected);
  });

  it('hashes a large dictionary per row and a cached one per entry, identically', () => {
    const entries = Array.from({ length: 500 }, (_, i) => `v${i}`);
    const type = new Dictionary(new Utf8(), new Int32());
    const dictionary = build(new Utf8(), entries);
    const kind = keyKindOf(type, 'd');
    const rows = (codes: number[]) => normalizeKeyColumn(makeVector(makeData({ type, data: new Int32Array(codes), length: codes.length, dictionary })), kind);
    const few = hashes([rows([3, 499])]);
    expect(few).toEqual(hashes([norm(new Utf8(), ['v3', 'v499'])]));
    const many = hashes([rows(Array.from({ length: 400 }, (_, i) => i))]);
    expect(many.slice(3, 4)).toEqual(few.slice(0, 1));
    expect(hashes([rows([499, 3])])).toEqual([few[1], few[0]]);
  });

  it('hashes bytes the same at every buffer alignment and buffer end (word and byte paths agree)', () => {
    const kind = keyKindOf(new Utf8(), 's');
    const values = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'key-1234567', 'key-12345678', 'é日本', 'x'.repeat(33), ''];
    const packed = values.map((v) => utf8.encode(v));
    const total = packed.reduce((n, b) => n + b.length, 0);
    const expected = packed.map((b) => bytesKeyHash(b, 0, b.length, 42));
    // the values at byte offsets 0..3 of buffers whose length leaves 0..3 bytes after the last value
    for (let shift = 0; shift < 4; shift++) {
      for (let slack = 0; slack < 4; slack++) {
        const buffer = new ArrayBuffer(shift + total + slack);
        const bytes = new Uint8Array(buffer, shift, total);
        const offsets = new Int32Array(values.length + 1);
        for (let i = 0; i < packed.length; i++) {
          bytes.set(packed[i]!, offsets[i]!);
          offsets[i + 1] = offsets[i]! + packed[i]!.length;
        }
        const col: KeyColumn = { kind, length: values.length, offsets, bytes, codes: null, nulls: null };
        expect(Array.from(hashKeys([col], 42)), `shift ${shift}, slack ${slack}`).toEqual(expected);
      }
    }
    // one value differing from another in one byte, or only in length, hashes differently
    const h = (s: string) => bytesKeyHash(utf8.encode(s), 0, utf8.encode(s).length, 0);
    expect(new Set(['key-1', 'key-2', 'key-10', 'kez-1', 'key-1\u0000', '']).size).toBe(6);
    expect(new Set(['key-1', 'key-2', 'key-10', 'kez-1', 'key-1\u0000', ''].map(h)).size).toBe(6);
  });

  it('folds -0.0 and NaN patterns', () => {
    const raw = new Float64Array([0, -0, NaN, NaN]);
    new Int32Array(raw.buffer)[7] = 0xfff80001 | 0; // another NaN payload
    const h = hashes([normalizeKeyColumn(makeVector(makeData({ type: new Float64(), data: raw, length: 4 })), keyKindOf(new Float64(), 'f'))]);
    expect(h[0]).toBe(h[1]);
    expect(h[2]).toBe(h[3]);
    expect(h[0]).not.toBe(h[2]);
    const f32 = hashes([norm(new Float32(), [-0, NaN], resolveKeyKind(new Float32(), new Float64(), 'a', 'b'))]);
    expect(f32).toEqual([h[0], h[2]]);
  });

  it('gives different hashes for different seeds', () => {
    const col = norm(new Int32(), Array.from({ length: 1000 }, (_, i) => i));
    const a = hashKeys([col], 1);
    const b = hashKeys([col], 2);
    let same = 0;
    for (let i = 0; i < 1000; i++) if (a[i] === b[i]) same++;
    expect(same).toBeLessThan(3);
    const s = norm(new Utf8(), ['x', 'y']);
    expect(hashes([s], 1)).not.toEqual(hashes([s], 2));
  });

  it('spreads consecutive integers', () => {
    const h = hashKeys([norm(new Int32(), Array.from({ length: 10000 }, (_, i) => i))], 0);
    expect(new Set(h).size).toBeGreaterThan(9990);
    const buckets = new Uint32Array(16);
    for (const x of h) buckets[x & 15]!++;
    for (const c of buckets) expect(c).toBeGreaterThan(500);
  });

  it('combines several columns in order', () => {
    const a = norm(new Int32(), [1, 2, 1]);
    const b = norm(new Utf8(), ['x', 'x', 'y']);
    const h = hashes([a, b]);
    expect(new Set(h).size).toBe(3);
    const wider = norm(new Int64(), [1n, 2n, 1n]);
    const dict = norm(new Dictionary(new Utf8(), new Int16()), ['x', 'x', 'y'], keyKindOf(new Utf8(), 's'));
    expect(hashes([wider, dict])).toEqual(h);
    const swapped = hashes([norm(new Int32(), [1]), norm(new Int32(), [2])]);
    expect(swapped).not.toEqual(hashes([norm(new Int32(), [2]), norm(new Int32(), [1])]));
  });

  it('hashes NULL to a per-column constant, distinct from any value', () => {
    // a NULL string row whose (garbage) bytes are non-empty
    const data = makeData({ type: new Utf8(), valueOffsets: new Int32Array([0, 3, 6]), data: utf8.encode('abcdef'), nullBitmap: new Uint8Array([0]), length: 2 });
    const h = hashes([normalizeKeyColumn(makeVector(data), keyKindOf(new Utf8(), 's'))]);
    expect(h[0]).toBe(h[1]);
    expect(h[0]).toBe(hashes([norm(new Utf8(), [null])])[0]);
    const ints = hashes([norm(new Int32(), [null, 0])]);
    expect(ints[0]).not.toBe(ints[1]);
    const two = hashes([norm(new Int32(), [null, 5]), norm(new Int32(), [5, null])]);
    expect(two[0]).not.toBe(two[1]);
  });

  it('reuses the output array', () => {
    const out = new Uint32Array(8);
    const res = hashKeys([norm(new Int32(), [1, 2, 3])], 9, out);
    expect(res).toBe(out);
    expect(Array.from(out.subarray(0, 3))).toEqual(hashes([norm(new Int32(), [1, 2, 3])], 9));
  });
});
