/**
 * The built-in join algorithms, registered exactly the way a third-party extension registers
 * its own (see core/registry/extensions.ts).
 */
import type { Extension } from '../core/registry/extensions.ts';
import { JOIN } from '../core/registry/slots.ts';
import { HashJoin } from './hash-join/hash-join.ts';
import { NestedLoopJoin } from './nested-loop-join/nested-loop-join.ts';
import { PiecewiseMergeJoin } from './piecewise-merge-join/piecewise-merge-join.ts';
import { SortMergeJoin } from './sort-merge-join/sort-merge-join.ts';

const extension: Extension = {
  name: 'joinlab.joins',
  load(registry) {
    registry.register(JOIN, new HashJoin());
    registry.register(JOIN, new NestedLoopJoin());
    registry.register(JOIN, new SortMergeJoin());
    registry.register(JOIN, new PiecewiseMergeJoin());
  },
};
export default extension;
