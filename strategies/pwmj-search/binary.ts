/**
 * Binary first-match search (`pwmj.search=binary`, the default): a lower bound over the
 * monotone predicate, halving the candidate range each call — at most ceil(log2(hi - lo + 1))
 * calls of `matches` for the hi - lo + 1 possible answers, and 0 for an empty range.
 */
import type { FirstMatchSearch, MatchPredicate } from '../../core/pwmj-search.ts';

export function binaryFirstMatch(p: MatchPredicate, lo: number, hi: number): number {
  // invariant: every i < lo does not match (or is outside the range), every i >= hi matches or is hi
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = a + ((b - a) >>> 1);
    if (p.matches(mid)) b = mid;
    else a = mid + 1;
  }
  return a;
}

export const binarySearch: FirstMatchSearch = {
  name: 'binary',
  description: 'binary search for the first buffered row that matches (at most ceil(log2(n + 1)) comparisons), starting at the previous streamed row\'s match',
  firstMatch: binaryFirstMatch,
};
