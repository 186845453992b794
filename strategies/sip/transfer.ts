/**
 * `sip = transfer`: predicate transfer (Yang, Zhao, Yu, Koutris, "Predicate Transfer: Efficient
 * Pre-Filtering on Multi-Join Queries", CIDR 2024) in its robust form (Zhao, Yang, Yu, Koutris,
 * "Debunking the Myth of Join Ordering: Toward Robust SQL Analytics", SIGMOD 2025). A spanning tree
 * of the join graph rooted at the largest relation (LargestRoot: Prim's order, the largest
 * neighbour next); a forward pass sends a Bloom filter from every relation to its parent, deepest
 * first, and a backward pass from the root down to every child — each source scanned with every
 * filter that reached it before. The joins then run over scans that carry every filter that
 * reached their table, whatever the join order: with an acyclic graph the passes remove (up to
 * false positives) every dangling row, which is what makes the time independent of the order.
 *
 * Sound by construction: a transfer runs only along a direction the executor allowed (core/sip.ts).
 * On a cyclic graph the tree leaves some edges out, which only reduces less. The joins' own dynamic
 * filters are off (the transferred ones replace them); `sip.filter` picks the filters' kind. By
 * default (`bitmap`) a transfer on one integer key whose range has at most 2^20 values sends its
 * exact key-range bitmap instead of the papers' Bloom filter (cheaper per row, no false positives;
 * strategies/sip/filters.ts), and a Bloom filter otherwise; `sip.filter = bloom` sends Bloom
 * filters only, as the papers do.
 * A relation nothing has filtered sends nothing (`sip.skipWholeKeySets`): its filter would hold
 * every key of its table.
 */
import { largestRootTree, treePasses, withoutWholeKeySets, type SipStrategy } from '../../core/sip.ts';
import { transferKind } from './filters.ts';

export const transferSip: SipStrategy = {
  name: 'transfer',
  description: 'predicate transfer: Bloom (or exact key-range bitmap) filters forward and backward over a spanning tree rooted at the largest table, before the joins (Yang et al. CIDR 2024; Zhao et al. SIGMOD 2025)',
  plan(graph, config) {
    const tree = largestRootTree(graph);
    const passes = treePasses(graph, tree, { forward: true, backward: true });
    const transfers = config['sip.skipWholeKeySets'] ? withoutWholeKeySets(graph, passes) : passes;
    return { transfers, filter: transferKind(config, 'bitmap'), joinFilters: false, adaptiveOrder: false, root: tree.roots[0] ?? null, note: null };
  },
};
