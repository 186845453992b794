/**
 * The built-in sort-merge join existence streams (slot `smj.existence`: `bitwise`, the default,
 * and `materializing`, its baseline), registered through the same extension path a third-party
 * stream uses.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { SMJ_EXISTENCE } from '../../core/registry/slots.ts';
import { bitwiseExistence } from './bitwise.ts';
import { materializingExistence } from './materializing.ts';

const extension: Extension = {
  name: 'joinlab.smj-existence',
  load(registry) {
    registry.register(SMJ_EXISTENCE, bitwiseExistence);
    registry.register(SMJ_EXISTENCE, materializingExistence);
  },
};
export default extension;
export { extension };
