/**
 * Where the built-in extensions live. They are imported by specifier, through
 * `loadExtensions`, exactly like `extensions: [...]` from a config file.
 */
export const BUILTIN_EXTENSIONS: readonly string[] = [
  new URL('../../operators/extension.ts', import.meta.url).href,
  new URL('../../strategies/hashmap/extension.ts', import.meta.url).href,
  new URL('../../strategies/pushdown/extension.ts', import.meta.url).href,
];
