/**
 * What a piecewise merge join first-match search is (slot `pwmj.search`, config key
 * `pwmj.search`): given a buffered side sorted so that, for one streamed key, the buffered rows
 * that satisfy the range predicate form a suffix of a range [lo, hi), where does that suffix
 * begin?
 *
 * The predicate `matches(i)` is monotone over [lo, hi): false … false, true … true. The answer is
 * the first i with `matches(i)` true, or `hi` when there is none. Because the streamed side is
 * processed in sorted order too, each answer is a lower bound for the next, so callers pass the
 * previous answer as `lo` (DuckDB's PhysicalPiecewiseMergeJoin and DataFusion's
 * `piecewise_merge_join` both walk forward this way).
 *
 * Two built-ins (strategies/pwmj-search/): `binary`, at most ceil(log2(hi - lo + 1)) calls of
 * `matches`, and `linear`, the forward scan — the registered baseline the speed-up is measured
 * against. `matches` is an object built once per streamed batch (its current key set per call),
 * not a closure per row.
 */
import type { Strategy } from './registry/registry.ts';

/** A monotone predicate over buffered rows, for the current streamed key. */
export interface MatchPredicate {
  matches(i: number): boolean;
}

export interface FirstMatchSearch extends Strategy {
  /** The first i in [lo, hi) with `p.matches(i)`, or `hi`; `p` is monotone over [lo, hi). */
  firstMatch(p: MatchPredicate, lo: number, hi: number): number;
}
