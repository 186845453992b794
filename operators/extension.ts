/**
 * The built-in join algorithms, registered exactly the way a third-party extension registers
 * its own (see core/registry/extensions.ts). `auto` (the default `join`) is a planner over them: it
 * names, per join, the algorithm that runs it (operators/auto-join/auto-join.ts).
 */
import type { Extension } from '../core/registry/extensions.ts';
import { JOIN, WORKER_TASK } from '../core/registry/slots.ts';
import { AsofJoin } from './asof-join/asof-join.ts';
import { AutoJoin } from './auto-join/auto-join.ts';
import { HashJoin } from './hash-join/hash-join.ts';
import { IEJoin } from './iejoin/iejoin.ts';
import { probeTask } from './hash-join/probe-task.ts';
import { buildTask } from './hash-join/build-task.ts';
import { concatTask } from './hash-join/concat-task.ts';
import { NestedLoopJoin } from './nested-loop-join/nested-loop-join.ts';
import { PiecewiseMergeJoin } from './piecewise-merge-join/piecewise-merge-join.ts';
import { streamTask } from './piecewise-merge-join/stream-task.ts';
import { SortMergeJoin } from './sort-merge-join/sort-merge-join.ts';
import { sortTask } from './sort/sort-task.ts';

const extension: Extension = {
  name: 'joinlab.joins',
  load(registry) {
    registry.register(JOIN, new HashJoin());
    registry.register(JOIN, new NestedLoopJoin());
    registry.register(JOIN, new SortMergeJoin());
    registry.register(JOIN, new PiecewiseMergeJoin());
    registry.register(JOIN, new IEJoin());
    registry.register(JOIN, new AsofJoin());
    registry.register(JOIN, new AutoJoin(registry));
    // the parallel phases, run by worker threads (core/parallel/)
    registry.register(WORKER_TASK, probeTask);
    registry.register(WORKER_TASK, buildTask);
    registry.register(WORKER_TASK, concatTask);
    registry.register(WORKER_TASK, streamTask);
    registry.register(WORKER_TASK, sortTask);
  },
};
export default extension;
