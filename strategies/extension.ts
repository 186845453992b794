/**
 * The built-in strategy families (pushdown policies; hash maps, SMJ existence streams and PWMJ
 * searches as they land), registered through the same extension path as user code.
 */
import type { Extension } from '../core/registry/extensions.ts';
import { PUSHDOWN } from '../core/registry/slots.ts';
import { nonePushdown } from './pushdown/none.ts';

const extension: Extension = {
  name: 'joinlab.strategies',
  load(registry) {
    registry.register(PUSHDOWN, nonePushdown);
  },
};
export default extension;
