/**
 * A split-block Bloom filter (SBBF): the layout of Parquet's Bloom filters (parquet-format
 * `BloomFilter.md`; Impala's `BlockBloomFilter`, where it comes from), used by joinlab both as a
 * join filter over the build keys and — with the same bits — to read the filters Parquet files
 * carry per column chunk.
 *
 * The filter is an array of 256-bit blocks (8 x 32-bit words). A key's 64-bit hash picks one block
 * with its upper 32 bits (`block = (hi * blocks) >> 32`, a multiply-shift instead of a modulo) and
 * sets one bit in each of the block's 8 words with its lower 32 bits: bit `(lo * SALT[i]) >>> 27` of
 * word i. So an insert or a lookup touches one 32-byte block — one cache line — whatever the
 * filter's size, where a classic Bloom filter touches k random lines; the price is a somewhat
 * higher false-positive rate for the same bits per key (`theoreticalFpp`). The SALT constants and
 * the block arithmetic are Parquet's, so a bitset read from a file answers for hashes computed the
 * way its writer computed them (xxHash64 of the plain-encoded value, `mayContainHash64`).
 *
 * Join keys carry 32-bit hashes (`hashKeys`, computed once for the build and, when a filter needs
 * them, once per probe row): the 64-bit hash is then (lo = h, hi = fmix32(h ^ SPLIT_SEED)), a
 * bijection of h, so equal keys still agree and the block choice is decorrelated from the bits
 * set in it (`insertHash32`, `testHashes`).
 *
 * Sizing follows Parquet's writers (parquet-mr `BlockSplitBloomFilter.optimalNumOfBits`): bits =
 * -8 * ndv / ln(1 - fpp^(1/8)), in bytes rounded up to a power of two between 32 and `MAX_BYTES`. Never a false negative: a lookup says "absent" only when one
 * of the 8 bits an insert of that hash would have set is 0.
 */

/** Parquet's salts (parquet-format BloomFilter.md, "Technical Approach"). */
const SALT = new Int32Array([0x47b6137b, 0x44974d91, 0x8824ad5b | 0, 0xa2b7289d | 0, 0x705495c7, 0x2df1424b, 0x9efc4947 | 0, 0x5c6bfb31]);
const S0 = SALT[0]!;
const S1 = SALT[1]!;
const S2 = SALT[2]!;
const S3 = SALT[3]!;
const S4 = SALT[4]!;
const S5 = SALT[5]!;
const S6 = SALT[6]!;
const S7 = SALT[7]!;

/** Bytes of one block. */
export const BLOCK_BYTES = 32;
/** The largest filter built for a join (128 MiB, Parquet's default maximum). */
export const MAX_BYTES = 128 * 1024 * 1024;
/** Up to this many blocks (64 MiB) the block index is one multiplication by a double. */
const FAST_BLOCKS = 2 ** 21;
/** Remix seed that makes the upper half of a 64-bit hash out of a 32-bit key hash. */
const SPLIT_SEED = 0x2c1b3c6d;

/** murmur3's finaliser (a bijection on 32 bits). */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** floor(a * b / 2^32) for a < 2^32 and b < 2^27, exactly (no 64-bit product in a double). */
function mulHi32(a: number, b: number): number {
  const ah = a >>> 16;
  const al = a & 0xffff;
  return Math.floor((ah * b + Math.floor((al * b) / 65536)) / 65536);
}

/** Bytes Parquet's writers give a filter for `ndv` distinct values at false-positive rate `fpp`. */
export function optimalBytes(ndv: number, fpp: number): number {
  if (!(fpp > 0 && fpp < 1)) throw new RangeError(`false-positive rate must be in (0, 1), got ${fpp}`);
  // parquet-mr's optimalNumOfBits: -8 * ndv / ln(1 - fpp^(1/8)) *bits*
  const ideal = (-8 * Math.max(ndv, 1)) / Math.log(1 - Math.pow(fpp, 1 / 8)) / 8;
  let bytes = BLOCK_BYTES;
  while (bytes < ideal && bytes < MAX_BYTES) bytes *= 2;
  return bytes;
}

