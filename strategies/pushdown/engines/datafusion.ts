/**
 * `datafusion`: DataFusion's dynamic filter for a hash join (the rules joinlab's `auto` has always
 * followed; `auto` stays as its alias). Per build partition: an exact IN list while the partition
 * is small — at most `pushdown.inlistMaxDistinct` distinct keys (DataFusion's
 * `optimizer.hash_join_inlist_pushdown_max_distinct_values`, 150) and at most
 * `pushdown.inlistMaxBytes` key bytes (`optimizer.hash_join_inlist_pushdown_max_size`, 128 KiB) —
 * otherwise a membership test against the build's own hash table (DataFusion's
 * `HashTableLookupExpr`), always ANDed with the per-column min/max bounds: DataFusion publishes
 * `bounds AND membership`, and bounds are what container statistics can always be tested against.
 * In partitioned mode each partition's filter applies to the probe rows routed to it
 * (`CASE hash_repartition(k) % N WHEN i THEN filter_i`), which core/pushdown/compose.ts does.
 *
 * Source: apache/datafusion (main, 2026), `physical-plan/src/joins/hash_join/shared_bounds.rs` and
 * `inlist_builder.rs` (the IN list and its limits), `common/src/config.rs` (the two options).
 * joinlab adds, when `pushdown.keyRangeBitmap` is on and the key is one integer column, a
 * KeyRangeBitmap before the table lookup (strategies/pushdown/key-range-bitmap.ts) — DataFusion's
 * proposal for dense integer keys. A partition whose keys are all NULL publishes FALSE (and.ts).
 */
import type { PushdownPolicy } from '../../../core/pushdown/policy.ts';
import { andFilters, FALSE_FILTER } from '../and.ts';
import { boundsFilter, usableRows } from '../bounds.ts';
import { membershipFilter } from '../inlist.ts';

export const datafusionPushdown: PushdownPolicy = {
  name: 'datafusion',
  description: "DataFusion's choice: IN list when small enough (pushdown.inlistMaxDistinct, pushdown.inlistMaxBytes), else hash-table map (+ key-range bitmap), ANDed with min/max bounds",
  planPartition(build, ctx) {
    const usable = usableRows(build);
    if (usable.count === 0) return FALSE_FILTER;
    return andFilters([boundsFilter(build, ctx, usable), membershipFilter(build, ctx, usable)]);
  },
};
