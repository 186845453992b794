/**
 * `joinlab config [--config FILE] [--set KEY=VALUE]… [--json]`: every config key with the value a
 * run would use — the file's or a `--set`'s, else the default — and the default beside it. What an
 * unknown config key's error points to instead of listing all ~90 keys (core/config/schema.ts).
 */
import { loadConfig } from '../../core/config/load.ts';
import { CONFIG_KEYS, parseConfig } from '../../core/config/schema.ts';
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
  const config = await loadConfig({ file: opts.config, set: opts.set });
  const defaults = parseConfig({});
  if (opts.json) {
    const keys = CONFIG_KEYS.map((k) => ({ key: k, value: jsonValue(config[k]), default: jsonValue(defaults[k]) }));
    process.stdout.write(`${JSON.stringify({ keys }, null, 2)}\n`);
    return;
  }
  const rows = CONFIG_KEYS.map((k) => [k, text(config[k]), text(defaults[k])]);
  process.stdout.write(`${formatTable(['key', 'value', 'default'], rows, { maxWidth: terminalWidth() })}\n`);
}