/**
 * The expected false-positive rate of an SBBF of `blocks` blocks holding `keys` keys: a block's
 * load is Poisson with mean keys / blocks, and a block holding j keys answers "maybe" for an
 * absent hash with probability (1 - (31/32)^j)^8 (each of its 8 words has one of 32 bits tested).
 */
export function theoreticalFpp(keys: number, blocks: number): number {
  const mean = keys / blocks;
  let p = Math.exp(-mean); // P(load = 0)
  let sum = 0;
  const limit = Math.ceil(mean + 12 * Math.sqrt(mean + 1) + 20);
  for (let j = 0; j <= limit; j++) {
    if (j > 0) p *= mean / j;
    sum += p * Math.pow(1 - Math.pow(31 / 32, j), 8);
  }
  return sum;
}

export class SplitBlockBloomFilter {
  /** 8 words per block. */
  readonly words: Uint32Array;
  readonly blocks: number;
  /** Hashes inserted (duplicates included). */
  inserted = 0;

  private constructor(words: Uint32Array) {
    if (words.length === 0 || words.length % 8 !== 0) throw new RangeError(`a split-block Bloom filter needs whole 32-byte blocks, got ${words.length * 4} bytes`);
    this.words = words;
    this.blocks = words.length / 8;
  }

  /** An empty filter of `bytes` bytes (a multiple of 32). */
  static ofBytes(bytes: number): SplitBlockBloomFilter {
    if (!Number.isInteger(bytes) || bytes < BLOCK_BYTES || bytes % BLOCK_BYTES !== 0 || bytes > 2 ** 31) {
      throw new RangeError(`split-block Bloom filter size must be a positive multiple of 32 bytes, got ${bytes}`);
    }
    return new SplitBlockBloomFilter(new Uint32Array(bytes / 4));
  }

  /** An empty filter sized for `ndv` distinct keys at false-positive rate `fpp` (Parquet's sizing). */
  static forKeys(ndv: number, fpp: number): SplitBlockBloomFilter {
    return SplitBlockBloomFilter.ofBytes(optimalBytes(ndv, fpp));
  }

  /** A filter over `words` themselves (no copy: e.g. another thread's filter in shared memory). */
  static overWords(words: Uint32Array, inserted = 0): SplitBlockBloomFilter {
    const f = new SplitBlockBloomFilter(words);
    f.inserted = inserted;
    return f;
  }

