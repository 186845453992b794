/**
 * The code a worker thread runs: one JavaScript file compiled ahead from the TypeScript sources
 * (`worker-main.ts`, every module it imports, and the extensions the pool loads), rather than the
 * sources themselves compiled by tsx's loader in each new thread.
 *
 * Why: under tsx every module a thread imports goes through Node's module hooks, which run on a
 * thread of their own: each resolve and load is a message there and back, plus reading the
 * transform cache and the source map. A worker imports ~150 modules; measured on the 2-core VM
 * (docs/threads.md), a worker took 1.1–1.8 s to become ready this way, almost all of it module
 * loading, and two workers starting together twice that. The bundle is one module: no hooks, one
 * parse.
 *
 * How: `workerCode(extensions, baseDir)` returns the URL of a bundle for that extension list, built
 * on first use with esbuild (the bundler tsx itself runs on; imported only when a build is needed)
 * into a cache directory, `os.tmpdir()/joinlab-<uid>/worker-code/<key>/`:
 * - `<key>` hashes what the bundle is made of besides the files: the entry (the extension
 *   specifiers, as absolute paths), this module (the recipe) and tsconfig.json;
 * - `manifest.json` lists every source file compiled in with the SHA-256 of the exact text
 *   esbuild compiled (read by this module's load hook, so an edit during a build cannot slip in
 *   unnoticed), and the bundle's name, the hash of its own text;
 * - a later process re-hashes those files (~100 files, a few ms) and uses the bundle only when
 *   every hash matches and the bundle's text still hashes to its name: an edited source is rebuilt,
 *   a checkout needs no build step, and a truncated file is never run;
 * - files are written under temporary names and renamed into place (two processes building at
 *   once each write a whole file; the rename is atomic).
 *
 * What is bundled and what is not: the project's sources and every extension given as a file
 * (the built-ins, and a user's `extensions: ["./x.ts"]`) are compiled in, so in a worker an
 * extension and the joinlab modules it imports (e.g. `index.ts`) are one copy, as under tsx. Each
 * extension's module namespace is handed to core/registry/extensions.ts (`preloadExtensionModules`)
 * under the URL the worker is told to load, so loading it there finds it instead of importing the
 * file again. npm packages are not bundled (some locate files beside themselves: parquet-wasm its
 * .wasm): each import of one is resolved now, as Node would from the importing file, and kept as
 * an import of that absolute file, so the bundle runs from the cache directory.
 *
 * Fallback, never a failure: no esbuild, a build error, a read-only cache, an extension given by
 * package name (its own imports could not be shared with the bundle's), or
 * config `parallel.workerCode: source` — the worker loads the TypeScript sources
 * through tsx as before, and `WorkerCode.reason` says why. A source file that cannot be
 * compiled therefore fails in the worker with the error tsx gives, exactly as before.
 *
 * Error stacks: the bundle has a source map beside it (sources only, no text); the worker entry
 * enables source maps, so a bug's stack names the TypeScript file and line.
 *
 * Module URLs: `import.meta.url` in each compiled file is replaced by that file's own URL, so code
 * that locates a file beside itself works as under tsx. A CommonJS extension's `__dirname` is not
 * rewritten (it is undefined in the bundle): such an extension needs `parallel.workerCode: source`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { trackTempPath, untrackTempPath } from '../cleanup.ts';
import { extensionUrl } from '../registry/extensions.ts';

export type WorkerCode =
  | {
      readonly kind: 'bundle';
      /** The bundle's file URL (the worker imports it). */
      readonly url: string;
      /** Built by this process (false: found valid in the cache). */
      readonly built: boolean;
      /** Checking the cache, and building when needed. */
      readonly ms: number;
    }
  | { readonly kind: 'source'; readonly reason: string };

/** `bundle`: compiled ahead when possible (the default); `source`: always the TypeScript sources through tsx. */
export type WorkerCodeMode = 'bundle' | 'source';

export interface WorkerCodeOptions {
  readonly mode?: WorkerCodeMode;
  /** Default `os.tmpdir()/joinlab-<uid>/worker-code`. */
  readonly cacheDir?: string;
}

/** Bumped whenever the entry's or the manifest's shape changes. */
const FORMAT = 1;
const MAIN = fileURLToPath(new URL('./worker-main.ts', import.meta.url));
const EXTENSIONS_MODULE = fileURLToPath(new URL('../registry/extensions.ts', import.meta.url));
const REPO_ROOT = resolve(dirname(MAIN), '../..');

