/**
 * `sip = lip`: look-ahead information passing (Zhu, Potti, Saurabh, Patel, "Looking Ahead Makes
 * Query Plans Robust", PVLDB 10(8), 2017). Before any join runs, every dimension builds a Bloom
 * filter on its join keys and all of them are applied together at the fact table's scan, in an
 * order re-chosen per batch by each filter's observed pass rate (the most selective first, so
 * later filters test fewer rows). A left-deep star plan then reads the same fact rows whatever
 * its join order, which is the robustness the paper is after.
 *
 * Here the "fact" is the largest relation (the root of the largest-root spanning tree) and the
 * dimensions everything else: the filters flow leaves-to-root only (a snowflake's outer
 * dimension first filters its inner one, whose filter then reaches the fact, as LIP does for
 * snowflakes). The joins' own dynamic filters are off: LIP's filters replace them. As under
 * `transfer`, a filter on one integer key of a small enough range is its exact key-range bitmap
 * by default (`sip.filter = bitmap`; `bloom` for the paper's Bloom filters only).
 * A dimension nothing filters sends nothing (`sip.skipWholeKeySets`, core/sip.ts
 * `withoutWholeKeySets`): its filter would hold every key of the table.
 */
import { largestRootTree, treePasses, withoutWholeKeySets, type SipStrategy } from '../../core/sip.ts';
import { transferKind } from './filters.ts';

export const lipSip: SipStrategy = {
  name: 'lip',
  description: 'look-ahead information passing: every dimension\'s Bloom (or exact bitmap) filter at the fact scan, ordered by observed pass rate (Zhu et al., PVLDB 2017)',
  plan(graph, config) {
    const tree = largestRootTree(graph);
    const passes = treePasses(graph, tree, { forward: true, backward: false });
    const transfers = config['sip.skipWholeKeySets'] ? withoutWholeKeySets(graph, passes) : passes;
    return { transfers, filter: transferKind(config, 'bitmap'), joinFilters: false, adaptiveOrder: true, root: tree.roots[0] ?? null, note: null };
  },
};
