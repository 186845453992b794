/**
 * Reads a config file (JSON or YAML, chosen by extension, YAML also accepting JSON) and merges
 * `--set` overrides. Extension paths in a file are resolved relative to that file, so a config
 * can be used from any working directory.
 *
 * The path must be a regular file (core/input-file.ts: a FIFO would block the read forever, a
 * directory used to escape as an untyped EISDIR). YAML aliases are expanded with the yaml
 * library's limit (`maxAliasCount`, against "billion laughs" files); an alias to an enclosing
 * node makes a cycle, which `flattenConfig` reports as a ConfigError naming the key.
 */
import { readFile } from 'node:fs/promises';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../errors.ts';
import { assertRegularFile, statError } from '../input-file.ts';
import { extensionSettings } from '../registry/extensions.ts';
import { applyOverrides, configuredExtensions, CORE_SCHEMA, parseConfig, type Config, type ConfigSchema } from './schema.ts';

/** The yaml library's default, stated: more alias expansions than this is an error. */
const MAX_ALIAS_COUNT = 100;

export async function readConfigFile(path: string): Promise<Record<string, unknown>> {
  await assertRegularFile(path, 'config file');
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw statError(e, path, 'config file');
  }
  let parsed: unknown;
  try {
    parsed = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    throw new ConfigError(`cannot parse config file ${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`config file ${path} must hold an object`);
  const obj = { ...(parsed as Record<string, unknown>) };
  if (Array.isArray(obj.extensions)) {
    const base = dirname(resolve(path));
    obj.extensions = obj.extensions.map((p) => (typeof p === 'string' && isRelativePath(p) ? resolve(base, p) : p));
  }
  return obj;
}

function isRelativePath(p: string): boolean {
  return !isAbsolute(p) && (p.startsWith('./') || p.startsWith('../'));
}

export interface LoadConfigOptions {
  readonly file?: string;
  readonly set?: readonly string[];
  readonly base?: unknown;
  /**
   * The runtime's extensions (composition.ts: the built-ins), whose settings are known keys
   * beside core's and the configured extensions'. Without them only those two are.
   */
  readonly extensions?: readonly string[];
}

/**
 * `--config FILE` (optional) + `--set k=v`… -> a configuration validated against the union of
 * core's keys and the settings of the runtime's and the configured extensions, and that union.
 * The order matters: the extensions are imported first (their settings are what makes their keys
 * known, and give `--set` text its type), then everything is validated at once.
 */
export async function resolveConfig(options: LoadConfigOptions = {}): Promise<{ config: Config; schema: ConfigSchema }> {
  const fromFile = options.file ? await readConfigFile(options.file) : {};
  const base = { ...(options.base as object), ...fromFile };
  // `extensions` is read the same whatever the union (fromCommandLine splits it at commas)
  const configured = configuredExtensions(applyOverrides(base, (options.set ?? []).filter((o) => o.slice(0, Math.max(0, o.indexOf('='))).trim() === 'extensions')));
  const schema = CORE_SCHEMA.with(await extensionSettings([...(options.extensions ?? []), ...configured]));
  return { config: parseConfig(applyOverrides(base, options.set ?? [], schema), schema), schema };
}

/** `resolveConfig`'s configuration. */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<Config> {
  return (await resolveConfig(options)).config;
}
