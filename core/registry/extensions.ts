/**
 * Extensions: a module exporting `{ name, load(registry) }` (as its default export or as a named
 * `extension` export). The built-in families are loaded through exactly this path, from module
 * specifiers, so a third-party policy plugs in the same way — config `extensions: ["./x.js"]` —
 * without touching core.
 *
 * Relative specifiers resolve against `baseDir` (the config file's directory or the working
 * directory). A module that cannot be imported or does not have the shape is a `ConfigError`
 * naming the specifier.
 */
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, JoinlabError } from '../errors.ts';
import type { Registry } from './registry.ts';

export interface Extension {
  readonly name: string;
  load(registry: Registry): void | Promise<void>;
}

function isExtension(x: unknown): x is Extension {
  return !!x && typeof x === 'object' && typeof (x as Extension).name === 'string' && typeof (x as Extension).load === 'function';
}

function toUrl(specifier: string, baseDir: string): string {
  if (specifier.startsWith('file:')) return specifier;
  if (isAbsolute(specifier)) return pathToFileURL(specifier).href;
  if (specifier.startsWith('./') || specifier.startsWith('../')) return pathToFileURL(resolve(baseDir, specifier)).href;
  return specifier; // a package name
}

export async function loadExtension(registry: Registry, ext: Extension): Promise<void> {
  await registry.withExtension(ext.name, () => ext.load(registry));
}

export async function importExtension(specifier: string, baseDir = process.cwd()): Promise<Extension> {
  let mod: Record<string, unknown>;
  try {
    mod = await import(toUrl(specifier, baseDir));
  } catch (e) {
    throw new ConfigError(`cannot load extension '${specifier}': ${(e as Error).message.split('\n')[0]}`, 'extensions');
  }
  const ext = [mod.default, mod.extension].find(isExtension);
  if (!ext) {
    throw new ConfigError(`extension '${specifier}' must export { name, load(registry) } (as default or as 'extension')`, 'extensions');
  }
  return ext;
}

export async function loadExtensions(registry: Registry, specifiers: readonly string[], baseDir?: string): Promise<void> {
  for (const s of specifiers) {
    const ext = await importExtension(s, baseDir);
    try {
      await loadExtension(registry, ext);
    } catch (e) {
      if (e instanceof JoinlabError) throw e;
      throw new ConfigError(`extension '${ext.name}' (${s}) failed to load: ${(e as Error).message}`, 'extensions');
    }
  }
}
