/**
 * Example user extension: a `bloom` pushdown policy — a classic Bloom filter over each build
 * partition's keys, published into the probe scan.
 *
 * Why it exists: it is the worked example of a third-party strategy (written against `index.ts`,
 * loaded with `extensions: [...]`, selected with `pushdown: bloom`), and a useful point in the
 * design space between `inlist` (exact, only for small builds) and `map` (exact, but a probe of
 * the build's whole hash table per row): a Bloom filter is a few bits per build key
 * (~9.6 at 1% false positives), so it stays cache-resident when the hash table does not, at the
 * price of letting ~1% of non-matching rows through — which the join then drops anyway.
 *
 * How:
 *  - Keys are hashed with `hashKeys` and the partition's seed — the exact hashes the composer
 *    computes for probe rows when `needsHashes` is true, so a probe row costs no extra hashing.
 *    Equal keys hash equally whatever their Arrow type (normalisation made them equal words).
 *  - k = ceil(log2(1/p)) = 7 bit positions per key by double hashing, g_i = h1 + i*h2 (mod m),
 *    with h2 an odd remix of h1 (odd, so the k positions are distinct in a power-of-two table).
 *    m = the next power of two >= n * ln(1/p) / ln(2)^2 bits, so the rate is at most p.
 *  - Build rows with a NULL key are left out: the composer keeps or drops probe rows with NULL
 *    keys itself and never passes them to `test`, and a NULL-free probe row cannot equal them.
 *  - `test` clears `keep` only where some bit is 0 — the key is then definitely absent — so it
 *    never drops a matching row. A Bloom filter cannot say anything about a min/max range, so on
 *    its own `mayContain` is true; it is ANDed with the `bounds` filter (cheap, checked first),
 *    which prunes containers and rows outside [min, max].
 *
 * Imports outside `index.ts` (a third-party author needs them too; see the report):
 * `hashKeys` (core/keys/hash.ts), `andFilters` and `boundsFilter` (strategies/pushdown).
 */
import {
  andFilters,
  boundsFilter,
  hashKeys,
  PUSHDOWN,
  type BuildPartition,
  type Extension,
  type KeyFilter,
  type PushdownContext,
  type PushdownPolicy,
} from '../../index.ts';

type KeyColumn = BuildPartition['keys'][number];

/** Target false-positive rate of the filter. */
export const BLOOM_FPP = 0.01;
/** Bit positions per key: the optimum for BLOOM_FPP, ceil(log2(1 / p)). */
export const BLOOM_HASHES = Math.ceil(-Math.log2(BLOOM_FPP));
const MIN_BITS = 64;
const MAX_BITS = 2 ** 31;

/** murmur3's finaliser: a bijection with full avalanche. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** The second hash of double hashing: a remix of the first, forced odd. */
function secondHash(h: number): number {
  return fmix32(h ^ 0x5bd1e995) | 1;
}

/** A classic Bloom filter over 32-bit key hashes (power-of-two size, double hashing). */
export class BloomFilter {
  readonly words: Uint32Array;
  /** m - 1, m the number of bits (a power of two). */
  readonly mask: number;
  readonly hashes: number;
  /** Keys added. */
  count = 0;

  constructor(expectedKeys: number, fpp = BLOOM_FPP) {
    const ideal = Math.ceil((Math.max(expectedKeys, 1) * -Math.log(fpp)) / (Math.LN2 * Math.LN2));
    let bits = MIN_BITS;
    while (bits < ideal && bits < MAX_BITS) bits *= 2;
    this.words = new Uint32Array(bits / 32);
    this.mask = bits - 1;
    this.hashes = Math.max(1, Math.ceil(-Math.log2(fpp)));
  }

  get bits(): number {
    return this.mask + 1;
  }

  add(hash: number): void {
    const step = secondHash(hash);
    const w = this.words;
    let g = hash | 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = g & this.mask;
      w[bit >>> 5]! |= 1 << (bit & 31);
      g = (g + step) | 0;
    }
    this.count++;
  }

  /** false: definitely never added; true: maybe. */
  mayContain(hash: number): boolean {
    const step = secondHash(hash);
    const w = this.words;
    let g = hash | 0;
    for (let i = 0; i < this.hashes; i++) {
      const bit = g & this.mask;
      if ((w[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      g = (g + step) | 0;
    }
    return true;
  }
}

/** The partition's NULL-free build rows' keys, added to a filter sized for them. */
export function bloomOf(build: BuildPartition): BloomFilter {
  const n = build.rows;
  const hasNull = new Uint8Array(n);
  for (const col of build.keys as readonly KeyColumn[]) {
    const nulls = col.nulls;
    if (nulls !== null) for (let r = 0; r < n; r++) hasNull[r]! |= nulls[r]!;
  }
  let usable = 0;
  for (let r = 0; r < n; r++) usable += hasNull[r] === 0 ? 1 : 0;
  const bloom = new BloomFilter(usable);
  if (usable === 0) return bloom; // rejects every row
  const hashes = hashKeys(build.keys, build.seed);
  for (let r = 0; r < n; r++) if (hasNull[r] === 0) bloom.add(hashes[r]!);
  return bloom;
}

export class BloomKeyFilter implements KeyFilter {
  readonly description: string;
  readonly needsHashes = true;

  constructor(
    readonly bloom: BloomFilter,
    ctx: PushdownContext,
  ) {
    const cols = ctx.probeColumns.length === 1 ? ctx.probeColumns[0]! : `(${ctx.probeColumns.join(', ')})`;
    this.description = `${cols} IN BLOOM(${bloom.count} keys, ${bloom.bits} bits, k=${bloom.hashes})`;
  }

  mayContain(): boolean {
    return true; // a Bloom filter knows nothing about ranges
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (hashes === null) throw new RangeError('the bloom filter needs the probe hashes (computed with the partition seed)');
    const bloom = this.bloom;
    if (rows === null) {
      const n = keys[0]!.length;
      for (let r = 0; r < n; r++) if (keep[r] !== 0 && !bloom.mayContain(hashes[r]!)) keep[r] = 0;
      return;
    }
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (keep[r] !== 0 && !bloom.mayContain(hashes[r]!)) keep[r] = 0;
    }
  }
}

export const bloomPushdown: PushdownPolicy = {
  name: 'bloom',
  description: `Bloom filter over the build partition's keys (${BLOOM_HASHES} hashes, ~${BLOOM_FPP * 100}% false positives), ANDed with bounds`,
  planPartition(build, ctx) {
    // bounds first: cheap per row, prunes containers, and FALSE when no build key is NULL-free
    return andFilters([boundsFilter(build, ctx), new BloomKeyFilter(bloomOf(build), ctx)]);
  },
};

const extension: Extension = {
  name: 'example.bloom',
  load(registry) {
    registry.register(PUSHDOWN, bloomPushdown);
  },
};
export default extension;
