/**
 * The built-in piecewise merge join first-match searches (slot `pwmj.search`: `binary`, the
 * default, and `linear`, its baseline), registered through the same extension path a third-party
 * search uses.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { PWMJ_SEARCH } from '../../core/registry/slots.ts';
import { binarySearch } from './binary.ts';
import { linearSearch } from './linear.ts';

const extension: Extension = {
  name: 'joinlab.pwmj-search',
  load(registry) {
    registry.register(PWMJ_SEARCH, binarySearch);
    registry.register(PWMJ_SEARCH, linearSearch);
  },
};
export default extension;
export { extension };
