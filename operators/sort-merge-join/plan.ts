/**
 * Everything the sort-merge join decides before reading a row (a pure function of the bound join,
 * the two scans' declared orders and the config).
 *
 * Roles. The *streamed* side drives the merge and is read a batch at a time; the *buffered* side's
 * current key group is kept (buffered, spilled if need be) while the streamed side's group with the
 * same key is joined against it. For semi / anti / mark joins the streamed side is the outer
 * (returned) side — its rows are decided per batch by one bit each — and the inner side is
 * buffered; for inner / left / full joins left streams, for a right join right streams, so the
 * side whose unmatched rows are kept is decided segment by segment (a full join also returns the
 * buffered group's unmatched rows when the group ends).
 *
 * Order. Both inputs must be in one order on the join keys (the same key columns in the same
 * sequence, the same direction and NULL placement per column). A scan that declares its order
 * (`Scan.sortedOn`) on all the join keys — in any permutation of the key pairs — is not sorted
 * again: the key pairs are reordered to follow it and only the other input is sorted, in that
 * order (when both declare usable orders that differ, the larger input keeps its order). With no
 * declared order both are sorted ASC NULLS LAST. A null-aware anti join (NOT IN) needs its NULL
 * keys first on both sides (the inner side's NULLs decide every outer row's fate before any row is
 * emitted), so a declared NULLS LAST order is not usable for it and it sorts NULLS FIRST.
 */
import type { Config } from '../../core/config/schema.ts';
import type { KeySortOrder } from '../../core/keys/order.ts';
import type { KeyKind } from '../../core/keys/types.ts';
import type { BoundJoin } from '../../core/plan.ts';
import type { Registry } from '../../core/registry/registry.ts';
import { SMJ_EXISTENCE } from '../../core/registry/slots.ts';
import type { Scan, ScanSortColumn } from '../../core/scan/scan.ts';
import type { SmjExistenceStream } from '../../core/smj-existence.ts';
import { isAntiJoin, isMarkJoin, isSemiJoin, keepsUnmatched, outputSides, type Side } from '../../core/types.ts';

export type RowOutput = 'semi' | 'anti' | 'mark';

export interface SideOrder {
  readonly side: Side;
  /** The side's key columns, in merge order. */
  readonly keys: readonly string[];
  /** False when the scan declared this order itself: then it is checked, not sorted. */
  readonly sort: boolean;
}

export interface SortMergePlan {
  readonly streamed: SideOrder;
  readonly buffered: SideOrder;
  /** Key kinds and sort orders per key column, in merge order. */
  readonly kinds: readonly KeyKind[];
  readonly orders: readonly KeySortOrder[];
  /** inner/left/right/full: output pairs. */
  readonly pairs: boolean;
  readonly keepStreamed: boolean;
  readonly keepBuffered: boolean;
  /** semi/anti/mark: what the streamed (outer) rows' bits mean. */
  readonly rowOutput: RowOutput | null;
  readonly notIn: boolean;
  /** A NULL in any key column never matches (null-equals-nothing, and NOT IN's equality). */
  readonly nullsNeverMatch: boolean;
  /** The existence stream, for semi/anti/mark joins. */
  readonly existence: SmjExistenceStream | null;
}

/** A usable declared order: the permutation of key pairs it implies and its per-column orders. */
interface Claim {
  readonly perm: readonly number[];
  readonly orders: readonly KeySortOrder[];
}

/** The order `sortedOn` gives the key columns `keys`, if its first keys.length columns are exactly them. */
export function claimedKeyOrder(sortedOn: readonly ScanSortColumn[] | undefined, keys: readonly string[]): Claim | null {
  if (sortedOn === undefined || sortedOn.length < keys.length || keys.length === 0) return null;
  if (new Set(keys).size !== keys.length) return null;
  const perm: number[] = [];
  const orders: KeySortOrder[] = [];
  for (let k = 0; k < keys.length; k++) {
    const c = sortedOn[k]!;
    const idx = keys.indexOf(c.column);
    if (idx < 0 || perm.includes(idx)) return null;
    perm.push(idx);
    orders.push({ descending: c.descending, nullsFirst: c.nullsFirst });
  }
  return { perm, orders };
}

function sameClaim(a: Claim, b: Claim): boolean {
  return a.perm.every((p, k) => p === b.perm[k] && a.orders[k]!.descending === b.orders[k]!.descending && a.orders[k]!.nullsFirst === b.orders[k]!.nullsFirst);
}

function rowOutputOf(join: BoundJoin): RowOutput | null {
  const t = join.spec.type;
  if (isSemiJoin(t)) return 'semi';
  if (isAntiJoin(t)) return 'anti';
  if (isMarkJoin(t)) return 'mark';
  return null;
}

export function planSortMerge(join: BoundJoin, inputs: { readonly left: Scan; readonly right: Scan }, config: Config, registry: Registry): SortMergePlan {
  const { spec } = join;
  const sides = outputSides(spec.type);
  const streamed: Side = sides === 'both' ? (spec.type === 'right' ? 'right' : 'left') : sides;
  const buffered: Side = streamed === 'left' ? 'right' : 'left';
  const notIn = spec.nullAware && isAntiJoin(spec.type);
  const rowOutput = rowOutputOf(join);
  const existence = rowOutput === null ? null : registry.resolve(SMJ_EXISTENCE, config['smj.existence']);

  const usable = (c: Claim | null): Claim | null => (c !== null && notIn && !c.orders.every((o) => o.nullsFirst) ? null : c);
  const left = usable(claimedKeyOrder(inputs.left.sortedOn, join.leftKeys));
  const right = usable(claimedKeyOrder(inputs.right.sortedOn, join.rightKeys));
  let claim: Claim;
  let sortLeft = true;
  let sortRight = true;
  if (left !== null && right !== null && sameClaim(left, right)) {
    claim = left;
    sortLeft = sortRight = false;
  } else if (left !== null && (right === null || inputs.left.numRows >= inputs.right.numRows)) {
    claim = left;
    sortLeft = false;
  } else if (right !== null) {
    claim = right;
    sortRight = false;
  } else {
    const order: KeySortOrder = { descending: false, nullsFirst: notIn };
    claim = { perm: join.leftKeys.map((_, k) => k), orders: join.leftKeys.map(() => order) };
  }
  const leftOrder: SideOrder = { side: 'left', keys: claim.perm.map((k) => join.leftKeys[k]!), sort: sortLeft };
  const rightOrder: SideOrder = { side: 'right', keys: claim.perm.map((k) => join.rightKeys[k]!), sort: sortRight };
  return {
    streamed: streamed === 'left' ? leftOrder : rightOrder,
    buffered: streamed === 'left' ? rightOrder : leftOrder,
    kinds: claim.perm.map((k) => join.keyKinds[k]!),
    orders: claim.orders,
    pairs: sides === 'both',
    keepStreamed: keepsUnmatched(spec.type, streamed),
    keepBuffered: keepsUnmatched(spec.type, buffered),
    rowOutput,
    notIn,
    nullsNeverMatch: notIn || spec.nullEquality === 'null-equals-nothing',
    existence,
  };
}
