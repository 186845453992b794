import { describe, expect, it } from 'vitest';
import { Rng } from './random.ts';
import { gyoJoinTree, largestRootTree, treePasses, withoutWholeKeySets, type SipEdge, type SipGraph } from './sip.ts';

/** A graph of relations with these row counts and `[a, b, aColumn, bColumn]` edges, every direction allowed unless listed in `oneWay` (a->b only). */
function graph(rows: readonly number[], edges: readonly (readonly [number, number, string, string])[], oneWay: readonly number[] = []): SipGraph {
  return {
    relations: rows.map((n, id) => ({ id, name: `t${id}`, rows: n, reduced: true })),
    edges: edges.map(([a, b, ca, cb], id): SipEdge => ({ id, a, b, aColumns: [ca], bColumns: [cb], aToB: true, bToA: !oneWay.includes(id), join: 'inner' })),
  };
}

describe('gyoJoinTree (acyclicity and the join tree)', () => {
  it('a star is acyclic, rooted at the fact table', () => {
    const g = graph([1000, 10, 20, 30], [
      [0, 1, 'a', 'a'],
      [0, 2, 'b', 'b'],
      [0, 3, 'c', 'c'],
    ]);
    const t = gyoJoinTree(g)!;
    expect(t).not.toBeNull();
    expect(t.roots).toEqual([0]);
    expect(t.parent).toEqual([-1, 0, 0, 0]);
  });
  it('a snowflake (chain through a dimension) is acyclic with the outer dimension under the inner one', () => {
    const g = graph([1000, 50, 5], [
      [0, 1, 'd', 'd'],
      [1, 2, 'n', 'n'],
    ]);
    const t = gyoJoinTree(g)!;
    expect(t.parent).toEqual([-1, 0, 1]);
    expect(t.order.indexOf(1)).toBeLessThan(t.order.indexOf(2));
  });
  it("TPC-H q5's ring customer–orders–lineitem–supplier (+ nation, region) is cyclic", () => {
    // 0 customer, 1 orders, 2 lineitem, 3 supplier, 4 nation, 5 region
    const g = graph([150, 1500, 6000, 10, 25, 5], [
      [0, 1, 'c_custkey', 'o_custkey'],
      [1, 2, 'o_orderkey', 'l_orderkey'],
      [2, 3, 'l_suppkey', 's_suppkey'],
      [0, 3, 'c_nationkey', 's_nationkey'],
      [3, 4, 's_nationkey', 'n_nationkey'],
      [4, 5, 'n_regionkey', 'r_regionkey'],
    ]);
    expect(gyoJoinTree(g)).toBeNull();
  });
  it('a triangle on one shared column is acyclic; on three different columns it is cyclic', () => {
    expect(gyoJoinTree(graph([10, 20, 30], [[0, 1, 'x', 'x'], [1, 2, 'x', 'x'], [0, 2, 'x', 'x']]))).not.toBeNull();
    expect(gyoJoinTree(graph([10, 20, 30], [[0, 1, 'x', 'x'], [1, 2, 'y', 'y'], [0, 2, 'z', 'z']]))).toBeNull();
  });
  it('disconnected parts are each a tree of their own', () => {
    const t = gyoJoinTree(graph([10, 20, 30, 40], [[0, 1, 'x', 'x'], [2, 3, 'y', 'y']]))!;
    expect([...t.roots].sort()).toEqual([1, 3]);
  });
});

describe('largestRootTree and treePasses', () => {
  it('roots at the largest relation and spans every connected one, each after its parent', () => {
    const rng = new Rng(5);
    for (let trial = 0; trial < 200; trial++) {
      const n = rng.int(2, 9);
      const rows = Array.from({ length: n }, () => rng.int(1, 1000));
      const edges: [number, number, string, string][] = [];
      for (let r = 1; r < n; r++) edges.push([rng.int(0, r - 1), r, `k${r}`, `k${r}`]); // connected
      for (let extra = rng.int(0, 3); extra > 0; extra--) {
        const a = rng.int(0, n - 1);
        const b = rng.int(0, n - 1);
        if (a !== b) edges.push([a, b, `e${extra}`, `e${extra}`]);
      }
      const g = graph(rows, edges);
      const t = largestRootTree(g);
      const largest = rows.indexOf(Math.max(...rows));
      expect(t.roots).toEqual([largest]);
      expect(new Set(t.order).size).toBe(n);
      for (const r of t.order) if (t.parent[r]! >= 0) expect(t.order.indexOf(t.parent[r]!)).toBeLessThan(t.order.indexOf(r));
      const passes = treePasses(g, t, { forward: true, backward: true });
      // n-1 forward (to the parent) then n-1 backward (to the child); forward deepest first
      expect(passes.filter((p) => p.pass === 'forward')).toHaveLength(n - 1);
      expect(passes.filter((p) => p.pass === 'backward')).toHaveLength(n - 1);
      const firstBackward = passes.findIndex((p) => p.pass === 'backward');
      expect(passes.slice(0, firstBackward).every((p) => p.pass === 'forward')).toBe(true);
      for (const p of passes) expect(p.pass === 'forward' ? t.parent[p.from] : t.parent[p.to]).toBe(p.pass === 'forward' ? p.to : p.from);
    }
  });
  it('leaves out a direction the edge does not allow (a LEFT join never filters its preserved side)', () => {
    // edge 0: t0 -> t1 only (t0 LEFT JOIN t1: t1's unmatched rows are dropped, t0's are kept)
    const g = graph([1000, 10], [[0, 1, 'k', 'k']], [0]);
    const passes = treePasses(g, largestRootTree(g), { forward: true, backward: true });
    expect(passes).toEqual([{ edge: 0, from: 0, to: 1, pass: 'backward' }]);
  });
  it('an edge allowed in neither direction does not join the tree', () => {
    const g: SipGraph = { ...graph([10, 20], [[0, 1, 'k', 'k']]), edges: [{ id: 0, a: 0, b: 1, aColumns: ['k'], bColumns: ['k'], aToB: false, bToA: false, join: 'full' }] };
    const t = largestRootTree(g);
    expect(t.roots).toEqual([1, 0]);
    expect(treePasses(g, t, { forward: true, backward: true })).toEqual([]);
  });
});

describe('withoutWholeKeySets', () => {
  it('drops transfers from relations nothing reduced, and keeps those that a kept transfer reached', () => {
    // a star: fact t0, dimensions t1 (filtered), t2 (not), t3 (not, but a snowflake under t1? no: under t0)
    const g: SipGraph = { ...graph([1000, 10, 20, 30], [[0, 1, 'a', 'a'], [0, 2, 'b', 'b'], [0, 3, 'c', 'c']]) };
    const reducedOnlyT1: SipGraph = { ...g, relations: g.relations.map((r) => ({ ...r, reduced: r.id === 1 })) };
    const passes = treePasses(reducedOnlyT1, largestRootTree(reducedOnlyT1), { forward: true, backward: true });
    const kept = withoutWholeKeySets(reducedOnlyT1, passes);
    // forward: only t1 -> t0; backward: t0 (reduced by t1 now) -> every dimension
    expect(kept.filter((t) => t.pass === 'forward').map((t) => t.from)).toEqual([1]);
    expect(kept.filter((t) => t.pass === 'backward').map((t) => t.to).sort()).toEqual([1, 2, 3]);
    // nothing reduced anywhere: nothing to send
    const none: SipGraph = { ...g, relations: g.relations.map((r) => ({ ...r, reduced: false })) };
    expect(withoutWholeKeySets(none, passes)).toEqual([]);
  });
});
