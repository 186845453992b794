/**
 * Two rewrites of a WHERE (or inner-join ON) conjunct that is an OR, before joins are planned
 * (issue 26; TPC-H q19 is the case that needs them):
 *
 * 1. **Factoring** what every branch shares: `(A AND B) OR (A AND C)` becomes `A AND (B OR C)`.
 *    q19 writes its join key `p_partkey = l_partkey` inside each of three branches; without this no
 *    key is found and 6M x 200K pairs go through the nested loop. Sound under SQL's three-valued
 *    logic: Kleene logic is a distributive lattice, so distributivity and absorption hold (a
 *    branch that is only the common part makes the rest TRUE: `A OR (A AND C)` is `A`). DuckDB's
 *    optimizer does the same (`src/optimizer/rule/distributivity.cpp`, "(X AND A) OR (X AND B)
 *    => X AND (A OR B)").
 * 2. **Implied single-table filters**: when every branch restricts table T on its own, the OR of
 *    those restrictions is implied by the conjunct: `(T.a = 1 AND S.b = 2) OR (T.a = 5 AND …)`
 *    implies `T.a = 1 OR T.a = 5`, a filter the scan of T can run (and prune containers with)
 *    before any join. The original conjunct stays where it was: the derived one only removes rows
 *    for which the original is not TRUE, which WHERE removes anyway. Only valid where a row that
 *    fails the conjunct is dropped (WHERE, an inner join's ON) — never an outer join's ON.
 *
 * Expressions are compared structurally, ignoring source positions (`exprKey`). Nothing here
 * evaluates anything; a conjunct without an OR at its top comes back unchanged.
 */
import type { SqlExpr } from './ast.ts';
import { conjuncts } from './relation.ts';

const FLIPPED: Record<string, string> = { '=': '=', '<>': '<>', '<': '>', '<=': '>=', '>': '<', '>=': '<=', 'IS DISTINCT FROM': 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM': 'IS NOT DISTINCT FROM' };

/**
 * A structural key of `e`: equal for expressions that differ only in their source positions or
 * in the order of a comparison's operands (`a = b` and `b = a`, `a < b` and `b > a`).
 */
export function exprKey(e: SqlExpr): string {
  if (e.kind === 'compare') {
    const l = exprKey(e.left);
    const r = exprKey(e.right);
    return l <= r ? `(${l} ${e.op} ${r})` : `(${r} ${FLIPPED[e.op]} ${l})`;
  }
  if (e.kind === 'and' || e.kind === 'or') return `${e.kind}(${e.args.map(exprKey).join(',')})`;
  return JSON.stringify(e, (k, v: unknown) => (k === 'at' ? undefined : typeof v === 'bigint' ? `${v}n` : v));
}

function andOf(parts: readonly SqlExpr[], at: number | null): SqlExpr {
  return parts.length === 1 ? parts[0]! : { kind: 'and', args: parts, at };
}

/** The OR's branches, flattened (`a OR (b OR c)` has three). */
function branchesOf(e: SqlExpr): SqlExpr[] {
  return e.kind === 'or' ? e.args.flatMap(branchesOf) : [e];
}

/**
 * `c` as a list of conjuncts with what every OR branch shares factored out (recursively: a
 * factored remainder is factored again). A conjunct that is not an OR is returned as `[c]`.
 */
export function factorOr(c: SqlExpr): SqlExpr[] {
  if (c.kind === 'and') return c.args.flatMap(factorOr);
  if (c.kind !== 'or') return [c];
  const branches = branchesOf(c).map((b) => conjuncts(b));
  const keys = branches.map((b) => b.map(exprKey));
  const common = branches[0]!.filter((_x, i) => keys.every((k) => k.includes(keys[0]![i]!)));
  const commonKeys = new Set(common.map(exprKey));
  // de-duplicated, in the first branch's order
  const shared = common.filter((x, i) => common.findIndex((y) => exprKey(y) === exprKey(x)) === i);
  if (shared.length === 0) return [c];
  const rests = branches.map((b, i) => b.filter((_x, j) => !commonKeys.has(keys[i]![j]!)));
  // a branch that is only the shared part makes the remaining OR TRUE (absorption)
  if (rests.some((r) => r.length === 0)) return shared.flatMap(factorOr);
  const rest: SqlExpr = { kind: 'or', args: rests.map((r) => andOf(r, c.at)), at: c.at };
  return [...shared.flatMap(factorOr), ...factorOr(rest)];
}

/**
 * Single-table filters implied by an OR conjunct (see the module comment): for each relation
 * that every branch restricts with conjuncts reading only it, the OR over the branches of those
 * conjuncts. `relsOf` names the relations a conjunct reads.
 */
export function impliedFilters(c: SqlExpr, relsOf: (e: SqlExpr) => ReadonlySet<string>): SqlExpr[] {
  if (c.kind !== 'or') return [];
  const branches = branchesOf(c).map((b) => conjuncts(b));
  const single = branches.map((b) =>
    b.flatMap((x) => {
      const rels = relsOf(x);
      return rels.size === 1 ? [{ rel: [...rels][0]!, x }] : [];
    }),
  );
  const candidates = new Set(single[0]!.map((s) => s.rel));
  const out: SqlExpr[] = [];
  for (const rel of candidates) {
    const parts = single.map((b) => b.filter((s) => s.rel === rel).map((s) => s.x));
    if (parts.some((p) => p.length === 0)) continue;
    out.push({ kind: 'or', args: parts.map((p) => andOf(p, c.at)), at: c.at });
  }
  return out;
}
