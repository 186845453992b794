/**
 * Row estimates for a FROM tree (issue 26): what the join planner (join-order.ts) compares plans
 * by, what decides which side of each hash join builds (the side with fewer estimated rows), and
 * what `--explain` prints beside the actual rows.
 *
 * - A table: its rows after its static WHERE conjuncts (selectivity.ts: containers kept by the
 *   compiled predicate, and the conjuncts' selectivity).
 * - An inner join: |L| x |R| x the selectivity of the conditions that join them. Equalities
 *   between the same two inputs are one composite key: each side's distinct keys are the product
 *   of its columns' NDVs, at most its table's rows (table-stats.ts). When one side is unique on the
 *   key (a primary key), the other side's keys are taken to be among its keys (a foreign key:
 *   containment), so the selectivity is 1 / the unique side's NDV (both unique: the smaller);
 *   otherwise 1 / the larger (the textbook formula). With NDVs from the base tables and rows after filters,
 *   `fact ⋈ filtered dimension` comes out as |fact| x (the dimension's kept share) — the
 *   foreign-key estimate — and `lineitem ⋈ orders` as |lineitem| even where the order keys'
 *   range makes `l_orderkey` look unique. A range comparison between the inputs keeps a third,
 *   `<>` nearly all, anything else DuckDB's default 0.2.
 * - Outer joins keep at least their preserved side's rows; semi / anti / mark joins their outer side's.
 * Because an inner join's estimate is a product over its tables and conditions, every order of the
 * same tables and conditions gets the same estimate — what dynamic programming over join orders
 * relies on.
 */
import type { SqlExpr } from './ast.ts';
import { DataType } from 'apache-arrow';
import { leafColumns, leafPredicate, leaves, type FromPlan, type Leaf } from './join-tree.ts';
import { conjuncts } from './relation.ts';
import { DEFAULT_SELECTIVITY, estimateFilteredRows, type ColumnResolver } from './selectivity.ts';
import { profileOf, type ColumnProfile } from './table-stats.ts';

/** A column of a FROM table: the leaf, its name in the leaf's scan, its profile. */
export interface ColumnSource {
  readonly leaf: Leaf;
  readonly field: string;
  readonly type: DataType;
  readonly profile: ColumnProfile | undefined;
}

/** The FROM table column `e` names among `scope` (qualified, or a bare name one table has), or null. */
export function columnSource(e: Extract<SqlExpr, { kind: 'column' }>, scope: readonly Leaf[]): ColumnSource | null {
  if (e.names.length > 2) return null;
  const [rel, name] = e.names.length === 2 ? [e.names[0]!, e.names[1]!] : [null, e.names[0]!];
  const hits = scope.flatMap((l) => (rel === null || l.name === rel ? leafColumns(l).filter((c) => c.name === name).map((c) => ({ leaf: l, out: c.out })) : []));
  if (hits.length !== 1) return null;
  const { leaf, out } = hits[0]!;
  const field = leaf.scan.schema.fields.find((f) => f.name === out)!;
  return { leaf, field: out, type: field.type, profile: profileOf(leaf.scan).column(out) };
}

/** A leaf's rows after its static conjuncts (>= 1 when the table has rows). */
export function leafEstimate(leaf: Leaf): number {
  const resolve: ColumnResolver = (e) => {
    const s = columnSource(e, [leaf]);
    return s === null || s.profile === undefined ? null : { profile: s.profile, type: s.type };
  };
  return estimateFilteredRows(profileOf(leaf.scan), leaf.statics, leaf.statics.length > 0 ? leafPredicate(leaf) : null, resolve);
}

/** `a.x = b.y` between two plain columns of different tables, as their sources; null for anything else. */
export function equiSources(c: SqlExpr, scope: readonly Leaf[]): [ColumnSource, ColumnSource] | null {
  if (c.kind !== 'compare' || c.op !== '=' || c.left.kind !== 'column' || c.right.kind !== 'column') return null;
  const a = columnSource(c.left, scope);
  const b = columnSource(c.right, scope);
  return a === null || b === null || a.leaf === b.leaf ? null : [a, b];
}

/** Share of non-NULL rows that counts as a unique key (see table-stats.ts). */
const UNIQUE_SHARE = 0.95;

