/**
 * What the piecewise merge join decides before a row is read: which side is buffered (held,
 * sorted, searched) and which streams, the predicate rewritten as `buffered OP streamed`, the sort
 * direction that makes every match set a suffix, and what the join type asks of each side.
 *
 * Roles (DataFusion's `PiecewiseMergeJoinExec` buffers its left input; DuckDB's
 * `PhysicalPiecewiseMergeJoin` sorts its right one and streams the left): the inner / left / right
 * / full joins buffer the LEFT input and stream the right; the semi / anti / mark joins buffer the
 * side whose rows they return, because their answer is then a property of the buffered side alone
 * — the set of buffered rows that some streamed row matches, which the watermark (watermark.ts)
 * holds as one index.
 *
 * The suffix property: with the buffered keys sorted DESCENDING, the rows with `b < s` (or
 * `b <= s`) for one streamed key `s` are a suffix of the non-NULL keys; sorted ASCENDING, so are
 * the rows with `b > s` (`b >= s`). The streamed rows are processed in the same direction, which
 * makes each row's first match at or after the previous row's. A NULL key on either side matches
 * nothing (DuckDB's `<` on NULL is NULL, which no join condition accepts).
 */
import type { Config } from '../../core/config/schema.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { FirstMatchSearch } from '../../core/pwmj-search.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { PWMJ_SEARCH } from '../../core/registry/slots.ts';
import { flipRangeOp, isAntiJoin, isMarkJoin, isSemiJoin, keepsUnmatched, outputSides, type JoinSpec, type RangeOp, type Side } from '../../core/types.ts';

export type ExistenceKind = 'semi' | 'anti' | 'mark';

export interface PiecewisePlan {
  readonly buffered: Side;
  readonly streamed: Side;
  readonly bufferedKey: string;
  readonly streamedKey: string;
  /** The common kind both key columns normalise to. */
  readonly kind: KeyKind;
  /** The predicate as `buffered OP streamed`. */
  readonly op: RangeOp;
  /** Both sides sorted descending (`<`, `<=`) or ascending (`>`, `>=`). */
  readonly descending: boolean;
  /** semi / anti / mark on the buffered side; null for inner / left / right / full. */
  readonly existence: ExistenceKind | null;
  /** Classic joins: unmatched buffered rows are output (NULL-padded). */
  readonly bufferedOuter: boolean;
  /** Classic joins: unmatched streamed rows are output (NULL-padded). */
  readonly streamedOuter: boolean;
  readonly search: FirstMatchSearch;
  readonly prefilter: boolean;
  /** Streamed partitions sharing the buffered side and its watermark. */
  readonly partitions: number;
}

/** Why the piecewise merge join cannot run `spec`, or null. */
export function piecewiseUnsupportedReason(spec: JoinSpec): string | null {
  if (!spec.range) return 'it needs one range predicate (--range "l.a < r.b"); use hash or sort-merge for equi-keys, nested-loop otherwise';
  if (spec.on.length > 0) return 'it takes a range predicate without equi-keys; with --on use hash or sort-merge (they run the range as a residual filter)';
  if (spec.filter) return 'it takes the range predicate alone, without a residual --filter (DataFusion\'s planner rule); nested-loop runs both';
  if (spec.nullAware) return 'a null-aware (NOT IN) anti join needs an equi-key';
  return null;
}

export function planPiecewise(join: BoundJoin, config: Config, registry: Registry): PiecewisePlan {
  const spec = join.spec;
  const range = spec.range!;
  const sides = outputSides(spec.type);
  const existence: ExistenceKind | null = isSemiJoin(spec.type) ? 'semi' : isAntiJoin(spec.type) ? 'anti' : isMarkJoin(spec.type) ? 'mark' : null;
  const buffered: Side = sides === 'right' ? 'right' : 'left';
  const streamed: Side = buffered === 'left' ? 'right' : 'left';
  const op = buffered === 'left' ? range.op : flipRangeOp(range.op);
  return {
    buffered,
    streamed,
    bufferedKey: buffered === 'left' ? range.left : range.right,
    streamedKey: buffered === 'left' ? range.right : range.left,
    kind: join.rangeKind!,
    op,
    descending: op === '<' || op === '<=',
    existence,
    bufferedOuter: existence === null && keepsUnmatched(spec.type, buffered),
    streamedOuter: existence === null && keepsUnmatched(spec.type, streamed),
    search: registry.resolve(PWMJ_SEARCH, config['pwmj.search']),
    prefilter: config['pwmj.prefilter'],
    partitions: config['pwmj.partitions'],
  };
}
