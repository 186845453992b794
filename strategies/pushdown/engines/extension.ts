/**
 * The engines' runtime-filter policies as one extension, into slot `pushdown`, loaded by the
 * composition root through the same path a user's `extensions: [...]` entry takes: each is the
 * policy a real engine ships, with its thresholds as config keys under `pushdown.<engine>.*`,
 * declared here (`settings`) from the module of the policy that reads them.
 */
import type { Extension } from '../../../core/registry/extensions.ts';
import { PUSHDOWN } from '../../../core/registry/slots.ts';
import { datafusionPushdown } from './datafusion.ts';
import { DUCKDB_SETTINGS, duckdbPushdown } from './duckdb.ts';
import { SPARK_SETTINGS, sparkPushdown } from './spark.ts';
import { TRINO_SETTINGS, trinoPushdown } from './trino.ts';
import { VELOX_SETTINGS, veloxPushdown } from './velox.ts';

export const ENGINE_POLICIES = [datafusionPushdown, duckdbPushdown, trinoPushdown, sparkPushdown, veloxPushdown] as const;

/** The config keys of the engines' policies (`datafusion` has none of its own: it reads core's `pushdown.inlist*`). */
export const ENGINE_SETTINGS = { ...DUCKDB_SETTINGS, ...TRINO_SETTINGS, ...SPARK_SETTINGS, ...VELOX_SETTINGS } as const;

const extension: Extension = {
  name: 'joinlab.pushdown.engines',
  settings: ENGINE_SETTINGS,
  load(registry) {
    for (const p of ENGINE_POLICIES) registry.register(PUSHDOWN, p);
  },
};
export default extension;
export { extension };
