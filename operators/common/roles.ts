/**
 * What each side of a hash join does, given the join type and which side is built.
 *
 * The hash join is symmetric in its inputs: `hash.build` picks the build side and the other side
 * streams through as the probe. Everything the operator needs to know about the join type is
 * derived here once — which unmatched rows survive, which side's rows a semi/anti/mark join
 * returns, and whether a dynamic filter may be pushed into the probe scan at all.
 *
 * Pushdown is sound only when a probe row that matches no build key can never reach the output:
 * not when unmatched probe rows are kept (outer join preserving the probe side) or returned
 * (anti or mark join on the probe side), nor for a null-aware anti join with a residual filter
 * (see not-in.ts). Under null-equals-null, or a null-aware anti join whose outer side is the
 * build, probe rows with NULL keys matter and the filter must keep them.
 */
import type { BoundJoin } from '../../core/plan.ts';
import type { JoinSpec, Side } from '../../core/types.ts';
import { isAntiJoin, isMarkJoin, isSemiJoin, keepsUnmatched, outputSides } from '../../core/types.ts';
import { rangeResidualUnsupportedReason } from './range-residual.ts';

export type RowOutput = 'semi' | 'anti' | 'mark' | null;

export interface JoinRoles {
  readonly build: Side;
  readonly probe: Side;
  /** inner/left/right/full: output (left, right) pairs. */
  readonly emitPairs: boolean;
  readonly keepUnmatchedProbe: boolean;
  readonly keepUnmatchedBuild: boolean;
  /** semi/anti/mark output decided per probe row while probing. */
  readonly probeRows: RowOutput;
  /** semi/anti/mark output decided per build row after the probe side is exhausted. */
  readonly buildRows: RowOutput;
  /** Null-aware (NOT IN) anti join: whose rows are returned. */
  readonly nullAwareOuter: 'probe' | 'build' | null;
  readonly canPushDown: boolean;
  readonly keepProbeNullKeys: boolean;
}

function rowOutput(spec: JoinSpec): RowOutput {
  if (isSemiJoin(spec.type)) return 'semi';
  if (isAntiJoin(spec.type)) return 'anti';
  if (isMarkJoin(spec.type)) return 'mark';
  return null;
}

export function joinRoles(spec: JoinSpec, build: Side): JoinRoles {
  const probe: Side = build === 'left' ? 'right' : 'left';
  const sides = outputSides(spec.type);
  const out = rowOutput(spec);
  const probeRows = sides === probe ? out : null;
  const buildRows = sides === build ? out : null;
  const keepUnmatchedProbe = keepsUnmatched(spec.type, probe);
  const nullAwareOuter = spec.nullAware ? (sides === probe ? 'probe' : 'build') : null;
  return {
    build,
    probe,
    emitPairs: sides === 'both',
    keepUnmatchedProbe,
    keepUnmatchedBuild: keepsUnmatched(spec.type, build),
    probeRows,
    buildRows,
    nullAwareOuter,
    // NOT IN with a filter needs every inner row: one whose key matches nothing may still pass the
    // filter with an outer row whose key is NULL (operators/hash-join/not-in.ts)
    canPushDown: !keepUnmatchedProbe && probeRows !== 'anti' && probeRows !== 'mark' && !(spec.nullAware && spec.filter !== undefined),
    keepProbeNullKeys: spec.nullEquality === 'null-equals-null' || nullAwareOuter === 'build',
  };
}

/**
 * Why a join that matches on equi-keys (hash, sort-merge) cannot run `join`, or null: it needs a
 * key pair. A range predicate beside the keys runs as part of the residual filter
 * (range-residual.ts: the operator rewrites the join with `rangeAsResidual` before it plans).
 */
export function equiJoinUnsupportedReason(join: BoundJoin): string | null {
  if (join.spec.on.length === 0) return 'it needs at least one equi-key (--on); use join=piecewise for a pure range predicate (join=auto picks it), nested-loop otherwise';
  return rangeResidualUnsupportedReason(join);
}
