import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FixedKeyColumn, KeyKind } from '../../core/keys/types.ts';
import { anyBitSet, KeyRangeBitmap, MAX_BUCKETS } from './key-range-bitmap.ts';
import { BIGINT, int64Column, UBIGINT } from './test-support.ts';

const HUGEINT: KeyKind = { order: 'int', width: 3, sqlType: 'HUGEINT' };

function words(v: bigint): [number, number] {
  const u = BigInt.asUintN(64, v);
  return [Number(BigInt.asIntN(32, u)), Number(BigInt.asIntN(32, u >> 32n))];
}

function has(bm: KeyRangeBitmap, v: bigint): boolean {
  const [lo, hi] = words(v);
  return bm.mayContain(lo, hi);
}

function build(values: readonly bigint[], kind: KeyKind = BIGINT): KeyRangeBitmap | null {
  return KeyRangeBitmap.build(int64Column(values, kind));
}

describe('KeyRangeBitmap', () => {
  it('prunes the gaps of keys 0..2M with k % 10000 < 200 and never drops a container with a match', () => {
    const keys: bigint[] = [];
    for (let k = 0; k < 2_000_000; k++) if (k % 10000 < 200) keys.push(BigInt(k));
    const bm = build(keys)!;
    expect(bm).not.toBeNull();
    expect(bm.buckets).toBe(MAX_BUCKETS);
    expect(bm.width).toBe(2);
    let kept = 0;
    let withMatch = 0;
    for (let i = 0; i < 2000; i++) {
      const lo = i * 1000;
      const hi = lo + 999;
      const may = bm.mayContainRange(BigInt(lo), BigInt(hi));
      const match = lo % 10000 < 200; // the container [lo, lo+999] holds lo itself
      if (match) {
        withMatch++;
        expect(may, `container ${i}`).toBe(true);
      }
      if (may) kept++;
    }
    expect(withMatch).toBe(200);
    expect(kept).toBeLessThanOrEqual(220);
    expect(kept).toBe(200); // bucket width 2 divides the container width 1000: exact here
    // row level: every key is kept
    for (const k of keys) if (!has(bm, k)) throw new Error(`key ${k} dropped`);
    // most non-keys in the gaps are rejected
    let falsePositives = 0;
    for (let k = 200; k < 10000; k += 7) if (has(bm, BigInt(k))) falsePositives++;
    expect(falsePositives).toBe(0);
  });

  it('bails out on contiguous keys 0..5000 (dense: the bitmap could not prune)', () => {
    const keys = Array.from({ length: 5001 }, (_, i) => BigInt(i));
    expect(build(keys)).toBeNull();
  });

  it('bails out when every reachable bucket is set even though distinct keys are sparse per bucket', () => {
    // span 4M+1 -> width 4; one key per bucket: 2 * 1M distinct > 2^20 buckets -> dense bail-out
    const keys = Array.from({ length: MAX_BUCKETS }, (_, i) => BigInt(i * 4));
    expect(build(keys)).toBeNull();
  });

  it('builds when many rows hold few distinct keys (distinct counted, not rows)', () => {
    const keys: bigint[] = [];
    for (let i = 0; i < 600_000; i++) keys.push(BigInt((i % 1000) * 1_000_000));
    const bm = build(keys)!;
    expect(bm).not.toBeNull();
    expect(bm.setBuckets).toBe(1000);
    expect(has(bm, 999_000_000n)).toBe(true);
    expect(bm.mayContainRange(1n, 999_999n)).toBe(true); // bucket 0 (width 953) holds key 0
    expect(bm.mayContainRange(1000n, 990_000n)).toBe(false);
  });

  it('bails out when many rows hold many distinct keys over a wide span', () => {
    const keys = Array.from({ length: 600_000 }, (_, i) => BigInt(i) * 3n);
    expect(build(keys)).toBeNull();
  });

  it('handles negative keys (exact when the span fits)', () => {
    const keys = [-1_000_000n, -500_000n, -3n, 0n, 7n];
    const bm = build(keys)!;
    expect(bm.width).toBe(1);
    for (const k of keys) expect(has(bm, k)).toBe(true);
    for (const k of [-1_000_001n, -999_999n, -4n, -2n, -1n, 1n, 6n, 8n]) expect(has(bm, k)).toBe(false);
    expect(bm.mayContainRange(-2_000_000n, -1_000_000n)).toBe(true);
    expect(bm.mayContainRange(-999_999n, -500_001n)).toBe(false);
    expect(bm.mayContainRange(-2n, -1n)).toBe(false);
    expect(bm.mayContainRange(-2n, 0n)).toBe(true);
    expect(bm.mayContainRange(8n, 100n)).toBe(false);
    expect(bm.mayContainRange(null, -1_000_000n)).toBe(true);
    expect(bm.mayContainRange(null, null)).toBe(true);
    expect(bm.mayContainRange(-1.5, -0.5)).toBe(false); // no integer in between is a key
    expect(bm.mayContainRange(-3.5, -2.5)).toBe(true);
  });

  it('handles keys at the int64 extremes (span 2^64, computed without overflow)', () => {
    const min = -(2n ** 63n);
    const max = 2n ** 63n - 1n;
    const keys = [min, max, 0n, -1n, 12345n];
    const bm = build(keys)!;
    expect(bm.span).toBe(2n ** 64n);
    expect(bm.width).toBe(2 ** 44);
    for (const k of keys) expect(has(bm, k)).toBe(true);
    expect(bm.mayContainRange(min, min)).toBe(true);
    expect(bm.mayContainRange(max, max)).toBe(true);
    expect(bm.mayContainRange(2n ** 50n, 2n ** 60n)).toBe(false);
    expect(bm.mayContainRange(-(2n ** 60n), -(2n ** 50n))).toBe(false);
    expect(has(bm, 2n ** 55n)).toBe(false);
    expect(bm.mayContainRange(-(2n ** 70n), 2n ** 70n)).toBe(true); // wider than the domain: clamped
  });

  it('handles UBIGINT keys up to 2^64 - 1', () => {
    const keys = [0n, 2n ** 64n - 1n, 2n ** 63n];
    const bm = build(keys, UBIGINT)!;
    expect(bm.signed).toBe(false);
    for (const k of keys) expect(has(bm, k)).toBe(true);
    expect(has(bm, 2n ** 50n)).toBe(false);
    expect(bm.mayContainRange(2n ** 64n - 1n, 2n ** 64n - 1n)).toBe(true);
    expect(bm.mayContainRange(2n ** 50n, 2n ** 60n)).toBe(false);
  });

  it('a single key: no bitmap (one bucket, all set — bounds already say everything)', () => {
    expect(build([42n])).toBeNull();
    expect(build([42n, 42n, 42n])).toBeNull();
  });

  it('ignores NULL rows and returns null when no key is left', () => {
    const col = int64Column([null, 5n, null, 1000n], BIGINT);
    const bm = KeyRangeBitmap.build(col)!;
    expect(bm).not.toBeNull();
    expect(bm.mayContainRange(0n, 4n)).toBe(false); // the NULL rows' zero words are not keys
    expect(KeyRangeBitmap.build(int64Column([null, null], BIGINT))).toBeNull();
  });

  it('HUGEINT keys: builds when every key fits int64, rejects probe values beyond it', () => {
    const col = hugeColumn([5n, 1000n, -77n]);
    const bm = KeyRangeBitmap.build(col)!;
    expect(bm).not.toBeNull();
    const probe = hugeColumn([5n, 2n ** 64n + 5n, 1000n, 6n, -77n]);
    const keep = new Uint8Array(5).fill(1);
    bm.test(probe, null, keep);
    expect([...keep]).toEqual([1, 0, 1, 0, 1]);
    expect(KeyRangeBitmap.build(hugeColumn([5n, 2n ** 64n]))).toBeNull();
  });

  it('test() agrees with mayContain() and honours the row list', () => {
    const keys = [3n, 12n, 42n, 97n];
    const bm = build(keys)!;
    const probe = int64Column([3n, 4n, 12n, 50n, 97n, 98n], BIGINT);
    const keep = new Uint8Array(6).fill(1);
    bm.test(probe, Int32Array.from([1, 2, 3]), keep);
    expect([...keep]).toEqual([1, 0, 1, 0, 1, 1]);
  });

  it('anyBitSet agrees with a bit-at-a-time reference', () => {
    fc.assert(
      fc.property(fc.uint32Array({ minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), (arr, x, y) => {
        const bits = Uint32Array.from(arr.map((v) => (v & 0x11111111) >>> 0));
        const n = bits.length * 32;
        const a = Math.min(x % n, y % n);
        const b = Math.max(x % n, y % n);
        let ref = false;
        for (let i = a; i <= b; i++) if ((bits[i >>> 5]! >>> (i & 31)) & 1) ref = true;
        expect(anyBitSet(bits, a, b)).toBe(ref);
      }),
      { seed: 1, numRuns: 500 },
    );
  });

  it('never says false for a present key or a range holding one (property)', () => {
    const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    // clustered keys so that bitmaps are actually built (not bailed out) most of the time
    const keysArb = fc
      .tuple(int64, fc.array(fc.bigInt({ min: 0n, max: 2n ** 40n }), { minLength: 1, maxLength: 60 }), fc.constantFrom(1n, 3n, 1000n, 2n ** 20n))
      .map(([base, offs, scale]) => offs.map((o) => BigInt.asIntN(64, base + o * scale)));
    let built = 0;
    fc.assert(
      fc.property(keysArb, fc.array(fc.tuple(fc.nat(), fc.bigInt({ min: 0n, max: 2n ** 45n }), fc.bigInt({ min: 0n, max: 2n ** 45n }))), (keys, ranges) => {
        const bm = build(keys);
        if (bm === null) return;
        built++;
        for (const k of keys) expect(has(bm, k)).toBe(true);
        for (const [i, below, above] of ranges) {
          const k = keys[i % keys.length]!;
          expect(bm.mayContainRange(k - below, k + above)).toBe(true);
        }
      }),
      { seed: 20240601, numRuns: 300 },
    );
    expect(built).toBeGreaterThan(100);
  });

  it('unsigned keys never say false for a present key (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { minLength: 2, maxLength: 40 }), (keys) => {
        const bm = build(keys, UBIGINT);
        if (bm === null) return;
        for (const k of keys) {
          expect(has(bm, k)).toBe(true);
          expect(bm.mayContainRange(k, k)).toBe(true);
        }
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});

function hugeColumn(values: readonly bigint[]): FixedKeyColumn {
  const words = new Int32Array(values.length * 3);
  values.forEach((v, i) => {
    const u = BigInt.asUintN(96, v);
    for (let k = 0; k < 3; k++) words[3 * i + k] = Number(BigInt.asIntN(32, u >> BigInt(32 * k)));
  });
  return { kind: HUGEINT, length: values.length, words, nulls: null };
}
