/**
 * xxHash64 (seed 0 by default): the hash Parquet's Bloom filters are built on — a value is hashed
 * as its PLAIN encoding (parquet-format BloomFilter.md, "Hash function"), and the 64-bit result
 * picks the block (upper 32 bits) and the bits in it (lower 32).
 *
 * Spec: Cyan4973/xxHash doc/xxhash_spec.md (XXH64). It runs once per value of a published IN list
 * per scan, never per row, so it is written plainly over BigInt (mod 2^64) rather than in 32-bit
 * halves; the result is returned as those halves, which is what the Bloom filter takes.
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
  return (rotl((acc + lane * P2) & MASK, 31n) * P1) & MASK;
}

function mergeRound(acc: bigint, v: bigint): bigint {
  return (((acc ^ round(0n, v)) * P1) & MASK) + P4 & MASK;
}

/** xxHash64 of `bytes` as a bigint in [0, 2^64). */
export function xxhash64(bytes: Uint8Array, seed = 0n): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = bytes.length;
  let p = 0;
  let h: bigint;
  if (len >= 32) {
    let v1 = (seed + P1 + P2) & MASK;
    let v2 = (seed + P2) & MASK;
    let v3 = seed & MASK;
    let v4 = (seed - P1) & MASK;
    for (; p + 32 <= len; p += 32) {
      v1 = round(v1, view.getBigUint64(p, true));
      v2 = round(v2, view.getBigUint64(p + 8, true));
      v3 = round(v3, view.getBigUint64(p + 16, true));
      v4 = round(v4, view.getBigUint64(p + 24, true));
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
  for (; p + 8 <= len; p += 8) {
    h ^= round(0n, view.getBigUint64(p, true));
    h = (rotl(h, 27n) * P1 + P4) & MASK;
  }
  if (p + 4 <= len) {
    h ^= (BigInt(view.getUint32(p, true)) * P1) & MASK;
    h = (rotl(h, 23n) * P2 + P3) & MASK;
    p += 4;
  }
  for (; p < len; p++) {
    h ^= (BigInt(bytes[p]!) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}

/** xxHash64 of `bytes` as its low and high 32-bit halves (each as a signed 32-bit integer). */
export function xxhash64Halves(bytes: Uint8Array): { lo: number; hi: number } {
  const h = xxhash64(bytes);
  return { lo: Number(h & 0xffffffffn) | 0, hi: Number(h >> 32n) | 0 };
}
