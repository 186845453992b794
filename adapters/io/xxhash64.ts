/**
 * xxHash64 (XXH64), the hash Parquet's Bloom filters are built with: parquet-format
 * `BloomFilter.md` ("the hash function is xxHash64 with seed 0, of the plain encoding of the
 * value"). The algorithm is the one of the xxHash specification (Cyan4973/xxHash,
 * `doc/xxhash_spec.md`, "XXH64 algorithm description"): four 64-bit lanes over 32-byte stripes
 * for inputs of at least 32 bytes, then the remaining 8-, 4- and 1-byte pieces, then the
 * avalanche. All arithmetic is modulo 2^64.
 *
 * Why BigInt is acceptable here: a scan hashes each value of a published IN list once (a few
 * hundred values at most, `pushdown.inlistMaxDistinct`), never per row; the per-row-group work is
 * the Bloom filter lookups on the precomputed (lo, hi) halves, which is 32-bit arithmetic
 * (strategies/pushdown/bloom.ts `mayContainHash64`).
 *
 * Checked against the specification's published values (xxh64 of "", "a", "abc") and a
 * second implementation (hyparquet's `src/xxhash.js`) over many lengths, in xxhash64.test.ts.
 */

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & MASK;
}

function round(acc: bigint, lane: bigint): bigint {
  acc = (acc + lane * P2) & MASK;
  acc = rotl(acc, 31n);
  return (acc * P1) & MASK;
}

function mergeRound(acc: bigint, lane: bigint): bigint {
  acc ^= round(0n, lane);
  return (acc * P1 + P4) & MASK;
}

/** XXH64 of `input` with `seed` (default 0), as an unsigned 64-bit bigint. */
export function xxhash64(input: Uint8Array, seed = 0n): bigint {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  const len = input.byteLength;
  seed &= MASK;
  let p = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed;
    let v4 = (seed - P1) & MASK;
    const limit = len - 32;
    while (p <= limit) {
      v1 = round(v1, view.getBigUint64(p, true));
      v2 = round(v2, view.getBigUint64(p + 8, true));
      v3 = round(v3, view.getBigUint64(p + 16, true));
      v4 = round(v4, view.getBigUint64(p + 24, true));
      p += 32;
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = (seed + P5) & MASK;
  }
  h = (h + BigInt(len)) & MASK;
  while (p + 8 <= len) {
    h ^= round(0n, view.getBigUint64(p, true));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
    p += 8;
  }
  if (p + 4 <= len) {
    h ^= (BigInt(view.getUint32(p, true)) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    p += 4;
  }
  while (p < len) {
    h ^= (BigInt(input[p]!) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
    p++;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}

/**
 * XXH64 (seed 0) of `input` as its two 32-bit halves, the form a split-block Bloom filter takes
 * (`SplitBlockBloomFilter.mayContainHash64(lo, hi)`): `out[at] = low 32 bits`, `out[at + 1] =
 * high 32 bits`.
 */
export function xxhash64Halves(input: Uint8Array, out: Uint32Array, at: number): void {
  const h = xxhash64(input);
  out[at] = Number(h & 0xffffffffn);
  out[at + 1] = Number(h >> 32n);
}
