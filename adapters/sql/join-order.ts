/**
 * The join order of a query's FROM clause (issue 26): which tables join first, from the join
 * graph and statistics, before the tree is opened (join-tree.ts `openTree`).
 *
 * Why: joins used to run in the order the query writes them, so SSB q4.x (`FROM dwdate, customer,
 * supplier, part, lineorder`) started with cross products of dimensions and never finished. Now
 * (`sql.joinOrder`):
 *  - `cost` (the default): every maximal *region* of inner and cross joins (no USING / NATURAL,
 *    which decide what `*` shows) is one join graph: its *atoms* are the tables and the subtrees
 *    it cannot see into (outer joins, USING joins, semi joins; each reordered inside on its own),
 *    its conditions every ON conjunct of its joins and, for the region at the top of the FROM
 *    clause, every WHERE conjunct. A conjunct on one table becomes that table's static scan
 *    predicate; one naming two atoms is an edge. The order is found by dynamic programming over
 *    the connected subsets of the atoms (DPsub: every subset is split into two connected parts
 *    joined by an edge, as DuckDB's and Postgres' join enumerators do) for up to `DP_LIMIT`
 *    atoms, greedily beyond (GOO: repeatedly join the connected pair with the smallest result);
 *    the cost of a plan is the rows it produces at every join (C_out) plus the rows each join
 *    reads — a join with no equality key reads the product of its inputs (a nested loop). Never a
 *    cross product while the graph is connected; a disconnected graph's components are planned
 *    each and crossed, smallest first. Row estimates: cardinality.ts.
 *  - `written`: today's behaviour (the FROM clause's own tree), for experiments that pin a plan;
 *  - `random`: a random valid order drawn from `sql.joinOrderSeed` (left-deep, each next atom
 *    connected to what is joined so far while the graph allows), for experiments over join orders;
 *    `random:SEED` is the same drawn from SEED (`joinOrderOptions`), so that one config value
 *    names one order (an experiment's `orders: N` runs random:1 … random:N).
 * In every mode a conjunct that is an OR has what its branches share factored out, and
 * single-table filters it implies are added for the scans (or-factor.ts: TPC-H q19).
 *
 * In the planned tree each join has the input with more estimated rows on the left and the other
 * on the right (the hash join builds the side with fewer estimated rows either way), and every
 * condition sits at the lowest join holding all the atoms it names. Each table keeps its written
 * position (`Leaf.position`), so `SELECT *` lists the columns as the query wrote them whatever the
 * plan (relation.ts `writtenOrder`).
 */
import type { JoinOrderSetting } from '../../core/config/schema.ts';
import type { SqlExpr } from './ast.ts';
import { Rng } from '../../core/random.ts';
import { annotateEstimates, conditionsSelectivity, equiSources, leafEstimate } from './cardinality.ts';
import { leaves, markNullable, placeWhere, relsOf, relsReadIn, type FromPlan } from './join-tree.ts';
import { factorOr, impliedFilters } from './or-factor.ts';
import { conjuncts } from './relation.ts';

export type JoinOrder = 'cost' | 'written' | 'random';

export interface JoinOrderOptions {
  readonly order: JoinOrder;
  /** The seed of `random`. */
  readonly seed: number;
}

/**
 * The planner's options from the config: `sql.joinOrder` and `sql.joinOrderSeed`, where
 * `random:SEED` means `random` with SEED (the seed key then plays no part).
 */
export function joinOrderOptions(setting: JoinOrderSetting, seed: number): JoinOrderOptions {
  if (setting.startsWith('random:')) return { order: 'random', seed: Number(setting.slice('random:'.length)) };
  return { order: setting as JoinOrder, seed };
}

/** Regions up to this many atoms are planned by dynamic programming (3^n splits), larger ones greedily. */
export const DP_LIMIT = 12;

/**
 * Plans a FROM tree with its query's WHERE conjuncts (none with a subquery): factors ORs, orders
 * the joins (`options.order`), places every conjunct and estimates every node's rows. Returns the
 * tree to open; its leaves are the given tree's.
 */
