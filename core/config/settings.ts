/**
 * Settings an extension declares: the config keys it owns, each with a zod schema for its value,
 * a default and a description (issue 30).
 *
 * Core's keys live in core/config/schema.ts; every other key belongs to the extension that reads
 * it, declared in the extension object the registry loads:
 *
 *   export default {
 *     name: 'my-lab',
 *     settings: {
 *       'pushdown.mine.maxDistinct': { schema: z.number().int().positive(), default: 1000, description: '…' },
 *     },
 *     load(registry) { … },
 *   };
 *
 * The configuration of a run is validated against the union of core's keys and the keys of every
 * extension it loads (`ConfigSchema`, core/config/schema.ts): an unset key gets its default, an
 * unknown one is an error naming it (with the closest known key), a key two owners declare is an
 * error naming both. The code that owns a key reads it typed through `settingReader`, which also
 * falls back to the default when handed a configuration parsed without that extension's keys
 * (core's `parseConfig` alone, as unit tests of a policy often do).
 */
import type { z } from 'zod';

/** One config key of an extension: what its value must be, its default, and what it means. */
export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  /** Validates (and may convert: byte sizes) a value; `default` is used when the key is unset. */
  readonly schema: S;
  /** The value when the key is unset (the schema's output type: 10 MiB as 10485760). */
  readonly default: z.output<S>;
  readonly description: string;
}

/** The keys an extension declares, by dotted name (`pushdown.trino.maxDistinctPerDriver`). */
export type SettingsFragment = { readonly [key: string]: SettingSpec };

/** Who declares which keys: `core`, or an extension's name. */
export interface OwnedSettings {
  readonly owner: string;
  readonly settings: SettingsFragment;
}

/** The owner name of core's own keys (in errors, `joinlab config` and `joinlab strategies`). */
export const CORE_OWNER = 'core';

/**
 * Declares a fragment, keeping each key's schema type (so `settingReader` knows the value types):
 * `defineSettings({ 'x.y': { schema: z.number(), default: 1, description: '…' } })`.
 */
export function defineSettings<const F extends { readonly [key: string]: SettingSpec<z.ZodType> }>(fragment: F): F {
  return fragment;
}

/** The value type of a key of fragment `F`. */
export type SettingValue<F extends SettingsFragment, K extends keyof F> = z.output<F[K]['schema']>;

/**
 * A typed getter for the keys of `fragment`: `const setting = settingReader(TRINO_SETTINGS);
 * setting(config, 'pushdown.trino.maxDistinctPerDriver')` is a number. A configuration parsed
 * without these keys (core's schema alone) gives the key's default.
 */
export function settingReader<F extends SettingsFragment>(fragment: F) {
  return <K extends keyof F & string>(config: { readonly [key: string]: unknown }, key: K): SettingValue<F, K> => {
    const v = config[key];
    return (v === undefined ? fragment[key]!.default : v) as SettingValue<F, K>;
  };
}
