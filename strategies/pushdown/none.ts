/**
 * `none`: publish no dynamic filter; the probe scan reads and keeps everything. The baseline
 * every pushdown experiment is compared against.
 */
import type { PushdownPolicy } from '../../core/pushdown/policy.ts';

export const nonePushdown: PushdownPolicy = {
  name: 'none',
  description: 'publish no dynamic filter (baseline)',
  publishesNothing: true,
  planPartition: () => null,
};
