/**
 * The join vocabulary shared by every operator, strategy and adapter.
 *
 * Semantics follow DuckDB (the parity reference):
 * - `=` never matches NULL (`null-equals-nothing`); `IS NOT DISTINCT FROM` does (`null-equals-null`).
 * - `nullAware` turns a left/right anti join into SQL `NOT IN`: a NULL key on the inner side
 *   empties the result, and an outer NULL key never qualifies once the inner side is non-empty.
 * - Mark joins return every row of the marked side plus a non-null boolean `mark` column
 *   (`EXISTS (…) AS mark`).
 * "left" and "right" always name the join's input sides; which one is built or probed is a
 * strategy decision that never changes the result.
 */
import type { Expr, Side } from './expr/ast.ts';

export const JOIN_TYPES = [
  'inner',
  'left',
  'right',
  'full',
  'left-semi',
  'left-anti',
  'right-semi',
  'right-anti',
  'left-mark',
  'right-mark',
] as const;
export type JoinType = (typeof JOIN_TYPES)[number];

export type NullEquality = 'null-equals-nothing' | 'null-equals-null';

export type { Side } from './expr/ast.ts';

/** One equi-join conjunct: `left.<left> = right.<right>`. */
export interface KeyPair {
  readonly left: string;
  readonly right: string;
}

export const RANGE_OPS = ['<', '<=', '>', '>='] as const;
export type RangeOp = (typeof RANGE_OPS)[number];

/** One inequality conjunct: `left.<left> OP right.<right>` (the piecewise merge join's predicate). */
export interface RangePredicate {
  readonly left: string;
  readonly op: RangeOp;
  readonly right: string;
}

/** A complete, validated description of one join (the "what"; configuration is the "how"). */
export interface JoinSpec {
  readonly type: JoinType;
  /** Equi-key pairs; may be empty when `range` is given (or for a cross product). */
  readonly on: readonly KeyPair[];
  readonly range?: RangePredicate;
  /** Residual predicate over both sides, evaluated after key equality; NULL counts as false. */
  readonly filter?: Expr;
  readonly nullEquality: NullEquality;
  /** `NOT IN` semantics; only meaningful for left-anti / right-anti with one key pair. */
  readonly nullAware: boolean;
  /**
   * Output columns to produce, by their output names (core/output-schema.ts), in this order;
   * absent: every output column. Input columns nothing needs are then never read or gathered.
   */
  readonly select?: readonly string[];
}

/** Which side's rows a join type returns (for semi/anti/mark) or `both`. */
export function outputSides(type: JoinType): 'both' | Side {
  switch (type) {
    case 'inner':
    case 'left':
    case 'right':
    case 'full':
      return 'both';
    case 'left-semi':
    case 'left-anti':
    case 'left-mark':
      return 'left';
    default:
      return 'right';
  }
}

/** Whether unmatched rows of `side` are emitted (null-padded) by an outer join type. */
export function keepsUnmatched(type: JoinType, side: Side): boolean {
  if (type === 'full') return true;
  return (type === 'left' && side === 'left') || (type === 'right' && side === 'right');
}

export function isMarkJoin(type: JoinType): boolean {
  return type === 'left-mark' || type === 'right-mark';
}

export function isAntiJoin(type: JoinType): boolean {
  return type === 'left-anti' || type === 'right-anti';
}

export function isSemiJoin(type: JoinType): boolean {
  return type === 'left-semi' || type === 'right-semi';
}

/** Mirror a range operator so that `a OP b` == `b flip(OP) a`. */
export function flipRangeOp(op: RangeOp): RangeOp {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
  }
}