interface Manifest {
  readonly format: number;
  /** `<sha256 of the bundle's text>.mjs`, beside the manifest. */
  readonly bundle: string;
  /** Absolute path -> SHA-256 of the text compiled. */
  readonly inputs: Readonly<Record<string, string>>;
}

export function defaultWorkerCodeDir(): string {
  let user: string;
  try {
    user = String(userInfo().uid);
  } catch {
    user = 'user';
  }
  return join(tmpdir(), `joinlab-${user}`, 'worker-code');
}

const MEMO = new Map<string, Promise<WorkerCode>>();

/**
 * The code for a worker loading `extensions` (specifiers as the pool's init message has them,
 * relative ones against `baseDir`): once per process and extension list, then memoised.
 */
export function workerCode(extensions: readonly string[], baseDir: string, options: WorkerCodeOptions = {}): Promise<WorkerCode> {
  if (options.mode === 'source') return Promise.resolve({ kind: 'source', reason: 'parallel.workerCode=source' });
  const cacheDir = options.cacheDir ?? defaultWorkerCodeDir();
  const key = JSON.stringify([cacheDir, baseDir, extensions]);
  let code = MEMO.get(key);
  if (code === undefined) MEMO.set(key, (code = findOrBuildWorkerCode(extensions, baseDir, cacheDir)));
  return code;
}

const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');

/** `workerCode` without the memo: the cache checked (and the bundle built) now. */
export async function findOrBuildWorkerCode(extensions: readonly string[], baseDir: string, cacheDir: string): Promise<WorkerCode> {
  const started = performance.now();
  const files: { url: string; path: string }[] = [];
  for (const s of extensions) {
    const url = extensionUrl(s, baseDir);
    if (!url.startsWith('file:')) return { kind: 'source', reason: `extension '${s}' is a package name (only files are compiled into the worker bundle)` };
    files.push({ url, path: fileURLToPath(url) });
  }
  const entry = entryText(files);
  // what decides the output besides the sources: this recipe (this file) and tsconfig.json
  const recipe = await Promise.all([fileURLToPath(import.meta.url), join(REPO_ROOT, 'tsconfig.json')].map((f) => readFile(f, 'utf8').catch(() => '')));
  const dir = join(cacheDir, sha256(JSON.stringify([FORMAT, entry, ...recipe])).slice(0, 24));
  const found = await validBundle(dir);
  if (found !== null) return { kind: 'bundle', url: pathToFileURL(found).href, built: false, ms: performance.now() - started };
  try {
    const path = await build(entry, dir);
    return { kind: 'bundle', url: pathToFileURL(path).href, built: true, ms: performance.now() - started };
  } catch (e) {
    return { kind: 'source', reason: `the worker bundle could not be built: ${(e as Error).message.split('\n')[0]}` };
  }
}

/**
 * The bundle's entry: every extension imported and handed to the registry under its URL, then the
 * worker's main loop (which only listens until the pool's first message, so the hand-over, after
 * the imports, comes first).
 */
function entryText(files: readonly { url: string; path: string }[]): string {
  const lines = [`import { preloadExtensionModules } from ${JSON.stringify(EXTENSIONS_MODULE)};`];
  files.forEach((f, i) => lines.push(`import * as extension${i} from ${JSON.stringify(f.path)};`));
  lines.push(`import ${JSON.stringify(MAIN)};`);
  lines.push(`preloadExtensionModules({ ${files.map((f, i) => `${JSON.stringify(f.url)}: extension${i}`).join(', ')} });`);
  return lines.join('\n') + '\n';
}

/** The bundle's path when `dir`'s manifest matches the sources as they are now, else null. */
async function validBundle(dir: string): Promise<string | null> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return null;
  }
  if (manifest.format !== FORMAT || typeof manifest.bundle !== 'string' || typeof manifest.inputs !== 'object') return null;
  const checks = Object.entries(manifest.inputs).map(async ([path, hash]) => sha256(await readFile(path)) === hash);
  checks.push(readFile(join(dir, manifest.bundle)).then((text) => `${sha256(text)}.mjs` === manifest.bundle));
  try {
    return (await Promise.all(checks)).every(Boolean) ? join(dir, manifest.bundle) : null;
  } catch {
    return null; // a source or the bundle is gone
  }
}

