/**
 * The pushdown family as one extension: `none`, `bounds`, `inlist`, `map`, `auto` into slot
 * `pushdown`, registered through the same path a third-party policy uses.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { PUSHDOWN } from '../../core/registry/slots.ts';
import { autoPushdown } from './auto.ts';
import { boundsPushdown } from './bounds.ts';
import { inlistPushdown } from './inlist.ts';
import { mapPushdown } from './map.ts';
import { nonePushdown } from './none.ts';

export const PUSHDOWN_POLICIES = [nonePushdown, boundsPushdown, inlistPushdown, mapPushdown, autoPushdown] as const;

const extension: Extension = {
  name: 'joinlab.pushdown',
  load(registry) {
    for (const p of PUSHDOWN_POLICIES) registry.register(PUSHDOWN, p);
  },
};
export default extension;
export { extension };
