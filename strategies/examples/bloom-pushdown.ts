/**
 * Example user extension: a `bloom` pushdown policy — a split-block Bloom filter over each build
 * partition's keys, published into the probe scan.
 *
 * Why it exists: it is the worked example of a third-party strategy (written against `index.ts`,
 * loaded with `extensions: [...]`, selected with `pushdown: bloom`), and a useful point in the
 * design space between `inlist` (exact, only for small builds) and `map` (exact, but a probe of
 * the build's whole hash table per row): a Bloom filter is a few bits per build key, so it stays
 * cache-resident when the hash table does not, at the price of letting ~1% of non-matching rows
 * through — which the join then drops anyway.
 *
 * How:
 *  - The filter is joinlab's `SplitBlockBloomFilter` (strategies/pushdown/bloom.ts, exported from
 *    `index.ts`): Parquet's layout, 256-bit blocks and 8 bits per key, so a lookup reads one cache
 *    line; sized by Parquet's rule for BLOOM_FPP. It replaced a classic Bloom filter (7 random bit
 *    reads per probe row), which made this policy slower than `none`.
 *  - Keys are hashed with `hashKeys` and the partition's seed — the exact hashes the composer
 *    computes for probe rows when `needsHashes` is true, so a probe row costs no extra hashing; a
 *    whole batch of hashes is tested in one pass (`testHashes`). Equal keys hash equally whatever
 *    their Arrow type (normalisation made them equal words).
 *  - Build rows with a NULL key are left out: the composer keeps or drops probe rows with NULL
 *    keys itself and never passes them to `test`, and a NULL-free probe row cannot equal them.
 *  - `test` clears `keep` only where the filter says "absent" — the key then definitely is — so it
 *    never drops a matching row. A Bloom filter cannot say anything about a min/max range, so on
 *    its own `mayContain` is true; it is ANDed with the `bounds` filter (cheap, checked first),
 *    which prunes containers and rows outside [min, max], and is FALSE when every build key is NULL.
 *
 * A setting of its own (issue 30): `pushdown.bloom.fpp`, the target false-positive rate, declared
 * in the extension object (`settings`: a zod schema, a default, a description). Once the extension
 * is loaded the key is a config key like any other — in a config file, an experiment's `config:`
 * or a variant's, `--set pushdown.bloom.fpp=0.05` — validated against that schema (`0` or `1.5` is
 * an error naming the key and this extension; a misspelt `pushdown.bloom.fp` is an unknown key with
 * the closest one suggested), listed by `joinlab config` and `joinlab strategies`, and read typed
 * with `settingReader`.
 *
 * Imports outside `index.ts`: none (`hashKeys`, `andFilters`, `boundsFilter`,
 * `SplitBlockBloomFilter`, `defineSettings`, `settingReader` and joinlab's `z` are all exported
 * there).
 */
import {
  andFilters,
  boundsFilter,
  defineSettings,
  hashKeys,
  PUSHDOWN,
  registerKeyFilterKind,
  settingReader,
  shareView,
  SplitBlockBloomFilter,
  z,
  type BuildPartition,
  type Extension,
  type KeyFilter,
  type PushdownContext,
  type PushdownPolicy,
  type SharedKeyFilter,
} from '../../index.ts';

type KeyColumn = BuildPartition['keys'][number];

/** Target false-positive rate of the filter (the default of `pushdown.bloom.fpp`). */
export const BLOOM_FPP = 0.01;

/** The config keys this extension declares (the key's default, validation and meaning). */
export const BLOOM_SETTINGS = defineSettings({
  'pushdown.bloom.fpp': {
    schema: z.number().gt(0).lt(1),
    default: BLOOM_FPP,
    description: "pushdown: bloom's target false-positive rate, above 0 and below 1 (the filter is sized for it: 0.01 about 9.7 bits a key, 0.001 about 14.6, before rounding up to a power of two)",
  },
});
const setting = settingReader(BLOOM_SETTINGS);

/** The partition's NULL-free build rows' keys, inserted into a filter sized for them at false-positive rate `fpp`. */
export function bloomOf(build: BuildPartition, fpp = BLOOM_FPP): SplitBlockBloomFilter {
  const n = build.rows;
  const hasNull = new Uint8Array(n);
  for (const col of build.keys as readonly KeyColumn[]) {
    const nulls = col.nulls;
    if (nulls !== null) for (let r = 0; r < n; r++) hasNull[r]! |= nulls[r]!;
  }
  let usable = 0;
  for (let r = 0; r < n; r++) usable += hasNull[r] === 0 ? 1 : 0;
  const bloom = SplitBlockBloomFilter.forKeys(usable, fpp);
  if (usable === 0) return bloom; // empty: rejects every row
  bloom.insertHashes(build.hashes ?? hashKeys(build.keys, build.seed), n, hasNull);
  return bloom;
}

export class BloomKeyFilter implements KeyFilter {
  readonly description: string;
  readonly needsHashes = true;

  constructor(
    readonly bloom: SplitBlockBloomFilter,
    ctx: PushdownContext,
  ) {
    const cols = ctx.probeColumns.length === 1 ? ctx.probeColumns[0]! : `(${ctx.probeColumns.join(', ')})`;
    this.description = `${cols} IN BLOOM(${bloom.inserted} keys, ${bloom.bytes * 8} bits, split-block)`;
  }

  mayContain(): boolean {
    return true; // a Bloom filter knows nothing about ranges
  }

  test(_keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (hashes === null) throw new RangeError('the bloom filter needs the probe hashes (computed with the partition seed)');
    this.bloom.testHashes(hashes, rows, keep);
  }

  /**
   * At `threads` > 1 the workers that decode and probe the probe side run this filter's `test`
   * too: the bits go to them in shared memory, and the restorer registered below (this module
   * loads in every worker, as every configured extension does) rebuilds the filter there.
   */
  share(): SharedKeyFilter {
    return { kind: 'example.bloom', state: { words: shareView(this.bloom.words), inserted: this.bloom.inserted } };
  }
}

registerKeyFilterKind('example.bloom', (raw, env) => {
  const s = raw as { readonly words: Uint32Array; readonly inserted: number };
  return new BloomKeyFilter(SplitBlockBloomFilter.overWords(s.words, s.inserted), env.ctx);
});

export const bloomPushdown: PushdownPolicy = {
  name: 'bloom',
  description: `split-block Bloom filter over the build partition's keys (pushdown.bloom.fpp false positives, ${BLOOM_FPP * 100}% by default; one cache line per probe row), ANDed with bounds`,
  planPartition(build, ctx) {
    // bounds first: cheap per row, prunes containers, and FALSE when no build key is NULL-free
    return andFilters([boundsFilter(build, ctx), new BloomKeyFilter(bloomOf(build, setting(ctx.config, 'pushdown.bloom.fpp')), ctx)]);
  },
};

const extension: Extension = {
  name: 'example.bloom',
  settings: BLOOM_SETTINGS,
  load(registry) {
    registry.register(PUSHDOWN, bloomPushdown);
  },
};
export default extension;
