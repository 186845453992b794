/**
 * xxHash64 against the reference: the spec's published values for short inputs, and hyparquet's
 * independent implementation (the one its Bloom-filter reader uses) on inputs of every length
 * class (< 4, < 8, < 32, >= 32 bytes, several stripes plus a tail).
 */
import { describe, expect, it } from 'vitest';
// hyparquet does not export it (nor type it); a second implementation to check against, test-only
// @ts-expect-error no declaration file for hyparquet's internal module
import { xxhash64 as reference } from '../../node_modules/hyparquet/src/xxhash.js';
import { xxhash64, xxhash64Halves } from './xxhash64.ts';

const text = (s: string) => new TextEncoder().encode(s);

describe('xxhash64', () => {
  it('matches the published values', () => {
    expect(xxhash64(new Uint8Array(0))).toBe(0xef46db3751d8e999n);
    expect(xxhash64(text('a'))).toBe(0xd24ec4f1a98c6e5bn);
    expect(xxhash64(text('abc'))).toBe(0x44bc2cf5ad770999n);
  });

  it('matches an independent implementation on every length class', () => {
    let seed = 12345;
    for (let len = 0; len < 200; len++) {
      const b = new Uint8Array(len);
      for (let i = 0; i < len; i++) b[i] = (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
      expect(xxhash64(b)).toBe((reference as (x: Uint8Array) => bigint)(b));
    }
  });

  it('splits into 32-bit halves', () => {
    const { lo, hi } = xxhash64Halves(text('a'));
    expect(BigInt.asUintN(32, BigInt(hi))).toBe(0xd24ec4f1n);
    expect(BigInt.asUintN(32, BigInt(lo))).toBe(0xa98c6e5bn);
  });
});