export function planFrom(plan: FromPlan, where: readonly SqlExpr[], options: JoinOrderOptions): FromPlan {
  leaves(plan).forEach((l, i) => (l.position = i)); // the written order, for `*` (relation.ts writtenOrder)
  markNullable(plan, false);
  const factored = where.flatMap(factorOr);
  const conds = [...factored, ...factored.flatMap((c) => impliedOnScans(c, plan))];
  let tree = factorOn(plan);
  let rest: readonly SqlExpr[] = conds;
  if (options.order !== 'written') {
    const ctx: Ctx = { options, rng: new Rng(options.seed) };
    ({ plan: tree, rest } = reorder(tree, conds, ctx));
  }
  placeWhere(tree, rest);
  annotateEstimates(tree);
  return tree;
}

/** The single-table filters an OR conjunct implies, for tables no outer join pads (or-factor.ts). */
function impliedOnScans(c: SqlExpr, plan: FromPlan): SqlExpr[] {
  const all = leaves(plan);
  const relsIn = (e: SqlExpr): ReadonlySet<string> => relsReadIn(e, all);
  if (relsIn(c).size < 2) return []; // a conjunct on one table is its scan's already
  return impliedFilters(c, relsIn).filter((f) => {
    const [rel] = relsIn(f);
    return all.some((l) => l.name === rel && !l.nullable);
  });
}

/** The tree with every join's ON factored (an equivalence, valid for every join type). */
function factorOn(p: FromPlan): FromPlan {
  if (p.kind === 'leaf') return p;
  const on = p.on === null ? null : andOf(conjuncts(p.on).flatMap(factorOr), p.on.at);
  return { ...p, left: factorOn(p.left), right: factorOn(p.right), on, where: [...p.where], post: [...p.post] };
}

function andOf(parts: readonly SqlExpr[], at: number | null): SqlExpr | null {
  return parts.length === 0 ? null : parts.length === 1 ? parts[0]! : { kind: 'and', args: parts, at };
}

interface Ctx {
  readonly options: JoinOrderOptions;
  readonly rng: Rng;
}

/** A join the planner may reorder: INNER or CROSS, without USING / NATURAL. */
function isRegionJoin(p: FromPlan): boolean {
  return p.kind === 'join' && (p.type === 'inner' || p.type === 'cross') && p.using === null && !p.natural && p.asof !== true;
}

/**
 * `p` with every region reordered; `where` (the query's, for the top only) is consumed by a
 * region at the top and returned otherwise, for `placeWhere`.
 */
function reorder(p: FromPlan, where: readonly SqlExpr[], ctx: Ctx): { plan: FromPlan; rest: readonly SqlExpr[] } {
  if (p.kind === 'leaf') return { plan: p, rest: where };
  if (!isRegionJoin(p)) {
    const left = reorder(p.left, [], ctx).plan;
    const right = reorder(p.right, [], ctx).plan;
    return { plan: { ...p, left, right }, rest: where };
  }
  const atoms: FromPlan[] = [];
  const conds: SqlExpr[] = [];
  const collect = (x: FromPlan): void => {
    if (x.kind === 'join' && isRegionJoin(x)) {
      collect(x.left);
      collect(x.right);
      conds.push(...conjuncts(x.on), ...x.where);
    } else atoms.push(reorder(x, [], ctx).plan);
  };
  collect(p);
  // beyond a mask's 30 bits: the written tree (its subtrees still reordered)
  if (atoms.length > 30) return { plan: { ...p, left: reorder(p.left, [], ctx).plan, right: reorder(p.right, [], ctx).plan }, rest: where };
  return { plan: planRegion(atoms, [...conds, ...where], ctx), rest: [] };
}

/** A (sub)plan of a region: the atoms it joins (a bit each), its estimated rows and cost. */
interface Sub {
  readonly mask: number;
  readonly rows: number;
  readonly cost: number;
  readonly atom?: number;
  readonly left?: Sub;
  readonly right?: Sub;
}

function bitCount(m: number): number {
  let n = 0;
  for (let x = m; x !== 0; x &= x - 1) n++;
  return n;
}

