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
import { applyOverrides, parseConfig, type Config } from './schema.ts';

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

/** `--config FILE` (optional) + `--set k=v`… -> a validated Config. */
export async function loadConfig(options: { file?: string; set?: readonly string[]; base?: unknown } = {}): Promise<Config> {
  const fromFile = options.file ? await readConfigFile(options.file) : {};
  const merged = applyOverrides({ ...(options.base as object), ...fromFile }, options.set ?? []);
  return parseConfig(merged);
}
