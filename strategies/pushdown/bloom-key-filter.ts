/**
 * A build partition's keys as a split-block Bloom filter (bloom.ts), as a `KeyFilter`: the
 * building block of the engine policies that publish Bloom filters (DuckDB, Spark).
 *
 * Invariants:
 *  - Keys are inserted as the partition's own join hashes (`build.hashes`, or `hashKeys` with the
 *    partition's seed); the composer hands `test` the probe rows' hashes with that same seed
 *    (`needsHashes`), so equal keys meet whatever their Arrow types (normalisation made them equal
 *    words) and a probe row costs no extra hashing. A whole batch is tested in one pass.
 *  - Build rows with a NULL key are left out: NULL keys never reach a KeyFilter, and a NULL-free
 *    probe row cannot equal a build row that has a NULL.
 *  - A Bloom filter only clears a row whose key is certainly absent, so it never drops a match;
 *    it knows nothing about ranges, so `mayContain` is always true (policies AND bounds in).
 *  - Sizing is the policy's: a byte size (rounded to a power of two of 32-byte blocks) or Parquet's
 *    rule for a false-positive rate.
 */
import { hashKeys } from '../../core/keys/hash.ts';
import type { KeyColumn } from '../../core/keys/types.ts';
import type { BuildPartition, KeyFilter, PushdownContext, SharedKeyFilter } from '../../core/pushdown/policy.ts';
import { registerKeyFilterKind } from '../../core/pushdown/shared-filters.ts';
import { shareView } from '../../core/parallel/wire.ts';
import { SplitBlockBloomFilter } from './bloom.ts';
import { usableRows, type UsableRows } from './bounds.ts';

/** How big the filter is: exactly `bytes` (a positive multiple of 32), or sized by Parquet's rule for `fpp`. */
export type BloomSizing = { readonly bytes: number } | { readonly fpp: number };

/** The partition's NULL-free keys in a filter sized by `sizing` for `usable.count` keys. */
export function buildBloom(build: BuildPartition, sizing: BloomSizing, usable: UsableRows = usableRows(build)): SplitBlockBloomFilter {
  const bloom = 'bytes' in sizing ? SplitBlockBloomFilter.ofBytes(sizing.bytes) : SplitBlockBloomFilter.forKeys(usable.count, sizing.fpp);
  if (usable.count > 0) bloom.insertHashes(build.hashes ?? hashKeys(build.keys, build.seed), build.rows, usable.skip);
  return bloom;
}

/** `1.5 MiB`, `64 KiB`, `512 B`. */
export function formatBytes(n: number): string {
  if (n >= 1 << 20) return `${+(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${+(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

export class BloomKeyFilter implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes = true;

  constructor(
    readonly bloom: SplitBlockBloomFilter,
    ctx: PushdownContext,
  ) {
    const cols = ctx.probeColumns.length === 1 ? ctx.probeColumns[0]! : `(${ctx.probeColumns.join(', ')})`;
    this.description = `${cols} IN BLOOM(${bloom.inserted} keys, ${bloom.bytes * 8} bits, split-block)`;
    this.label = `bloom(${formatBytes(bloom.bytes)})`;
  }

  mayContain(): boolean {
    return true;
  }

  test(_keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    if (hashes === null) throw new RangeError('the Bloom filter needs the probe hashes (computed with the partition seed)');
    this.bloom.testHashes(hashes, rows, keep);
  }

  /** Tests the key hashes only, so raw int32 keys test as their normalised words do. */
  testInt32(_values: Int32Array, hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.test([], hashes, rows, keep);
  }

  /** The filter's words in shared memory (copied there once; every worker tests the same bits). */
  share(): SharedKeyFilter {
    return { kind: 'bloom', state: { words: shareView(this.bloom.words), inserted: this.bloom.inserted } };
  }
}

registerKeyFilterKind('bloom', (raw, env) => {
  const s = raw as { readonly words: Uint32Array; readonly inserted: number };
  return new BloomKeyFilter(SplitBlockBloomFilter.overWords(s.words, s.inserted), env.ctx);
});
