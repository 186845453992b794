/** `joinlab strategies [--json]`: every slot, the names registered in it and who registered them. */
import type { Config } from '../../core/config/schema.ts';
import { Engine } from '../../composition.ts';
import { formatTable } from './format.ts';

export async function runStrategiesCommand(config: Config, json: boolean): Promise<void> {
  const engine = await Engine.create(config);
  const slots = engine.registry.slots();
  if (json) {
    process.stdout.write(`${JSON.stringify({ slots }, null, 2)}\n`);
    return;
  }
  const rows = slots.flatMap((s) =>
    s.strategies.length === 0 ? [[s.name, '(none yet)', '', s.description]] : s.strategies.map((t) => [s.name, t.name, t.extension, t.description]),
  );
  process.stdout.write(`${formatTable(['slot', 'name', 'extension', 'description'], rows)}\n`);
}
