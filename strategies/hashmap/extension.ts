/**
 * The built-in hash-map layouts (slot `hashmap`: `chained`, `array`, `rank`, `linear`, `swiss`,
 * `auto`) as one extension: they are registered through the same extension path a third-party
 * layout uses, and the composition root loads this extension with the other built-ins.
 */
import type { Extension } from '../../core/registry/extensions.ts';
import { HASHMAP } from '../../core/registry/slots.ts';
import { arrayLayout } from './array.ts';
import { autoLayout } from './auto.ts';
import { chainedLayout } from './chained.ts';
import { linearLayout } from './linear.ts';
import { rankLayout } from './rank.ts';
import { swissLayout } from './swiss.ts';

const extension: Extension = {
  name: 'joinlab.hashmaps',
  load(registry) {
    registry.register(HASHMAP, chainedLayout);
    registry.register(HASHMAP, arrayLayout);
    registry.register(HASHMAP, rankLayout);
    registry.register(HASHMAP, linearLayout);
    registry.register(HASHMAP, swissLayout);
    registry.register(HASHMAP, autoLayout);
  },
};
export default extension;
export { extension };
