/**
 * The sideways-information-passing contract (slot `sip`, config key `sip`, issue 28): how runtime
 * filters travel across a whole query, not only from one join into the scan under its probe side.
 *
 * A strategy sees the query block's *join graph* — its FROM tables (`SipRelation`, with the
 * planner's row estimates) and, per pair of tables a join equates columns of, an edge that says in
 * which directions a filter may travel (`SipEdge.aToB` / `bToA`) — and returns a `SipPlan`: the
 * filter *transfers* to run before the joins (each: scan the source table with every filter that
 * has reached it so far, build a filter over its key columns, hand it to the target table's scan),
 * the kind of filter they build, whether the joins' own dynamic filters (the pushdown policy's)
 * stay on, and whether a scan orders its filters by their observed pass rate (LIP).
 *
 * Soundness is the executor's (adapters/sql/sip-run.ts), not the strategy's: it sets an edge's
 * direction only when a filter built from the source's rows can never drop a target row that
 * reaches the query's result — the join holding the condition drops the target side's unmatched
 * rows (inner; the preserved side's partner of a LEFT / RIGHT join; either side of a semi join;
 * the inner side of an anti or mark join), the condition is `=` (not null-equals-null, not NOT IN's
 * null-aware anti join), and both columns reach that join unchanged from their tables (the same
 * routes the dynamic filters take, join-tree.ts). A strategy may therefore plan any transfer along
 * an allowed direction, in any order: every filter only ever says "maybe".
 *
 * The graph helpers below are what the built-in strategies share: the spanning tree rooted at the
 * largest relation (Robust Predicate Transfer's LargestRoot, Zhao et al., SIGMOD 2025), the GYO
 * reduction that decides whether the query's hypergraph is acyclic and yields a join tree with the
 * running-intersection property (Yannakakis, VLDB 1981; Graham / Yu–Özsoyoğlu's ear removal), and
 * the forward (leaves to root) / backward (root to leaves) passes over a rooted tree.
 */
import type { Config } from './config/schema.ts';
import type { Strategy } from './registry/registry.ts';

/** A FROM table of the query block. */
export interface SipRelation {
  /** Index in `SipGraph.relations`. */
  readonly id: number;
  /** Its name in the query (alias, else table name). */
  readonly name: string;
  /** The planner's estimate of its rows after its static predicate. */
  readonly rows: number;
  /**
   * Whether something other than a transfer may have dropped rows of it before any transfer: a
   * static predicate, or rows that are a subquery's result. A filter built from a relation that is
   * not reduced and has received no filter from one that is holds every key the table has.
   */
  readonly reduced: boolean;
}

/** The equality conditions between two tables, and where a filter built on one may go. */
export interface SipEdge {
  /** Index in `SipGraph.edges`. */
  readonly id: number;
  readonly a: number;
  readonly b: number;
  /** The key columns of `a` and of `b`, pairwise equated (the tables' own column names). */
  readonly aColumns: readonly string[];
  readonly bColumns: readonly string[];
  /** Whether a filter over `a`'s key values may drop `b`'s rows (and the reverse). */
  readonly aToB: boolean;
  readonly bToA: boolean;
  /** The join type of the join holding the conditions, for explain (`inner`, `left`, …). */
  readonly join: string;
}

export interface SipGraph {
  readonly relations: readonly SipRelation[];
  readonly edges: readonly SipEdge[];
}

/**
 * What a transfer builds: `bloom` (a split-block Bloom filter behind the keys' min/max, as RPT
 * and LIP use), `bitmap` (the keys' exact key-range bitmap behind their min/max where one integer
 * key's range allows one, else `bloom`), `exact` (the source's hash set: semi-join reduction),
 * `bounds` (min/max only), or `policy` (whatever the configured pushdown policy builds from the
 * source's keys).
 */
export type SipFilterKind = 'bloom' | 'bitmap' | 'exact' | 'bounds' | 'policy';
export const SIP_FILTER_KINDS: readonly SipFilterKind[] = ['bloom', 'bitmap', 'exact', 'bounds', 'policy'];

export type SipPass = 'forward' | 'backward';

/** Build a filter from `from`'s rows on `edge`'s columns and hand it to `to`'s scan. */
export interface SipTransfer {
  readonly edge: number;
  readonly from: number;
  readonly to: number;
  readonly pass: SipPass;
}

export interface SipPlan {
  /** Transfers in the order they run (a later one's source scan sees every earlier filter into it). */
  readonly transfers: readonly SipTransfer[];
  readonly filter: SipFilterKind;
  /** Whether the joins of the tree publish their own dynamic filters (config `pushdown`) into their inputs. */
  readonly joinFilters: boolean;
  /**
   * Whether a join outside the tree that reads its result (a subquery's semi or anti join on top
   * of it) may filter it with its own dynamic filter; default true (`none` turns it off too).
   */
  readonly outerJoinFilters?: boolean;
  /** Whether each scan orders its filters by observed pass rate, per batch (LIP). */
  readonly adaptiveOrder: boolean;
  /** The root of the transfer tree, when there is one (explain). */
  readonly root: number | null;
  /** Why the plan is not what the strategy's name says (e.g. a cyclic graph's fallback), or null. */
  readonly note: string | null;
}

