/**
 * Linear first-match search (`pwmj.search=linear`): the forward scan from `lo`, one call of
 * `matches` per buffered row passed over. The registered baseline the binary search is measured
 * against (with `pwmj.prefilter=false`, the piecewise merge join without either optimisation).
 */
import type { FirstMatchSearch, MatchPredicate } from '../../core/pwmj-search.ts';

export function linearFirstMatch(p: MatchPredicate, lo: number, hi: number): number {
  let i = lo;
  while (i < hi && !p.matches(i)) i++;
  return i;
}

export const linearSearch: FirstMatchSearch = {
  name: 'linear',
  description: 'forward scan from the previous streamed row\'s match to the first buffered row that matches (the baseline)',
  firstMatch: linearFirstMatch,
};