/** Distinct keys of one side of a composite key, and whether they are unique in its table. */
function keySide(cols: readonly ColumnSource[]): { ndv: number; unique: boolean } {
  let ndv = 1;
  let rows = 0;
  for (const c of cols) {
    const n = c.leaf.scan.numRows;
    rows = Math.max(rows, n);
    ndv *= c.profile?.ndv ?? Math.max(1, n); // no statistics: as if unique
  }
  const sameTable = cols.every((c) => c.leaf === cols[0]!.leaf);
  ndv = Math.max(1, Math.min(ndv, rows));
  const unique = cols.length === 1 ? (cols[0]!.profile?.unique ?? true) : sameTable && ndv >= UNIQUE_SHARE * rows;
  return { ndv, unique };
}

/** The selectivity of equalities `a_i = b_i` joining the same two inputs (one composite key). */
export function keySelectivity(pairs: readonly (readonly [ColumnSource, ColumnSource])[]): number {
  const a = keySide(pairs.map((p) => p[0]));
  const b = keySide(pairs.map((p) => p[1]));
  // a unique side is a primary key the other side's keys are drawn from: |F| x |P_kept| / |P|
  const denominator = a.unique && b.unique ? Math.min(a.ndv, b.ndv) : a.unique ? a.ndv : b.unique ? b.ndv : Math.max(a.ndv, b.ndv);
  return 1 / Math.max(1, denominator);
}

/** The selectivity of a join condition that is not an equality of two columns. */
export function otherSelectivity(c: SqlExpr): number {
  if (c.kind === 'compare') {
    if (c.op === '<' || c.op === '<=' || c.op === '>' || c.op === '>=') return 1 / 3;
    if (c.op === '<>' || c.op === 'IS DISTINCT FROM') return 0.9;
  }
  return DEFAULT_SELECTIVITY;
}

/**
 * The selectivity of a set of conditions over the tables of `scope`: equalities grouped by the
 * pair of tables they join (a composite key each), every other condition multiplied in.
 */
export function conditionsSelectivity(conds: readonly SqlExpr[], scope: readonly Leaf[]): number {
  const groups = new Map<string, [ColumnSource, ColumnSource][]>();
  let sel = 1;
  for (const c of conds) {
    const pair = equiSources(c, scope);
    if (pair === null) {
      sel *= otherSelectivity(c);
      continue;
    }
    const [a, b] = pair[0].leaf.name < pair[1].leaf.name ? pair : ([pair[1], pair[0]] as [ColumnSource, ColumnSource]);
    const key = `${a.leaf.name}\u0000${b.leaf.name}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [[a, b]]);
    else g.push([a, b]);
  }
  for (const g of groups.values()) sel *= keySelectivity(g);
  return sel;
}

/**
 * Fills `estimate` on every node of `plan` (leaves after their static conjuncts, joins by their
 * type and conditions) and returns the root's. Run after WHERE is placed.
 */
export function annotateEstimates(plan: FromPlan): number {
  if (plan.kind === 'leaf') return (plan.estimate = leafEstimate(plan));
  const l = annotateEstimates(plan.left);
  const r = annotateEstimates(plan.right);
  const conds = [...conjuncts(plan.on), ...plan.where, ...usingConditions(plan)];
  const inner = l * r * conditionsSelectivity(conds, leaves(plan));
  let est: number;
  switch (plan.type) {
    case 'inner':
    case 'cross':
      est = inner;
      break;
    case 'left':
      est = Math.max(l, inner);
      break;
    case 'right':
      est = Math.max(r, inner);
      break;
    case 'full':
      est = Math.max(l, r, inner);
      break;
    case 'left-semi':
    case 'left-anti':
    case 'left-mark':
      est = l;
      break;
    default:
      est = r;
  }
  return (plan.estimate = Math.max(l === 0 || r === 0 ? 0 : 1, est));
}

/** A USING / NATURAL join's columns as `l.c = r.c` conditions (for estimating). */
function usingConditions(plan: Extract<FromPlan, { kind: 'join' }>): SqlExpr[] {
  if (plan.using === null) return [];
  const out: SqlExpr[] = [];
  const left = leaves(plan.left);
  const right = leaves(plan.right);
  for (const name of plan.using) {
    const l = left.find((x) => leafColumns(x).some((c) => c.name === name));
    const r = right.find((x) => leafColumns(x).some((c) => c.name === name));
    if (l !== undefined && r !== undefined) out.push({ kind: 'compare', op: '=', left: { kind: 'column', names: [l.name, name], at: null }, right: { kind: 'column', names: [r.name, name], at: null }, at: null });
  }
  return out;
}