export interface SipStrategy extends Strategy {
  plan(graph: SipGraph, config: Config): SipPlan;
}

/** The plan that passes nothing before the joins: only the joins' own filters (`joinFilters`). */
export function noTransfers(joinFilters: boolean, note: string | null = null): SipPlan {
  return { transfers: [], filter: 'policy', joinFilters, outerJoinFilters: joinFilters, adaptiveOrder: false, root: null, note };
}

/** A rooted tree over some of the graph's relations: `parent[r]` (-1 for a root or a relation outside), and the edge to it. */
export interface SipTree {
  readonly roots: readonly number[];
  readonly parent: readonly number[];
  readonly parentEdge: readonly number[];
  /** Relations in the order they joined the tree (each after its parent). */
  readonly order: readonly number[];
}

/** Whether a filter may travel along `e` from `from` at all. */
export function canSend(e: SipEdge, from: number): boolean {
  return from === e.a ? e.aToB : from === e.b ? e.bToA : false;
}

function other(e: SipEdge, r: number): number {
  return e.a === r ? e.b : e.a;
}

/**
 * The spanning forest rooted at the largest relation of each connected part (RPT's LargestRoot):
 * Prim's order, each step adding the largest relation adjacent to the tree (ties: the lower id),
 * over edges a filter can travel in at least one direction.
 */
export function largestRootTree(g: SipGraph): SipTree {
  const n = g.relations.length;
  const parent = new Array<number>(n).fill(-1);
  const parentEdge = new Array<number>(n).fill(-1);
  const inTree = new Array<boolean>(n).fill(false);
  const roots: number[] = [];
  const order: number[] = [];
  const usable = g.edges.filter((e) => e.aToB || e.bToA);
  const bigger = (x: number, y: number): boolean => g.relations[x]!.rows > g.relations[y]!.rows || (g.relations[x]!.rows === g.relations[y]!.rows && x < y);
  for (;;) {
    let root = -1;
    for (let r = 0; r < n; r++) if (!inTree[r] && (root < 0 || bigger(r, root))) root = r;
    if (root < 0) break;
    inTree[root] = true;
    roots.push(root);
    order.push(root);
    for (;;) {
      let best = -1;
      let via = -1;
      let from = -1;
      for (const e of usable) {
        const aIn = inTree[e.a]!;
        const bIn = inTree[e.b]!;
        if (aIn === bIn) continue;
        const next = aIn ? e.b : e.a;
        if (best < 0 || bigger(next, best)) {
          best = next;
          via = e.id;
          from = aIn ? e.a : e.b;
        }
      }
      if (best < 0) break;
      inTree[best] = true;
      parent[best] = from;
      parentEdge[best] = via;
      order.push(best);
    }
  }
  return { roots, parent, parentEdge, order };
}

/**
 * Yannakakis' passes over a rooted tree: forward, every relation (deepest first) to its parent;
 * backward, every relation (from the root down) to its children. A direction the edge does not
 * allow is left out (the filter would not be sound there).
 */
export function treePasses(g: SipGraph, tree: SipTree, passes: { readonly forward: boolean; readonly backward: boolean }): SipTransfer[] {
  const out: SipTransfer[] = [];
  if (passes.forward) {
    for (let i = tree.order.length - 1; i >= 0; i--) {
      const r = tree.order[i]!;
      const p = tree.parent[r]!;
      if (p < 0) continue;
      const e = g.edges[tree.parentEdge[r]!]!;
      if (canSend(e, r)) out.push({ edge: e.id, from: r, to: p, pass: 'forward' });
    }
  }
  if (passes.backward) {
    for (const r of tree.order) {
      const p = tree.parent[r]!;
      if (p < 0) continue;
      const e = g.edges[tree.parentEdge[r]!]!;
      if (canSend(e, p)) out.push({ edge: e.id, from: p, to: r, pass: 'backward' });
    }
  }
  return out;
}

/**
 * `transfers` without those whose source can only send its whole key set: not reduced itself and
 * reached by no kept transfer before it. Under a foreign key such a filter keeps every row of its
 * target and still costs a read of the source and a test per target row (a date dimension's
 * filter on a fact table's date key); dropping it only keeps more rows, which is always sound.
 * `reduced[r]` after the walk says which relations ended up filtered.
 */
export function withoutWholeKeySets(g: SipGraph, transfers: readonly SipTransfer[]): SipTransfer[] {
  const reduced = g.relations.map((r) => r.reduced);
  const out: SipTransfer[] = [];
  for (const t of transfers) {
    if (!reduced[t.from]) continue;
    out.push(t);
    reduced[t.to] = true;
  }
  return out;
}

/**
 * Union-find classes of the equated columns: two (relation, column) pairs are one attribute of the
 * query's hypergraph when some edge equates them, directly or through others.
 */
