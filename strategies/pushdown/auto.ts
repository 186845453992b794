/**
 * `auto`: DataFusion's choice per build partition — an exact IN list while the partition is small
 * (<= `pushdown.inlistMaxDistinct` distinct keys and <= `pushdown.inlistMaxBytes` key bytes),
 * otherwise a membership test against the build's hash table (+ a KeyRangeBitmap for one integer
 * key when `pushdown.keyRangeBitmap`), always ANDed with the min/max bounds (DataFusion publishes
 * `bounds AND membership`; bounds are what container statistics can always be tested against).
 *
 * Because the `inlist` policy falls back to the map exactly as DataFusion does, `auto` and
 * `inlist` make the same choice; `auto` is the name experiments use for "what DataFusion would
 * do", `inlist` the name that documents the intent. A partition whose keys are all NULL publishes
 * FALSE (see and.ts); the composer handles empty and failed partitions.
 */
import type { PushdownPolicy } from '../../core/pushdown/policy.ts';
import { andFilters, FALSE_FILTER } from './and.ts';
import { boundsFilter, usableRows } from './bounds.ts';
import { membershipFilter } from './inlist.ts';

export const autoPushdown: PushdownPolicy = {
  name: 'auto',
  description: "DataFusion's choice: IN list when small enough, else hash-table map (+ key-range bitmap), ANDed with min/max bounds",
  planPartition(build, ctx) {
    const usable = usableRows(build);
    if (usable.count === 0) return FALSE_FILTER;
    return andFilters([boundsFilter(build, ctx, usable), membershipFilter(build, ctx, usable)]);
  },
};
