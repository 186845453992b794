import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bitset, popcount32 } from './bitset.ts';

const SEED = 20240611;

function fromBools(bits: readonly boolean[]): Bitset {
  const b = new Bitset(bits.length);
  bits.forEach((v, i) => v && b.set(i));
  return b;
}
const toBools = (b: Bitset) => Array.from({ length: b.length }, (_, i) => b.get(i));

/** A bitset with its random contents plus an offset/length window inside it. */
const bitsAndRange = fc
  .array(fc.boolean(), { minLength: 0, maxLength: 200 })
  .chain((bits) =>
    fc.tuple(fc.constant(bits), fc.nat({ max: bits.length }), fc.nat({ max: bits.length })).map(([b, x, y]) => ({
      bits: b,
      start: Math.min(x, y),
      end: Math.max(x, y),
    })),
  );

describe('Bitset basics', () => {
  it('gets, sets, clears across word boundaries', () => {
    const b = new Bitset(70);
    for (const i of [0, 31, 32, 33, 63, 64, 69]) b.set(i);
    b.clear(32);
    expect([0, 31, 32, 33, 63, 64, 69].map((i) => b.get(i))).toEqual([true, true, false, true, true, true, true]);
    expect(b.countOnes()).toBe(6);
  });

  it('setAll keeps the bits past length clear', () => {
    for (const n of [0, 1, 31, 32, 33, 64, 65]) {
      const b = new Bitset(n);
      b.setAll();
      expect(b.countOnes()).toBe(n);
      if (n % 32 !== 0) expect(b.words[b.words.length - 1]! >>> (n % 32)).toBe(0);
      expect(b.nextClearBit(0)).toBe(-1);
    }
  });

  it('popcount32 counts bits', () => {
    for (const v of [0, 1, 0xffffffff, 0x80000000, 0x55555555, 0x12345678]) {
      expect(popcount32(v)).toBe(v.toString(2).split('').filter((c) => c === '1').length);
    }
  });

  it('rejects bad lengths and out-of-range orRange', () => {
    expect(() => new Bitset(-1)).toThrow(RangeError);
    expect(() => new Bitset(10).orRange(new Bitset(5), 2, 0, 4)).toThrow(RangeError);
  });
});

describe('Bitset.orRange', () => {
  it('matches a naive bit loop at any offsets (property)', () => {
    const arb = fc
      .record({
        src: fc.array(fc.boolean(), { minLength: 0, maxLength: 300 }),
        dst: fc.array(fc.boolean(), { minLength: 0, maxLength: 300 }),
      })
      .chain(({ src, dst }) =>
        fc
          .record({
            srcOffset: fc.nat({ max: src.length }),
            dstOffset: fc.nat({ max: dst.length }),
          })
          .chain(({ srcOffset, dstOffset }) =>
            fc.record({
              src: fc.constant(src),
              dst: fc.constant(dst),
              srcOffset: fc.constant(srcOffset),
              dstOffset: fc.constant(dstOffset),
              length: fc.nat({ max: Math.min(src.length - srcOffset, dst.length - dstOffset) }),
            }),
          ),
      );
    fc.assert(
      fc.property(arb, ({ src, dst, srcOffset, dstOffset, length }) => {
        const expected = [...dst];
        for (let k = 0; k < length; k++) expected[dstOffset + k] = expected[dstOffset + k]! || src[srcOffset + k]!;
        const d = fromBools(dst);
        d.orRange(fromBools(src), srcOffset, dstOffset, length);
        expect(toBools(d)).toEqual(expected);
        // the invariant: nothing past length
        if (d.length % 32 !== 0 && d.words.length > 0) expect(d.words[d.words.length - 1]! >>> (d.length % 32)).toBe(0);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('ORs full words at odd offsets', () => {
    const src = new Bitset(100);
    src.setAll();
    const dst = new Bitset(130);
    dst.orRange(src, 7, 29, 65);
    expect(dst.countOnes()).toBe(65);
    expect(dst.nextSetBit(0)).toBe(29);
    expect(dst.nextClearBit(29)).toBe(94);
  });
});

describe('Bitset scans', () => {
  it('popcount over any range matches a naive count (property)', () => {
    fc.assert(
      fc.property(bitsAndRange, ({ bits, start, end }) => {
        const naive = bits.slice(start, end).filter(Boolean).length;
        expect(fromBools(bits).popcount(start, end)).toBe(naive);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('setRange sets exactly [start, end) over any contents (property)', () => {
    fc.assert(
      fc.property(bitsAndRange, ({ bits, start, end }) => {
        const b = fromBools(bits);
        b.setRange(start, end);
        expect(toBools(b)).toEqual(bits.map((v, i) => v || (i >= start && i < end)));
        expect(b.popcount(b.length, b.length + 0)).toBe(0);
      }),
      { seed: SEED, numRuns: 500 },
    );
    expect(() => new Bitset(10).setRange(3, 11)).toThrow(RangeError);
  });

  it('setFromBytes overwrites bits [0, n) and keeps the rest (property)', () => {
    fc.assert(
      fc.property(bitsAndRange, ({ bits, end }) => {
        const b = fromBools(bits);
        const bytes = Uint8Array.from(bits.slice(0, end), (v, i) => (v !== (i % 3 === 0) ? 1 : 0));
        b.setFromBytes(bytes, end);
        expect(toBools(b)).toEqual(bits.map((v, i) => (i < end ? bytes[i] === 1 : v)));
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('nextSetBit / nextClearBit match a naive scan (property)', () => {
    fc.assert(
      fc.property(bitsAndRange, ({ bits, start }) => {
        const b = fromBools(bits);
        const set = bits.indexOf(true, start);
        const clear = bits.indexOf(false, start);
        expect(b.nextSetBit(start)).toBe(start >= bits.length ? -1 : set);
        expect(b.nextClearBit(start)).toBe(start >= bits.length ? -1 : clear);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});

describe('Bitset <-> Arrow / bytes', () => {
  it('toArrowBool round-trips and copies', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 150 }), (bits) => {
        const b = fromBools(bits);
        const v = b.toArrowBool();
        expect(v.length).toBe(bits.length);
        expect(v.nullCount).toBe(0);
        expect(Array.from(v)).toEqual(bits);
        if (bits.length > 0) {
          b.set(0);
          expect(v.get(0)).toBe(bits[0]);
        }
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('fromBytes packs byte-per-row flags (any non-zero byte is set)', () => {
    const bytes = new Uint8Array(70);
    for (const i of [0, 5, 31, 32, 40, 69]) bytes[i] = i === 40 ? 7 : 1;
    const b = Bitset.fromBytes(bytes);
    expect(b.length).toBe(70);
    expect(toBools(b)).toEqual(Array.from(bytes, (x) => x !== 0));
    expect(Array.from(b.bytes().subarray(0, 2))).toEqual([0b00100001, 0]);
  });
});
