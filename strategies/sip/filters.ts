/**
 * The filters a sip transfer builds, as pushdown policies over one "build partition" made of the
 * source's key columns (adapters/sql/sip-run.ts builds it): the filter kinds of core/sip.ts.
 *
 *  - `bloom`: the keys' min/max (containers and rows) AND a split-block Bloom filter at 1% false
 *    positives (rows) — what RPT and LIP use; needs no hash table, only the keys' hashes;
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
import { mapPushdown } from '../pushdown/map.ts';

/** The false-positive rate transfer Bloom filters are sized for (Parquet's sizing rule). */
export const TRANSFER_BLOOM_FPP = 0.01;

/** `sip.filter`, or the strategy's own kind when it says `auto`. */
export function transferKind(config: Config, own: SipFilterKind): SipFilterKind {
  const set = config['sip.filter'];
  return set === 'auto' ? own : set;
}

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
