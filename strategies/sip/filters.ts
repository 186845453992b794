/**
 * The filters a sip transfer builds, as pushdown policies over one "build partition" made of the
 * source's key columns (adapters/sql/sip-run.ts builds it): the filter kinds of core/sip.ts.
 *
 *  - `bloom`: the keys' min/max (containers and rows) AND a split-block Bloom filter at 1% false
 *    positives (rows) — what RPT and LIP use; needs no hash table, only the keys' hashes;
 *  - `bitmap` (what `lip` and `transfer` build by default): for one integer key whose range has
 *    at most 2^20 values, the keys' min/max AND their exact key-range bitmap (one bit per value:
 *    strategies/pushdown/key-range-bitmap.ts); else `bloom`. Where it exists the bitmap is exact —
 *    no false positives — and costs a subtraction and a bit test per row where the Bloom filter
 *    hashes the key and reads a 32-byte block: in a profile of SSB q2.2 at SF 1 the forward pass's
 *    key hashing and Bloom tests took about 4x the CPU time of `dynamic`'s bitmap tests. Surrogate keys and
 *    dates, the keys of star and snowflake schemas, almost always qualify;
 *  - `exact`: the `map` pushdown filter — membership in the source's hash table (plus its key-range
 *    bitmap) — so a target keeps exactly the rows whose key the source has: a semi-join;
 *  - `bounds`: min/max only;
 *  - `policy`: whatever the configured `pushdown` policy builds (it may look at the hash table).
 */
import type { Config } from '../../core/config/schema.ts';
import type { PushdownPolicy } from '../../core/pushdown/policy.ts';
import type { SipFilterKind } from '../../core/sip.ts';
import { andFilters } from '../pushdown/and.ts';
import { optimalBytes } from '../pushdown/bloom.ts';
import { buildBloom, BloomKeyFilter } from '../pushdown/bloom-key-filter.ts';
import { boundsFilter, boundsPushdown, usableRows } from '../pushdown/bounds.ts';
import { MAX_BUCKETS } from '../pushdown/key-range-bitmap.ts';
import { bitmapRowFilter, keyRangeBitmapFor, mapPushdown } from '../pushdown/map.ts';

/** The false-positive rate transfer Bloom filters are sized for (Parquet's sizing rule). */
export const TRANSFER_BLOOM_FPP = 0.01;

/** `sip.filter`, or the strategy's own kind when it says `auto`. */
export function transferKind(config: Config, own: SipFilterKind): SipFilterKind {
  const set = config['sip.filter'];
  return set === 'auto' ? own : set;
}

/** `bitmap`: min/max AND the exact key-range bitmap where there is one, else `bloomTransferPolicy`. */
export const bitmapTransferPolicy: PushdownPolicy = {
  name: 'sip-bitmap',
  description: 'min/max AND the exact key-range bitmap of one integer key (range <= 2^20 values), else min/max AND a 1% Bloom filter',
  planPartition(build, ctx) {
    const usable = usableRows(build);
    const bitmap = keyRangeBitmapFor(build, ctx, usable);
    if (bitmap === null || bitmap.width !== 1) return bloomTransferPolicy.planPartition(build, ctx);
    return andFilters([boundsFilter(build, ctx, usable), bitmapRowFilter(bitmap)]);
  },
};

export const bloomTransferPolicy: PushdownPolicy = {
  name: 'sip-bloom',
  description: 'min/max AND a split-block Bloom filter (1% false positives) over the source keys',
  planPartition(build, ctx) {
    const usable = usableRows(build);
    return andFilters([boundsFilter(build, ctx, usable), new BloomKeyFilter(buildBloom(build, { fpp: TRANSFER_BLOOM_FPP }, usable), ctx)]);
  },
};

/**
 * The policy that builds a transfer's filter of `kind`; whether it needs the source's hash table
 * (else the executor builds none: a Bloom filter needs only hashes); and, for a filter without a
 * table, the bytes it keeps once built (what stays reserved). `policy` resolves the configured
 * pushdown policy (`resolve`), which may read the table.
 */
export function transferPolicy(
  kind: SipFilterKind,
  resolve: (name: string) => PushdownPolicy,
  config: Config,
): { readonly policy: PushdownPolicy; readonly needsTable: boolean; readonly retainedBytes?: (rows: number) => number } {
  switch (kind) {
    case 'bloom':
      return { policy: bloomTransferPolicy, needsTable: false, retainedBytes: (rows) => optimalBytes(rows, TRANSFER_BLOOM_FPP) + BOUNDS_BYTES };
    case 'bitmap':
      // the bitmap holds at most MAX_BUCKETS bits, the Bloom filter it falls back to its own size
      return { policy: bitmapTransferPolicy, needsTable: false, retainedBytes: (rows) => Math.max(optimalBytes(rows, TRANSFER_BLOOM_FPP), MAX_BUCKETS / 8) + BOUNDS_BYTES };
    case 'bounds':
      return { policy: boundsPushdown, needsTable: false, retainedBytes: () => BOUNDS_BYTES };
    case 'exact':
      return { policy: mapPushdown, needsTable: true };
    case 'policy':
      return { policy: resolve(config.pushdown), needsTable: true };
  }
}

/** What a min/max pair per key column keeps, roughly (a few numbers). */
const BOUNDS_BYTES = 64;
