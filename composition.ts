/**
 * The composition root: the one place that knows every built-in part of joinlab and wires them
 * into the core engine — the join algorithms, hash-map layouts and pushdown policies (loaded by
 * module specifier, through exactly the path a configured `extensions: [...]` entry takes), and
 * the input opener for Arrow tables and Parquet / Arrow IPC files (`adapters/io/open.ts`).
 *
 * `Engine` here is the core engine with these built-ins as its default runtime; `index.ts`
 * exports it, and the CLI, the experiment runner and the benchmarks create engines through it.
 * Core itself (core/engine.ts) names no operator, strategy or file format.
 */
import { openScan } from './adapters/io/open.ts';
import { Engine as CoreEngine, type EngineOptions, type EngineRuntime } from './core/engine.ts';

/** The built-in extensions, in load order. */
export const BUILTIN_EXTENSIONS: readonly string[] = [
  new URL('./operators/extension.ts', import.meta.url).href,
  new URL('./strategies/hashmap/extension.ts', import.meta.url).href,
  new URL('./strategies/pushdown/extension.ts', import.meta.url).href,
  new URL('./strategies/smj-existence/extension.ts', import.meta.url).href,
];

/** Built-in extensions plus Arrow tables, `.parquet`/`.pq` and `.arrow`/`.ipc`/`.feather` inputs. */
export const BUILTINS: EngineRuntime = {
  extensions: BUILTIN_EXTENSIONS,
  openInput: (input, name) => openScan(input, name),
};

/** The engine with the built-ins (`options.runtime` replaces them). */
export class Engine extends CoreEngine {
  static override create(config: unknown = {}, options: EngineOptions = {}): Promise<CoreEngine> {
    return CoreEngine.create(config, { runtime: BUILTINS, ...options });
  }
}