  /** A filter over a bitset read from a file (little-endian words, e.g. a Parquet column chunk's). */
  static fromBytes(bytes: Uint8Array): SplitBlockBloomFilter {
    if (bytes.length % BLOCK_BYTES !== 0 || bytes.length === 0) throw new RangeError(`a split-block Bloom filter bitset is whole 32-byte blocks, got ${bytes.length} bytes`);
    const words = new Uint32Array(bytes.length / 4);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < words.length; i++) words[i] = view.getUint32(4 * i, true);
    return new SplitBlockBloomFilter(words);
  }

  get bytes(): number {
    return this.words.length * 4;
  }

  /** Inserts the 64-bit hash (lo, hi) — each as a 32-bit integer, any sign. */
  insertHash64(lo: number, hi: number): void {
    const w = this.words;
    const b = 8 * mulHi32(hi >>> 0, this.blocks);
    w[b]! |= 1 << (Math.imul(lo, S0) >>> 27);
    w[b + 1]! |= 1 << (Math.imul(lo, S1) >>> 27);
    w[b + 2]! |= 1 << (Math.imul(lo, S2) >>> 27);
    w[b + 3]! |= 1 << (Math.imul(lo, S3) >>> 27);
    w[b + 4]! |= 1 << (Math.imul(lo, S4) >>> 27);
    w[b + 5]! |= 1 << (Math.imul(lo, S5) >>> 27);
    w[b + 6]! |= 1 << (Math.imul(lo, S6) >>> 27);
    w[b + 7]! |= 1 << (Math.imul(lo, S7) >>> 27);
    this.inserted++;
  }

  /** false: (lo, hi) was never inserted; true: maybe. */
  mayContainHash64(lo: number, hi: number): boolean {
    const w = this.words;
    const b = 8 * mulHi32(hi >>> 0, this.blocks);
    return (
      (w[b]! & (1 << (Math.imul(lo, S0) >>> 27))) !== 0 &&
      (w[b + 1]! & (1 << (Math.imul(lo, S1) >>> 27))) !== 0 &&
      (w[b + 2]! & (1 << (Math.imul(lo, S2) >>> 27))) !== 0 &&
      (w[b + 3]! & (1 << (Math.imul(lo, S3) >>> 27))) !== 0 &&
      (w[b + 4]! & (1 << (Math.imul(lo, S4) >>> 27))) !== 0 &&
      (w[b + 5]! & (1 << (Math.imul(lo, S5) >>> 27))) !== 0 &&
      (w[b + 6]! & (1 << (Math.imul(lo, S6) >>> 27))) !== 0 &&
      (w[b + 7]! & (1 << (Math.imul(lo, S7) >>> 27))) !== 0
    );
  }

  /** Inserts a 32-bit key hash (see the module comment for how it becomes 64 bits). */
  insertHash32(h: number): void {
    this.insertHash64(h, fmix32(h ^ SPLIT_SEED));
  }

  mayContainHash32(h: number): boolean {
    return this.mayContainHash64(h, fmix32(h ^ SPLIT_SEED));
  }

  /** Inserts `hashes[r]` for every r with `skip[r] === 0` (every r when `skip` is null), r < n. */
  insertHashes(hashes: Uint32Array, n: number, skip: Uint8Array | null = null): void {
    for (let r = 0; r < n; r++) if (skip === null || skip[r] === 0) this.insertHash32(hashes[r]!);
  }

  /**
   * One pass over a batch of 32-bit key hashes: clears `keep[r]` for every row r listed in `rows`
   * (all r < hashes.length when null) whose hash is certainly absent; never sets a 0 to 1.
   * Returns how many rows it cleared. The block's 8 words are tested together (AND of 8 bit tests,
   * no branch per word), one cache line per row.
   */
  testHashes(hashes: Uint32Array, rows: Int32Array | null, keep: Uint8Array): number {
    if (this.blocks > FAST_BLOCKS) return this.#testHashesLarge(hashes, rows, keep);
    const w = this.words;
    // block = floor(hi * blocks / 2^32), exact in a double below FAST_BLOCKS blocks (hi * blocks < 2^53)
    const scale = this.blocks / 4294967296;
    const n = rows === null ? hashes.length : rows.length;
    let cleared = 0;
    for (let i = 0; i < n; i++) {
      const r = rows === null ? i : rows[i]!;
      if (keep[r] === 0) continue;
      const lo = hashes[r]! | 0;
      let hi = lo ^ SPLIT_SEED; // fmix32, inline
      hi ^= hi >>> 16;
      hi = Math.imul(hi, 0x85ebca6b);
      hi ^= hi >>> 13;
      hi = Math.imul(hi, 0xc2b2ae35);
      hi ^= hi >>> 16;
      const b = ((hi >>> 0) * scale) << 3;
      const hit =
        (w[b]! >>> (Math.imul(lo, S0) >>> 27)) &
        (w[b + 1]! >>> (Math.imul(lo, S1) >>> 27)) &
        (w[b + 2]! >>> (Math.imul(lo, S2) >>> 27)) &
        (w[b + 3]! >>> (Math.imul(lo, S3) >>> 27)) &
        (w[b + 4]! >>> (Math.imul(lo, S4) >>> 27)) &
        (w[b + 5]! >>> (Math.imul(lo, S5) >>> 27)) &
        (w[b + 6]! >>> (Math.imul(lo, S6) >>> 27)) &
        (w[b + 7]! >>> (Math.imul(lo, S7) >>> 27)) &
        1;
      keep[r] = hit;
      cleared += hit ^ 1;
    }
    return cleared;
  }

  /** `testHashes` for filters past FAST_BLOCKS blocks (the block index by exact 16-bit halves). */
  #testHashesLarge(hashes: Uint32Array, rows: Int32Array | null, keep: Uint8Array): number {
    const n = rows === null ? hashes.length : rows.length;
    let cleared = 0;
    for (let i = 0; i < n; i++) {
      const r = rows === null ? i : rows[i]!;
      if (keep[r] === 0) continue;
      const hit = this.mayContainHash32(hashes[r]!) ? 1 : 0;
      keep[r] = hit;
      cleared += hit ^ 1;
    }
    return cleared;
  }
}