function attributeClasses(g: SipGraph): { readonly ofRelation: readonly Set<number>[] } {
  const ids = new Map<string, number>();
  const up: number[] = [];
  const id = (r: number, c: string): number => {
    const k = `${r}\u0000${c}`;
    let v = ids.get(k);
    if (v === undefined) {
      ids.set(k, (v = up.length));
      up.push(v);
    }
    return v;
  };
  const find = (x: number): number => {
    while (up[x] !== x) x = up[x] = up[up[x]!]!;
    return x;
  };
  for (const e of g.edges) {
    for (let k = 0; k < e.aColumns.length; k++) {
      const x = find(id(e.a, e.aColumns[k]!));
      const y = find(id(e.b, e.bColumns[k]!));
      if (x !== y) up[x] = y;
    }
  }
  const ofRelation = g.relations.map(() => new Set<number>());
  for (const [k, v] of ids) ofRelation[Number(k.slice(0, k.indexOf('\u0000')))]!.add(find(v));
  return { ofRelation };
}

/**
 * GYO ear removal over the query's hypergraph (a relation = the set of attribute classes it
 * joins on). Returns a join tree with the running-intersection property — each removed ear is linked to a relation holding every
 * attribute it shares with the rest — rooted at each part's largest relation (any node of a join
 * tree may be its root; the passes then end where the most rows are), or null
 * when the hypergraph is cyclic (TPC-H q5's customer–orders–lineitem–supplier ring, a triangle of
 * distinct columns). A relation sharing no attribute with any other is a root of its own.
 * Conservative: an ear is removed only into a host it has an edge with (see below).
 */
export function gyoJoinTree(g: SipGraph): SipTree | null {
  const n = g.relations.length;
  const { ofRelation } = attributeClasses(g);
  const attrs = ofRelation.map((s) => new Set(s));
  const alive = new Array<boolean>(n).fill(true);
  const parent = new Array<number>(n).fill(-1);
  let left = n;
  const edgeBetween = (x: number, y: number): SipEdge | undefined => g.edges.find((e) => (e.a === x && e.b === y) || (e.a === y && e.b === x));
  for (let changed = true; changed && left > 1; ) {
    changed = false;
    // attributes only one live relation has are not shared: drop them
    const holders = new Map<number, number>();
    for (let r = 0; r < n; r++) if (alive[r]) for (const a of attrs[r]!) holders.set(a, (holders.get(a) ?? 0) + 1);
    for (let r = 0; r < n; r++) if (alive[r]) for (const a of [...attrs[r]!]) if (holders.get(a) === 1) attrs[r]!.delete(a);
    // an ear: a relation whose shared attributes another live relation holds all of (smallest first)
    const byRows = [...Array(n).keys()].filter((r) => alive[r]).sort((x, y) => g.relations[x]!.rows - g.relations[y]!.rows || y - x);
    for (const r of byRows) {
      if (left <= 1) break;
      if (attrs[r]!.size === 0) {
        // joins nothing that is left: a root of its own part
        alive[r] = false;
        left--;
        changed = true;
        continue;
      }
      // the host must be joined to r directly (a transfer runs along an edge); an ear whose only
      // hosts are reached through a third table is not removed, which can only call an acyclic
      // graph cyclic (a fallback), never the reverse
      const hosts = byRows.filter((s) => s !== r && alive[s] && edgeBetween(r, s) !== undefined && [...attrs[r]!].every((a) => attrs[s]!.has(a)));
      const host = hosts[hosts.length - 1];
      if (host === undefined) continue;
      parent[r] = host;
      alive[r] = false;
      left--;
      changed = true;
    }
  }
  if (left > 1) return null;
  // a join tree is an undirected tree: root each part at its largest relation (where the passes end)
  const adjacent = new Map<number, { readonly to: number; readonly edge: number }[]>();
  const link = (x: number, y: number, edge: number): void => {
    adjacent.set(x, [...(adjacent.get(x) ?? []), { to: y, edge }]);
  };
  for (let r = 0; r < n; r++) {
    const p = parent[r]!;
    if (p < 0) continue;
    const e = edgeBetween(r, p)!.id;
    link(r, p, e);
    link(p, r, e);
  }
  const rooted = new Array<number>(n).fill(-1);
  const rootedEdge = new Array<number>(n).fill(-1);
  const seen = new Array<boolean>(n).fill(false);
  const roots: number[] = [];
  const order: number[] = [];
  const bySize = [...Array(n).keys()].sort((x, y) => g.relations[y]!.rows - g.relations[x]!.rows || x - y);
  for (const root of bySize) {
    if (seen[root]) continue;
    roots.push(root);
    seen[root] = true;
    const queue = [root];
    for (let q = 0; q < queue.length; q++) {
      const r = queue[q]!;
      order.push(r);
      for (const { to, edge } of adjacent.get(r) ?? []) {
        if (seen[to]) continue;
        seen[to] = true;
        rooted[to] = r;
        rootedEdge[to] = edge;
        queue.push(to);
      }
    }
  }
  return { roots, parent: rooted, parentEdge: rootedEdge, order };
}
