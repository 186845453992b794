/**
 * Where a key group ends inside one sorted batch: the first row after `start` whose key differs
 * from row `start`'s, or `end` when the group runs to the end of the batch (and may continue in
 * the next one — the cursor checks that at the boundary).
 *
 * Three steps, cheapest first, as DataFusion's sort-merge join does (`find_key_group_end` in
 * datafusion/physical-plan/src/joins/sort_merge_join/): the adjacent row (unique keys, the common
 * case, one comparison), the last row of the batch (a group that fills the rest of the batch, one
 * more), then a binary search between the two — a group of g rows costs O(log g) comparisons, not
 * g, so a skewed key is skipped in logarithmic time.
 *
 * `equal(i, j)` is the batch's equality under the sort order (NULL equals NULL: NULL keys form a
 * group too; whether such a group can match is the merge's business, not this function's).
 */
export function findKeyGroupEnd(equal: (i: number, j: number) => boolean, start: number, end: number): number {
  if (start + 1 >= end || !equal(start, start + 1)) return start + 1;
  if (equal(start, end - 1)) return end;
  // invariant: row lo is in the group, row hi is not
  let lo = start + 1;
  let hi = end - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (equal(start, mid)) lo = mid;
    else hi = mid;
  }
  return hi;
}