/** Plans one region: its atoms (in written order) and conditions (see the module comment). */
function planRegion(atoms: readonly FromPlan[], conds: readonly SqlExpr[], ctx: Ctx): FromPlan {
  const n = atoms.length;
  const scope = atoms.flatMap(leaves);
  const rels = atoms.map((a) => relsOf(a));
  const maskOf = (c: SqlExpr): number => {
    const named = relsReadIn(c, scope);
    let m = 0;
    rels.forEach((r, i) => {
      for (const x of named) if (r.has(x)) m |= 1 << i;
    });
    return m;
  };
  const joinConds: { sql: SqlExpr; mask: number }[] = [];
  const atomConds: SqlExpr[][] = atoms.map(() => []);
  const rootConds: SqlExpr[] = [];
  for (const c of conds) {
    const mask = maskOf(c);
    const count = bitCount(mask);
    if (count === 0) rootConds.push(c);
    else if (count === 1) {
      const i = Math.log2(mask);
      const atom = atoms[i]!;
      if (atom.kind === 'leaf') atom.statics.push(c);
      else atomConds[i]!.push(c);
    } else joinConds.push({ sql: c, mask });
  }
  const atomRows = atoms.map((a) => (a.kind === 'leaf' ? (a.estimate = leafEstimate(a)) : annotateEstimates(a)));
  // conditions that connect two atoms: the graph's edges (equalities can be hash keys)
  const adjacent = atoms.map(() => 0);
  const keyed = atoms.map(() => 0);
  for (const { sql, mask } of joinConds) {
    if (bitCount(mask) !== 2) continue;
    const [i, j] = bitsOf(mask);
    adjacent[i!]! |= 1 << j!;
    adjacent[j!]! |= 1 << i!;
    if (equiSources(sql, scope) !== null) {
      keyed[i!]! |= 1 << j!;
      keyed[j!]! |= 1 << i!;
    }
  }
  const rowsMemo = new Map<number, number>();
  const rowsOf = (mask: number): number => {
    let r = rowsMemo.get(mask);
    if (r === undefined) {
      r = 1;
      for (const i of bitsOf(mask)) r *= atomRows[i]!;
      const inside = joinConds.filter((c) => (c.mask & mask) === c.mask).map((c) => c.sql);
      r *= conditionsSelectivity(inside, scope);
      if (r > 0) r = Math.max(1, r);
      rowsMemo.set(mask, r);
    }
    return r;
  };
  const touches = (a: number, b: number, edges: readonly number[]): boolean => {
    for (const i of bitsOf(a)) if ((edges[i]! & b) !== 0) return true;
    return false;
  };
  const join = (a: Sub, b: Sub): Sub => {
    const mask = a.mask | b.mask;
    const rows = rowsOf(mask);
    const work = touches(a.mask, b.mask, keyed) ? a.rows + b.rows : a.rows * b.rows;
    return a.rows >= b.rows ? { mask, rows, cost: a.cost + b.cost + rows + work, left: a, right: b } : { mask, rows, cost: a.cost + b.cost + rows + work, left: b, right: a };
  };
  const singles: Sub[] = atoms.map((_a, i) => ({ mask: 1 << i, rows: atomRows[i]!, cost: 0, atom: i }));
  const connected = (a: Sub, b: Sub): boolean => touches(a.mask, b.mask, adjacent);
  let tree: Sub;
  if (ctx.options.order === 'random') tree = randomTree(singles, connected, join, ctx.rng);
  else {
    const parts = components(n, adjacent).map((c) => (bitCount(c) <= DP_LIMIT ? bestByDp(c, singles, connected, join) : greedy(singles.filter((s) => (s.mask & c) !== 0), connected, join)));
    parts.sort((a, b) => a.rows - b.rows);
    tree = parts.reduce((a, b) => join(a, b));
  }
  return toPlan(tree, atoms, joinConds, atomConds, rootConds);
}

function bitsOf(mask: number): number[] {
  const out: number[] = [];
  for (let i = 0; mask >>> i !== 0; i++) if ((mask >>> i) & 1) out.push(i);
  return out;
}

/** The connected components of the graph, as masks. */
function components(n: number, adjacent: readonly number[]): number[] {
  const out: number[] = [];
  let seen = 0;
  for (let i = 0; i < n; i++) {
    if ((seen >> i) & 1) continue;
    let comp = 1 << i;
    let frontier = comp;
    while (frontier !== 0) {
      let next = 0;
      for (const j of bitsOf(frontier)) next |= adjacent[j]!;
      frontier = next & ~comp;
      comp |= next;
    }
    seen |= comp;
    out.push(comp);
  }
  return out;
}

type Joiner = (a: Sub, b: Sub) => Sub;
type Connected = (a: Sub, b: Sub) => boolean;

