/**
 * `auto`: the default pushdown policy, an alias of `datafusion` (engines/datafusion.ts) — the
 * same filter for every build, under the name experiments and configs have always used for "what
 * DataFusion would do". The `inlist` policy makes the same choice too (its fallback to the map is
 * DataFusion's); `inlist` is the name that documents the intent.
 */
import type { PushdownPolicy } from '../../core/pushdown/policy.ts';
import { datafusionPushdown } from './engines/datafusion.ts';

export const autoPushdown: PushdownPolicy = {
  name: 'auto',
  description: `alias of datafusion: ${datafusionPushdown.description.replace(/^DataFusion's choice: /, '')}`,
  planPartition: (build, ctx) => datafusionPushdown.planPartition(build, ctx),
};
