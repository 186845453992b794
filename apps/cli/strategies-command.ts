/**
 * `joinlab strategies [--json]`: every slot, the names registered in it and who registered them,
 * with each slot's default marked (the default of the config key the slot is named after: `auto`
 * for `join`, whose description is its planning rule); then every config key with its default and
 * the extension that declares it (`core` for core's own; issue 30) and its description.
 */
import { CONFIG_KEYS, parseConfig, type Config } from '../../core/config/schema.ts';
import { CORE_OWNER } from '../../core/config/settings.ts';
import { INTERNAL_SLOTS } from '../../core/registry/slots.ts';
import { Engine } from '../../composition.ts';
import { formatTable, terminalWidth } from './format.ts';

/** The default strategy name of each config key that names a strategy in a slot (`join` -> `auto`). */
function slotDefaults(): Map<string, unknown> {
  const defaults = parseConfig({});
  return new Map(CONFIG_KEYS.map((k) => [k, defaults[k]]));
}

export async function runStrategiesCommand(config: Config, json: boolean): Promise<void> {
  const engine = await Engine.create(config);
  const defaults = slotDefaults();
  // worker tasks and morsel decoders are internals (resolved by an operator or a scan, never configured): not listed
  const internal = new Set(INTERNAL_SLOTS.map((s) => s.name));
  const slots = engine.registry.slots().filter((s) => !internal.has(s.name)).map((s) => ({
    ...s,
    strategies: s.strategies.map((t) => ({ ...t, default: defaults.get(s.name) === t.name })),
  }));
  const settings = engine.configSchema.describe().map((k) => ({ key: k.key, default: k.default === Infinity ? 'unlimited' : k.default, extension: k.owner, description: k.description }));
  if (json) {
    process.stdout.write(`${JSON.stringify({ slots, settings }, null, 2)}\n`);
    return;
  }
  const rows = slots.flatMap((s) =>
    s.strategies.length === 0
      ? [[s.name, '(none yet)', '', '', s.description]]
      : s.strategies.map((t) => [s.name, t.name, t.default ? 'yes' : '', t.extension, t.description]),
  );
  // descriptions run to ~370 characters: wrapped under their column at the terminal's width
  process.stdout.write(`${formatTable(['slot', 'name', 'default', 'extension', 'description'], rows, { maxWidth: terminalWidth() })}\n`);
  // one table per owner (a column of owners beside 60-character keys would leave the descriptions no room)
  for (const owner of [...new Set(settings.map((k) => k.extension))]) {
    const own = settings.filter((k) => k.extension === owner);
    const settingRows = own.map((k) => [k.key, Array.isArray(k.default) ? k.default.join(',') : String(k.default), k.description]);
    const title = owner === CORE_OWNER ? 'settings of core' : `settings of extension ${owner}`;
    process.stdout.write(`\n${title}:\n${formatTable(['setting', 'default', 'description'], settingRows, { maxWidth: terminalWidth() })}\n`);
  }
}
