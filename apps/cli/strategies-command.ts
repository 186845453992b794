/**
 * `joinlab strategies [--json]`: every slot, the names registered in it and who registered them,
 * with each slot's default marked (the default of the config key the slot is named after: `auto`
 * for `join`, whose description is its planning rule).
 */
import { CONFIG_KEYS, parseConfig, type Config } from '../../core/config/schema.ts';
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
  if (json) {
    process.stdout.write(`${JSON.stringify({ slots }, null, 2)}\n`);
    return;
  }
  const rows = slots.flatMap((s) =>
    s.strategies.length === 0
      ? [[s.name, '(none yet)', '', '', s.description]]
      : s.strategies.map((t) => [s.name, t.name, t.default ? 'yes' : '', t.extension, t.description]),
  );
  // descriptions run to ~370 characters: wrapped under their column at the terminal's width
  process.stdout.write(`${formatTable(['slot', 'name', 'default', 'extension', 'description'], rows, { maxWidth: terminalWidth() })}\n`);
}
