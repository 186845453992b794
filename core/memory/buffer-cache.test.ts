/**
 * The buffer cache: large released arrays come back (zeroed when asked), small ones and views are
 * not kept and the total stays bounded. (A released table's arrays serving the next table is
 * tested with the swiss layout, strategies/hashmap/swiss.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cachedBytes, clearBufferCache, MAX_BYTES, MIN_BYTES, releaseInt32, takeInt32 } from './buffer-cache.ts';

afterEach(() => clearBufferCache());

describe('buffer cache', () => {
  it('hands a released array of the same length back, zeroed on request', () => {
    const n = MIN_BYTES / 4;
    const a = takeInt32(n, true);
    a.fill(7);
    releaseInt32(a);
    expect(cachedBytes()).toBe(MIN_BYTES);
    const b = takeInt32(n, true);
    expect(b).toBe(a);
    expect(b.every((x) => x === 0)).toBe(true);
    expect(cachedBytes()).toBe(0);
    expect(takeInt32(n, true)).not.toBe(a); // taken: not handed out twice
  });

  it('keeps neither small arrays nor views, and stays under MAX_BYTES', () => {
    releaseInt32(new Int32Array(16), new Int32Array(MIN_BYTES / 2).subarray(1));
    expect(cachedBytes()).toBe(0);
    const big = MIN_BYTES * 16;
    for (let i = 0; i < (2 * MAX_BYTES) / big; i++) releaseInt32(new Int32Array(big / 4));
    expect(cachedBytes()).toBe(MAX_BYTES);
    const a = new Int32Array(MIN_BYTES / 4);
    releaseInt32(a, a);
    expect(cachedBytes()).toBe(MAX_BYTES - big + MIN_BYTES); // the oldest 16 MB dropped; a double release counted once
  });
});
