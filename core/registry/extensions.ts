/**
 * Extensions: a module exporting `{ name, load(registry) }` (as its default export or as a named
 * `extension` export), optionally with `settings` — the config keys it owns, each with a zod
 * schema, a default and a description (core/config/settings.ts): loading records them in the
 * registry, and the configuration is validated against core's keys plus every loaded extension's
 * (`Engine.create`; `extensionSettings` gives them without a registry, for `loadConfig` and
 * experiment files). The built-in families are loaded through exactly this path, from module
 * specifiers, so a third-party policy plugs in the same way — config `extensions: ["./x.js"]` —
 * without touching core.
 *
 * Relative specifiers resolve against `baseDir` (the config file's directory or the working
 * directory). A module that cannot be imported or does not have the shape is a `ConfigError`
 * naming the specifier; a path that is not a regular file (a directory, a FIFO that would block
 * the import) is refused before the import (core/input-file.ts).
 *
 * Plain `.js` files outside a `"type": "module"` package: Node itself would load an ES module
 * there (it detects the syntax), but under tsx's loader — which is how the `joinlab` command runs —
 * `import()` hands the file to the CommonJS loader, which finds ESM syntax and fails with "Cannot
 * require() ES Module … in a cycle" (and a failed import poisons the module cache). So such a file
 * is loaded with `require()`, which in Node >= 20.19 loads both CommonJS and ES modules; the only
 * ES modules it cannot load are ones with top-level `await`, which get the clear message "name it
 * .mjs or add "type": "module"". `.mjs`, `.cjs`, `.ts` and `.js` inside a module package are
 * imported as before.
 *
 * Preloaded modules: code compiled ahead (a worker thread's bundle, core/parallel/worker-code.ts)
 * carries the extension modules it was built from and hands them to `preloadExtensionModules`
 * under the URL each was compiled from; an extension whose specifier resolves to one of those URLs
 * is taken from there rather than imported — importing the file would load a second copy of every
 * module it imports (and TypeScript would need a loader).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError, JoinlabError } from '../errors.ts';
import { assertRegularFile } from '../input-file.ts';
import type { OwnedSettings, SettingsFragment } from '../config/settings.ts';
import type { Registry } from './registry.ts';

export interface Extension {
  readonly name: string;
  /**
   * The config keys this extension owns (core/config/settings.ts): each with a zod schema, a
   * default and a description. A run's configuration is validated against core's keys plus these.
   */
  readonly settings?: SettingsFragment;
  load(registry: Registry): void | Promise<void>;
}

function isExtension(x: unknown): x is Extension {
  return !!x && typeof x === 'object' && typeof (x as Extension).name === 'string' && typeof (x as Extension).load === 'function';
}

/** Module namespaces by the URL they were compiled from (see the module comment). */
const PRELOADED = new Map<string, Record<string, unknown>>();

/** Makes `modules` (URL -> namespace) what `importExtension` finds for those URLs. */
export function preloadExtensionModules(modules: Readonly<Record<string, Record<string, unknown>>>): void {
  for (const [url, mod] of Object.entries(modules)) PRELOADED.set(url, mod);
}

/** What an extension specifier names: a `file:` URL (paths resolved against `baseDir`) or a package name. */
export function extensionUrl(specifier: string, baseDir = process.cwd()): string {
  return toUrl(specifier, baseDir);
}

function toUrl(specifier: string, baseDir: string): string {
  if (specifier.startsWith('file:')) return specifier;
  if (isAbsolute(specifier)) return pathToFileURL(specifier).href;
  if (specifier.startsWith('./') || specifier.startsWith('../')) return pathToFileURL(resolve(baseDir, specifier)).href;
  return specifier; // a package name
}

export async function loadExtension(registry: Registry, ext: Extension): Promise<void> {
  if (ext.settings !== undefined) registry.declareSettings(ext.name, ext.settings);
  await registry.withExtension(ext.name, () => ext.load(registry));
}

/**
 * The settings the extensions `specifiers` declare (imported, not loaded into a registry): what a
 * configuration that names them is validated against before an engine exists (`loadConfig`, an
 * experiment file's variants).
 */
export async function extensionSettings(specifiers: readonly string[], baseDir?: string): Promise<OwnedSettings[]> {
  const out: OwnedSettings[] = [];
  for (const s of specifiers) {
    const ext = await importExtension(s, baseDir);
    if (ext.settings !== undefined) out.push({ owner: ext.name, settings: ext.settings });
  }
  return out;
}

/** The package scope of a file: the `type` of the nearest package.json ('commonjs' without one). */
function packageType(file: string): 'module' | 'commonjs' {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: unknown };
      return pkg.type === 'module' ? 'module' : 'commonjs';
    } catch {
      // no (readable) package.json here: look further up, as Node does
    }
    if (dirname(dir) === dir) return 'commonjs';
  }
}

async function importModule(url: string, specifier: string): Promise<Record<string, unknown>> {
  const file = url.startsWith('file:') ? fileURLToPath(url) : null;
  if (file !== null) await assertRegularFile(file, 'extension');
  if (file === null || extname(file) !== '.js' || packageType(file) === 'module') return (await import(url)) as Record<string, unknown>;
  try {
    const m = createRequire(import.meta.url)(file) as Record<string, unknown>;
    return isExtension(m) ? { default: m } : m; // module.exports = { name, load }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_REQUIRE_ASYNC_MODULE' || code === 'ERR_REQUIRE_ESM' || code === 'ERR_REQUIRE_CYCLE_MODULE') {
      throw new ConfigError(
        `cannot load extension '${specifier}': it is an ES module in a .js file outside a "type": "module" package, which Node cannot load here; name it .mjs or add "type": "module" to its package.json`,
        'extensions',
      );
    }
    throw e;
  }
}

export async function importExtension(specifier: string, baseDir = process.cwd()): Promise<Extension> {
  let mod: Record<string, unknown>;
  try {
    const url = toUrl(specifier, baseDir);
    mod = PRELOADED.get(url) ?? (await importModule(url, specifier));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
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
