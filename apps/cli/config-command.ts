/**
 * `joinlab config [--config FILE] [--set KEY=VALUE]… [--json]`: every config key with the value a
 * run would use — the file's or a `--set`'s, else the default — the default beside it, and who
 * owns the key: `core`, or the extension that declares it (built-in or configured; issue 30). What
 * an unknown config key's error points to instead of listing all ~90 keys (core/config/schema.ts).
 */
import { resolveConfig } from '../../composition.ts';
import { formatTable, terminalWidth } from './format.ts';

export interface ConfigCommandOptions {
  readonly config?: string;
  readonly set: readonly string[];
  readonly json: boolean;
}

/** A config value as JSON and as table text: Infinity (an unlimited memoryLimit) is `unlimited`. */
function jsonValue(v: unknown): unknown {
  return v === Infinity ? 'unlimited' : v;
}

function text(v: unknown): string {
  const j = jsonValue(v);
  return Array.isArray(j) ? j.join(',') : String(j);
}

export async function runConfigCommand(opts: ConfigCommandOptions): Promise<void> {
  const { config, schema } = await resolveConfig({ file: opts.config, set: opts.set });
  const infos = schema.describe();
  if (opts.json) {
    const keys = infos.map((k) => ({
      key: k.key,
      value: jsonValue(config[k.key]),
      default: jsonValue(k.default),
      owner: k.owner,
      description: k.description,
    }));
    process.stdout.write(`${JSON.stringify({ keys }, null, 2)}\n`);
    return;
  }
  const rows = infos.map((k) => [k.key, k.owner, text(config[k.key]), text(k.default)]);
  process.stdout.write(`${formatTable(['key', 'owner', 'value', 'default'], rows, { maxWidth: terminalWidth() })}\n`);
}
