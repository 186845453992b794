/**
 * `sip = yannakakis`: Yannakakis' semi-join reduction (Yannakakis, "Algorithms for Acyclic
 * Database Schemes", VLDB 1981; made practical again e.g. by Yannakakis+, SIGMOD 2025). For an
 * acyclic query, semi-joins along a join tree — leaves to root, then root to leaves — leave every
 * relation with exactly the rows that appear in the join's result ("full reduction"). The filters
 * are exact: each is the source's hash set of its keys (the `map` pushdown filter over a hash table
 * built from the reduced source), so a target keeps a row only if its key is in the source.
 *
 * The join tree is the GYO ear-removal tree (core/sip.ts `gyoJoinTree`: running intersection, so
 * the reduction is full). A cyclic hypergraph has no such tree: the strategy falls back to
 * `dynamic` and says so (`note`, shown in the metrics and `--explain`).
 */
import { gyoJoinTree, noTransfers, treePasses, type SipStrategy } from '../../core/sip.ts';

export const yannakakisSip: SipStrategy = {
  name: 'yannakakis',
  description: 'exact semi-join reduction forward and backward over a join tree (Yannakakis, VLDB 1981); a cyclic query falls back to dynamic',
  plan(graph) {
    const tree = gyoJoinTree(graph);
    if (tree === null) return noTransfers(true, 'cyclic join graph: no join tree for a full reduction, fell back to dynamic');
    const transfers = treePasses(graph, tree, { forward: true, backward: true });
    return { transfers, filter: 'exact', joinFilters: false, adaptiveOrder: false, root: tree.roots[0] ?? null, note: null };
  },
};