/** The cheapest plan of the connected atoms of `all` (DPsub over its subsets, smallest first). */
function bestByDp(all: number, singles: readonly Sub[], connected: Connected, join: Joiner): Sub {
  const best = new Map<number, Sub>();
  for (const i of bitsOf(all)) best.set(1 << i, singles[i]!);
  // every subset of `all`, in increasing order: a subset's own subsets come before it
  const members = bitsOf(all);
  for (let k = 1; k < 1 << members.length; k++) {
    let s = 0;
    for (let b = 0; b < members.length; b++) if ((k >> b) & 1) s |= 1 << members[b]!;
    if (bitCount(s) < 2) continue;
    const low = s & -s;
    let found: Sub | undefined;
    for (let s1 = (s - 1) & s; s1 !== 0; s1 = (s1 - 1) & s) {
      if ((s1 & low) === 0) continue; // each split once
      const a = best.get(s1);
      const b = best.get(s ^ s1);
      if (a === undefined || b === undefined || !connected(a, b)) continue;
      const c = join(a, b);
      if (found === undefined || c.cost < found.cost) found = c;
    }
    if (found !== undefined) best.set(s, found);
  }
  return best.get(all)!;
}

/** Greedy operator ordering: join the connected pair with the fewest result rows until one plan is left. */
function greedy(subs: readonly Sub[], connected: Connected, join: Joiner): Sub {
  const live = [...subs];
  while (live.length > 1) {
    let pick: [number, number, Sub] | null = null;
    for (let i = 0; i < live.length; i++) {
      for (let j = i + 1; j < live.length; j++) {
        if (!connected(live[i]!, live[j]!)) continue;
        const c = join(live[i]!, live[j]!);
        if (pick === null || c.rows < pick[2].rows || (c.rows === pick[2].rows && c.cost < pick[2].cost)) pick = [i, j, c];
      }
    }
    if (pick === null) {
      // the component is connected, so this never happens; join the two smallest to be safe
      live.sort((a, b) => a.rows - b.rows);
      pick = [0, 1, join(live[0]!, live[1]!)];
    }
    const [i, j, c] = pick;
    live.splice(j, 1);
    live.splice(i, 1, c);
  }
  return live[0]!;
}

/** A random valid left-deep order: each next atom connected to those joined so far while any is. */
function randomTree(singles: readonly Sub[], connected: Connected, join: Joiner, rng: Rng): Sub {
  const rest = [...singles];
  let tree = rest.splice(rng.int(0, rest.length - 1), 1)[0]!;
  while (rest.length > 0) {
    const linked = rest.filter((s) => connected(tree, s));
    const pick = rng.pick(linked.length > 0 ? linked : rest);
    rest.splice(rest.indexOf(pick), 1);
    tree = join(tree, pick);
  }
  return tree;
}

/** The planned region as a FROM tree, each condition at the lowest join holding every atom it names. */
function toPlan(tree: Sub, atoms: readonly FromPlan[], joinConds: readonly { sql: SqlExpr; mask: number }[], atomConds: readonly SqlExpr[][], rootConds: readonly SqlExpr[]): FromPlan {
  const placed = new Map<Sub, SqlExpr[]>();
  const lowest = (s: Sub, mask: number): Sub => {
    for (;;) {
      if (s.left !== undefined && (s.left.mask & mask) === mask) s = s.left;
      else if (s.right !== undefined && (s.right.mask & mask) === mask) s = s.right;
      else return s;
    }
  };
  const put = (s: Sub, c: SqlExpr): void => {
    const list = placed.get(s);
    if (list === undefined) placed.set(s, [c]);
    else list.push(c);
  };
  for (const c of joinConds) put(lowest(tree, c.mask), c.sql);
  atomConds.forEach((cs, i) => {
    // a condition on one subtree atom: at the join right above it
    const parentOf = (s: Sub): Sub => (s.left?.mask === 1 << i || s.right?.mask === 1 << i ? s : parentOf((s.left!.mask >> i) & 1 ? s.left! : s.right!));
    for (const c of cs) put(parentOf(tree), c);
  });
  for (const c of rootConds) put(tree, c);
  const build = (s: Sub): FromPlan => {
    if (s.atom !== undefined) return atoms[s.atom]!;
    const left = build(s.left!);
    const right = build(s.right!);
    return { kind: 'join', type: 'inner', left, right, on: null, using: null, natural: false, where: placed.get(s) ?? [], rels: new Set([...relsOf(left), ...relsOf(right)]), post: [], exec: null };
  };
  return build(tree);
}
