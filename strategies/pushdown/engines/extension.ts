/**
 * The engines' runtime-filter policies as one extension, into slot `pushdown`, loaded by the
 * composition root through the same path a user's `extensions: [...]` entry takes: each is the
 * policy a real engine ships, with its thresholds as config keys under `pushdown.<engine>.*`.
 */
import type { Extension } from '../../../core/registry/extensions.ts';
import { PUSHDOWN } from '../../../core/registry/slots.ts';
import { datafusionPushdown } from './datafusion.ts';
import { duckdbPushdown } from './duckdb.ts';
import { sparkPushdown } from './spark.ts';
import { trinoPushdown } from './trino.ts';
import { veloxPushdown } from './velox.ts';

export const ENGINE_POLICIES = [datafusionPushdown, duckdbPushdown, trinoPushdown, sparkPushdown, veloxPushdown] as const;

const extension: Extension = {
  name: 'joinlab.pushdown.engines',
  load(registry) {
    for (const p of ENGINE_POLICIES) registry.register(PUSHDOWN, p);
  },
};
export default extension;
export { extension };
