import { describe, expect, it } from 'vitest';
// hyparquet's own XXH64 (used by its Bloom filter reader): an independent second implementation
import { xxhash64 as hyparquetXxhash64 } from 'hyparquet/src/xxhash.js';
import { xxhash64, xxhash64Halves } from './xxhash64.ts';

const utf8 = new TextEncoder();

describe('xxhash64', () => {
  it('matches the reference values (xxHash spec / python-xxhash)', () => {
    expect(xxhash64(utf8.encode(''))).toBe(0xef46db3751d8e999n);
    expect(xxhash64(utf8.encode('a'))).toBe(0xd24ec4f1a98c6e5bn);
    expect(xxhash64(utf8.encode('abc'))).toBe(0x44bc2cf5ad770999n);
    // 39 bytes: the 32-byte stripe loop, then an 8-byte, no 4-byte and three 1-byte tails
    expect(xxhash64(utf8.encode('Nobody inspects the spammish repetition'))).toBe(0xfbcea83c8a378bf1n);
  });

  it('agrees with hyparquet over every length 0..200 and unaligned views, and with a seed', () => {
    let x = 0x9e3779b9;
    const buf = new Uint8Array(203);
    for (let i = 0; i < buf.length; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      buf[i] = x >>> 24;
    }
    for (let len = 0; len <= 200; len++) {
      for (const at of [0, 1, 3]) {
        const v = buf.subarray(at, at + len);
        expect(xxhash64(v), `len ${len} at ${at}`).toBe(hyparquetXxhash64(v));
      }
    }
    expect(xxhash64(buf, 12345n)).toBe(hyparquetXxhash64(buf, 12345n));
    expect(xxhash64(buf, 12345n)).not.toBe(xxhash64(buf));
  });

  it('splits the hash into (lo, hi) 32-bit halves', () => {
    const out = new Uint32Array(4);
    xxhash64Halves(utf8.encode('a'), out, 2);
    expect(out[2]).toBe(0xa98c6e5b);
    expect(out[3]).toBe(0xd24ec4f1);
    expect(out[0]).toBe(0);
  });
});
