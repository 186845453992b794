/**
 * The buffer cache: large released arrays come back (zeroed when asked), small ones and views are
 * not kept, the total stays bounded, and a released swiss table refuses to be probed.
 */
import { Int64, makeVector } from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { ProbeCursor } from '../hashmap.ts';
import { hashKeys } from '../keys/hash.ts';
import { normalizeKeyColumn } from '../keys/normalize.ts';
import { TABLE_SEED } from '../keys/partition.ts';
import { keyKindOf } from '../keys/resolve.ts';
import { SwissHashTable } from '../../strategies/hashmap/swiss.ts';
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

  it('a released swiss table refuses to be probed, and its arrays serve the next table', () => {
    const kind = keyKindOf(new Int64(), 'k');
    const col = normalizeKeyColumn(makeVector(BigInt64Array.from({ length: 300_000 }, (_, i) => BigInt(i * 3))), kind);
    const input = { keys: [col], hashes: hashKeys([col], TABLE_SEED), rows: 300_000, nullEqualsNull: false };
    const t1 = new SwissHashTable(input);
    t1.release();
    expect(cachedBytes()).toBeGreaterThan(0);
    const probe = { keys: [col], hashes: input.hashes, rows: 10 };
    expect(() => t1.probe(probe, new ProbeCursor(), new Int32Array(8), new Int32Array(8), 8)).toThrow(/after release/);
    const t2 = new SwissHashTable(input); // reuses the cached arrays
    const out = new Uint8Array(10);
    t2.contains(probe, out, null);
    expect(Array.from(out)).toEqual(new Array(10).fill(1));
  });
});
