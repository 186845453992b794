/**
 * The split-block Bloom filter: never a false negative (random key sets of every logical key type,
 * hashed the way the join hashes them, re-batched between build and probe), a measured
 * false-positive rate within 2x of the layout's theoretical rate at several bits per key, the
 * batch test equal to the per-hash lookup, and the bitset read back from its little-endian bytes.
 */
import { describe, expect, it } from 'vitest';
import { LOGICAL_TYPES, arrowType, randomColumn, rebatch } from '../../adapters/datagen/random-tables.ts';
import { Table, type Vector } from 'apache-arrow';
import { hashKeys } from '../../core/keys/hash.ts';
import { normalizeKeyColumn } from '../../core/keys/normalize.ts';
import { keyKindOf } from '../../core/keys/resolve.ts';
import { Rng } from '../../core/random.ts';
import { optimalBytes, SplitBlockBloomFilter, theoreticalFpp } from './bloom.ts';

const SEED = 0x1234567;

function distinctHashes(rng: Rng, n: number, avoid?: Set<number>): Uint32Array {
  const seen = new Set<number>();
  const out = new Uint32Array(n);
  let i = 0;
  while (i < n) {
    const h = rng.int(0, 2 ** 31 - 1) * 2 + rng.int(0, 1);
    if (seen.has(h) || avoid?.has(h)) continue;
    seen.add(h);
    out[i++] = h;
  }
  return out;
}

describe('split-block Bloom filter', () => {
  it('never a false negative: random keys of every logical type, hashed as the join hashes them, probed from other batches', () => {
    const rng = new Rng(11);
    for (const t of LOGICAL_TYPES) {
      for (const rows of [1, 37, 2000]) {
        const col = randomColumn(rng, { name: 'k', type: t, domain: rows, nullRate: 0.1 }, rows) as Vector;
        const kind = keyKindOf(arrowType(t), 'k');
        const build = normalizeKeyColumn(col, kind, 'k');
        const bloom = SplitBlockBloomFilter.forKeys(rows, 0.01);
        bloom.insertHashes(hashKeys([build], SEED), rows, build.nulls);
        // the same values in other batches (other offsets, other dictionaries): the probe side
        const probeTable = rebatch(new Table({ k: col }), 7);
        for (const batch of probeTable.batches) {
          const probe = normalizeKeyColumn(batch.getChild('k')! as Vector, kind, 'k');
          const hashes = hashKeys([probe], SEED);
          const keep = new Uint8Array(batch.numRows).fill(1);
          const rowsNotNull = Int32Array.from({ length: batch.numRows }, (_, r) => r).filter((r) => probe.nulls === null || probe.nulls[r] === 0);
          expect(bloom.testHashes(hashes, rowsNotNull, keep), `${t}, ${rows} rows`).toBe(0);
          for (const r of rowsNotNull) expect(bloom.mayContainHash32(hashes[r]!)).toBe(true);
        }
      }
    }
  });

  it('false-positive rate within 2x of the theoretical rate at 4 to 20 bits per key', () => {
    const rng = new Rng(12);
    const n = 50_000;
    const inserted = distinctHashes(rng, n);
    const absent = distinctHashes(rng, 400_000, new Set(inserted));
    for (const bitsPerKey of [4, 6, 8, 10, 12, 16, 20]) {
      let bytes = 32;
      while (bytes * 8 < bitsPerKey * n) bytes *= 2;
      const bloom = SplitBlockBloomFilter.ofBytes(bytes);
      bloom.insertHashes(inserted, n);
      const keep = new Uint8Array(absent.length).fill(1);
      const passed = absent.length - bloom.testHashes(absent, null, keep);
      const measured = passed / absent.length;
      const expected = theoreticalFpp(n, bloom.blocks);
      const what = `${(bytes * 8) / n} bits/key: measured ${measured.toFixed(5)}, theoretical ${expected.toFixed(5)}`;
      expect(measured, what).toBeLessThanOrEqual(2 * expected);
      expect(measured, what).toBeGreaterThanOrEqual(expected / 2);
    }
  });

  it("Parquet's sizing meets its target rate", () => {
    const rng = new Rng(13);
    for (const fpp of [0.05, 0.01, 0.001]) {
      const n = 20_000;
      const bloom = SplitBlockBloomFilter.forKeys(n, fpp);
      expect(bloom.bytes).toBe(optimalBytes(n, fpp));
      const inserted = distinctHashes(rng, n);
      bloom.insertHashes(inserted, n);
      const absent = distinctHashes(rng, 200_000, new Set(inserted));
      const keep = new Uint8Array(absent.length).fill(1);
      const measured = (absent.length - bloom.testHashes(absent, null, keep)) / absent.length;
      expect(measured, `fpp ${fpp}`).toBeLessThanOrEqual(fpp);
    }
  });

  it('the batch test equals the per-hash lookup, keeps zeros, and honours a row list', () => {
    const rng = new Rng(14);
    const bloom = SplitBlockBloomFilter.ofBytes(256);
    const inserted = distinctHashes(rng, 300);
    bloom.insertHashes(inserted, inserted.length);
    const probe = new Uint32Array(2000);
    for (let i = 0; i < probe.length; i++) probe[i] = rng.chance(0.3) ? inserted[rng.int(0, inserted.length - 1)]! : rng.int(0, 2 ** 31 - 1) * 2;
    const keep = Uint8Array.from(probe, () => (rng.chance(0.9) ? 1 : 0));
    const before = keep.slice();
    const rows = Int32Array.from({ length: probe.length }, (_, r) => r).filter(() => rng.chance(0.7));
    const listed = new Uint8Array(probe.length);
    for (const r of rows) listed[r] = 1;
    bloom.testHashes(probe, rows, keep);
    for (let r = 0; r < probe.length; r++) {
      const want = before[r] === 1 && (listed[r] === 0 || bloom.mayContainHash32(probe[r]!)) ? 1 : 0;
      expect(keep[r], `row ${r}`).toBe(want);
    }
  });

  it('a bitset read back from its little-endian bytes answers the same; bad sizes are refused', () => {
    const rng = new Rng(15);
    const bloom = SplitBlockBloomFilter.ofBytes(1024);
    for (let i = 0; i < 200; i++) bloom.insertHash64(rng.int(0, 2 ** 31 - 1) | (rng.int(0, 1) << 31), rng.int(0, 2 ** 31 - 1));
    const bytes = new Uint8Array(bloom.bytes);
    const view = new DataView(bytes.buffer);
    bloom.words.forEach((w, i) => view.setUint32(4 * i, w, true));
    const back = SplitBlockBloomFilter.fromBytes(bytes);
    for (let i = 0; i < 5000; i++) {
      const lo = rng.int(0, 2 ** 31 - 1);
      const hi = rng.int(0, 2 ** 31 - 1);
      expect(back.mayContainHash64(lo, hi)).toBe(bloom.mayContainHash64(lo, hi));
    }
    expect(() => SplitBlockBloomFilter.ofBytes(48)).toThrow(RangeError);
    expect(() => SplitBlockBloomFilter.fromBytes(new Uint8Array(33))).toThrow(RangeError);
    expect(() => SplitBlockBloomFilter.forKeys(10, 1)).toThrow(RangeError);
  });
});