/**
 * The npm packages compiled into the bundle (with what they import): plain JavaScript that never
 * locates files beside itself. Loading them as packages was most of a bundled worker's start
 * (measured: apache-arrow ~0.2 s, inversify ~0.2 s, hyparquet ~0.05 s each in a fresh thread — many
 * small modules). Not here: parquet-wasm (reads its .wasm beside itself), @duckdb (a native addon);
 * a package missing from the list stays an import, which is correct, only slower to load.
 */
const BUNDLED_PACKAGES: ReadonlySet<string> = new Set(['apache-arrow', 'inversify', 'hyparquet', 'reflect-metadata']);

/** `@scope/name` or `name` of a bare specifier. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function isInPackage(path: string): boolean {
  return /[\\/]node_modules[\\/]/.test(path);
}

/** The package.json of the package a file inside node_modules belongs to, else null. */
function packageJsonOf(path: string): string | null {
  const m = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(path);
  return m === null ? null : join(m[1]!, 'package.json');
}

const LOADERS: Readonly<Record<string, 'ts' | 'tsx' | 'js' | 'jsx'>> = { '.ts': 'ts', '.mts': 'ts', '.cts': 'ts', '.tsx': 'tsx', '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx' };

async function build(entry: string, dir: string): Promise<string> {
  const esbuild = await import('esbuild');
  const inputs: Record<string, string> = {};
  const out = join(dir, 'bundle.mjs');
  const result = await esbuild.build({
    stdin: { contents: entry, resolveDir: REPO_ROOT, sourcefile: 'joinlab-worker-entry.mjs', loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // class and function names survive the renaming of clashing top-level names (errors cross
    // threads by class name, core/parallel/errors.ts)
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    outfile: out,
    write: false,
    logLevel: 'silent',
    // a CommonJS extension's `require` of a package, kept as an import of the file (below)
    banner: { js: `import { createRequire as __joinlabCreateRequire } from 'node:module'; const require = __joinlabCreateRequire(import.meta.url);` },
    plugins: [
      {
        name: 'joinlab-worker-code',
        setup(b) {
          const SKIP = Symbol('resolving');
          // a package is compiled in when the list below names it, or when a package compiled in
          // imports it; any other stays an import, of the absolute file Node would load
          b.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.pluginData === SKIP || /^[A-Za-z]:[\\/]/.test(args.path)) return undefined;
            if (isBuiltin(args.path)) return { path: args.path, external: true };
            const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: SKIP });
            if (r.errors.length > 0) return { errors: r.errors };
            if (r.external) return { path: r.path, external: true };
            if (isInPackage(args.importer) || BUNDLED_PACKAGES.has(packageName(args.path))) return { path: r.path };
            return { path: args.kind === 'require-call' ? r.path : pathToFileURL(r.path).href, external: true };
          });
          // the sources: hashed as read, so the manifest names exactly what was compiled
          // (a package's files by its package.json, whose version changes with any upgrade)
          b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
            const pkg = packageJsonOf(args.path);
            if (pkg !== null) {
              if (!(pkg in inputs)) inputs[pkg] = sha256(await readFile(pkg));
              return undefined;
            }
            const text = await readFile(args.path, 'utf8');
            inputs[args.path] = sha256(text);
            // each module keeps its own URL (a file it locates beside itself is still found)
            const contents = text.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href));
            return { contents, loader: LOADERS[extname(args.path)] ?? 'js', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.mjs'));
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
  if (js === undefined || map === undefined) throw new Error('esbuild wrote no bundle');
  // names are content hashes (the bundle's last line names its map, so the map's is taken first)
  const mapName = `${sha256(map.text)}.map`;
  const text = js.text.replace(/\/\/# sourceMappingURL=bundle\.mjs\.map\s*$/, `//# sourceMappingURL=${mapName}\n`);
  const name = `${sha256(text)}.mjs`;
  await mkdir(dir, { recursive: true });
  // the map before the bundle, the bundle before the manifest: what a manifest names is in place
  await writeAtomic(join(dir, mapName), map.text);
  await writeAtomic(join(dir, name), text);
  const manifest: Manifest = { format: FORMAT, bundle: name, inputs };
  await writeAtomic(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return join(dir, name);
}

/** `text` into `path` through a temporary file renamed into place (over a damaged file of the same name too). */
async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  trackTempPath(tmp);
  try {
    await writeFile(tmp, text);
    await rename(tmp, path);
  } finally {
    untrackTempPath(tmp);
    await rm(tmp, { force: true });
  }
}
