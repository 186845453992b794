/**
 * The information-passing family as one extension: `none`, `dynamic`, `lip`, `transfer` and
 * `yannakakis` into slot `sip`, registered through the path a third-party strategy uses.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { SIP } from '../../core/registry/slots.ts';
import { dynamicSip } from './dynamic.ts';
import { lipSip } from './lip.ts';
import { noneSip } from './none.ts';
import { transferSip } from './transfer.ts';
import { yannakakisSip } from './yannakakis.ts';

export const SIP_STRATEGIES = [noneSip, dynamicSip, lipSip, transferSip, yannakakisSip] as const;

const extension: Extension = {
  name: 'joinlab.sip',
  load(registry) {
    for (const s of SIP_STRATEGIES) registry.register(SIP, s);
  },
};
export default extension;
export { extension };
