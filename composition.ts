/**
 * The composition root: the one place that knows every built-in part of joinlab and wires them
 * into the core engine — the join algorithms, hash-map layouts and pushdown policies (loaded by
 * module specifier, through exactly the path a configured `extensions: [...]` entry takes), the
 * input opener for Arrow tables and Parquet / Arrow IPC / CSV files (`adapters/io/open.ts`), the
 * operators that are not joins (sort, aggregate) and the SQL path (`adapters/sql/run.ts`).
 *
 * `Engine` here is joinlab's one public engine: `index.ts` exports it, and the apps (the CLI, the
 * experiment, workload and sqllogictest runners in apps/), the benchmarks and library users create
 * engines through it. Core itself (core/engine.ts, `CoreEngine`) names no operator, strategy or
 * file format. The layers sit core < strategies, operators < adapters < this root < apps < bench.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { Table } from 'apache-arrow';
import { openScan } from './adapters/io/open.ts';
import { runSql, type RunSqlOptions, type SqlResult } from './adapters/sql/run.ts';
import { heldBatchBytes } from './core/arrow/size.ts';
import { AGGREGATE_SPEC_ARGUMENT, checkArgument, checkInput, checkOptions, checkTables, describeValue, JOIN_SPEC_ARGUMENT, SORT_KEYS_ARGUMENT } from './core/arguments.ts';
import { EngineClosedError, InvalidArgumentError } from './core/errors.ts';
import { resolveConfig as resolveCoreConfig, type LoadConfigOptions } from './core/config/load.ts';
import type { Config, ConfigSchema } from './core/config/schema.ts';
import type { JoinSpecInput } from './core/spec.ts';
import type { JoinSpec } from './core/types.ts';
import { CoreEngine, type EngineOptions, type EngineRuntime, type JoinInput, type JoinResult, type JoinStream, type MemoryMetrics } from './core/engine.ts';
import { MemoryPool } from './core/memory/pool.ts';
import { chooseWorkers, threadsDetail } from './core/parallel/threshold.ts';
import { estimatedRows } from './core/scan/scan.ts';
import { SpillManager } from './core/memory/spill.ts';
import type { ScanMetrics } from './core/metrics.ts';
import type { AggregateSpec } from './core/aggregate.ts';
import { hashAggregate } from './operators/aggregate/hash-aggregate.ts';
import { ParallelSort } from './operators/sort/parallel.ts';
import { bindSort, newSortMetrics, parseSortKeys, sortScan, type SortKey, type SortMetrics } from './operators/sort/sort.ts';

/** The built-in extensions, in load order. */
export const BUILTIN_EXTENSIONS: readonly string[] = [
  new URL('./operators/extension.ts', import.meta.url).href,
  new URL('./strategies/hashmap/extension.ts', import.meta.url).href,
  new URL('./strategies/pushdown/extension.ts', import.meta.url).href,
  new URL('./strategies/pushdown/engines/extension.ts', import.meta.url).href,
  new URL('./strategies/smj-existence/extension.ts', import.meta.url).href,
  new URL('./strategies/pwmj-search/extension.ts', import.meta.url).href,
  new URL('./strategies/sip/extension.ts', import.meta.url).href,
  new URL('./adapters/io/extension.ts', import.meta.url).href,
];

/** Built-in extensions plus Arrow tables, `.parquet`/`.pq`, `.arrow`/`.ipc`/`.feather` and `.csv` inputs. */
export const BUILTINS: EngineRuntime = {
  extensions: BUILTIN_EXTENSIONS,
  openInput: (input, name, options) => openScan(input, name, { csv: { batchSize: options?.batchSize } }),
};

/**
 * `--config FILE` + `--set k=v`… validated against core's keys plus the settings of the built-in
 * and the configured extensions (core/config/load.ts), and that union (`joinlab config` lists it).
 */
export function resolveConfig(options: Omit<LoadConfigOptions, 'extensions'> = {}): Promise<{ config: Config; schema: ConfigSchema }> {
  return resolveCoreConfig({ ...options, extensions: BUILTIN_EXTENSIONS });
}

/** `resolveConfig`'s configuration: what the CLI's commands run with. */
export async function loadConfig(options: Omit<LoadConfigOptions, 'extensions'> = {}): Promise<Config> {
  return (await resolveConfig(options)).config;
}

/** Sort keys: `"a desc nulls first, b"` (the CLI's `--by`) or the parsed list. */
export type SortKeysInput = string | readonly SortKey[];

/** What one sort run reports (`joinlab sort --json` prints it). */
export interface SortRunMetrics {
  rows: number;
  elapsedMs: number;
  config: Config;
  /** The sort keys, parsed (`formatSortKeys` gives their text form). */
  keys: readonly SortKey[];
  scan: ScanMetrics;
  /** Runs spilled and merged, bytes spilled, output batches (operators/sort/sort.ts). */
  sort: SortMetrics;
  memory: MemoryMetrics;
  /**
   * Where the sort ran: the workers' count when its runs were sorted on them (the merge runs on
   * the calling thread), `1`, or `1 (why)` when there were workers but the input is too small to
   * repay them (core/parallel/threshold.ts). `parallelSort` describes the runs when it ran on workers.
   */
  threads: string;
  parallelSort?: string;
}

export interface SortStream {
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
  /** Filled while `batches` is consumed; final once it is exhausted. */
  readonly metrics: SortRunMetrics;
  /** The run's memory pool (a consumer that keeps batches reserves them here). */
  readonly pool: MemoryPool;
}

export interface SortResult {
  readonly table: Table;
  readonly metrics: SortRunMetrics;
}

/** What one `Engine.aggregate` run reports. */
export interface AggregateRunMetrics {
  /** Input rows read. */
  rows: number;
  /** Groups (output rows). */
  groups: number;
  elapsedMs: number;
  /** The run's memory pool's peak (the aggregate's table and states, its output). */
  peakReservedBytes: number;
}

export interface AggregateResult {
  readonly table: Table;
  readonly metrics: AggregateRunMetrics;
}

/** The V8 heap is checked on every 16th output batch, as `Engine.stream` does. */
const HEAP_CHECK_MASK = 15;

/**
 * joinlab's engine: one validated config, the built-in extensions (`options.runtime` replaces
 * them) and the configured ones, and every operation a user or an app runs. Where each one's work
 * lives:
 *
 * - `join`, `stream` — a join of two inputs: core's runtime (core/engine.ts, `CoreEngine`) binds
 *   the spec, resolves the configured algorithm or planner (operators/, through the registry) and
 *   passes the output on; the pushdown policies and hash maps it uses are strategies/.
 * - `sort`, `sortStream` — the sort operator (operators/sort/), in memory or spilled and merged,
 *   on worker threads when they repay it; wired here.
 * - `aggregate` — the hash aggregate (operators/aggregate/); wired here.
 * - `sql` — a SELECT parsed by DuckDB and bound, planned and run on joinlab's operators by the SQL
 *   adapter (adapters/sql/run.ts), which calls back into this engine's `stream` and `sort` through
 *   its `SqlEngine` interface: adapters/ never import this root.
 * - inputs that are not already scans (Arrow tables; Parquet, Arrow IPC and CSV files) are opened
 *   by adapters/io/open.ts, the runtime's `openInput` (`BUILTINS`).
 *
 * `with`, `bind`, `choose`, `algorithm` and `workers` are core's, unchanged.
 *
 * Arguments: every call checks its arguments' shapes first (core/arguments.ts) and throws an
 * `InvalidArgumentError` naming the bad one (`left`, `keys[0].descending`, `tables.orders`).
 * `close()` ends the engine: its worker threads stop and every later call throws
 * `EngineClosedError`.
 */
export class Engine extends CoreEngine {
  #closed = false;

  static override create(config: unknown = {}, options: EngineOptions = {}): Promise<Engine> {
    return super.create(config, { runtime: BUILTINS, ...options }) as Promise<Engine>;
  }

  /** The same engine (same runtime) with some config keys changed (e.g. one experiment variant). */
  override async with(overrides: Record<string, unknown>, options: EngineOptions = {}): Promise<Engine> {
    this.#open('with');
    return super.with(overrides, options) as Promise<Engine>;
  }

  /**
   * The join's output as a stream of batches, with its metrics (core/engine.ts). `options.pool`:
   * run against this pool instead of a new one — several operators of one query (a SQL join tree)
   * then share one `memoryLimit`.
   */
  override async stream(spec: JoinSpec | JoinSpecInput, left: JoinInput, right: JoinInput, options: { signal?: AbortSignal; pool?: MemoryPool; algorithm?: string } = {}): Promise<JoinStream> {
    this.#open('stream');
    checkJoinArguments(spec, left, right, options);
    const algorithm = (options as { algorithm?: unknown } | undefined)?.algorithm;
    if (algorithm !== undefined && typeof algorithm !== 'string') throw new InvalidArgumentError('options.algorithm', `expected a join algorithm name, got ${describeValue(algorithm)}`);
    return super.stream(spec, left, right, options);
  }

  /** `stream` collected into a table, which counts against `memoryLimit` (core/engine.ts). */
  override async join(spec: JoinSpec | JoinSpecInput, left: JoinInput, right: JoinInput, options: { signal?: AbortSignal } = {}): Promise<JoinResult> {
    this.#open('join');
    checkJoinArguments(spec, left, right, options);
    return super.join(spec, left, right, options);
  }

  /**
   * Ends the engine: it lets go of its worker pool, whose threads stop when no other engine holds
   * it (core/parallel/worker-pool.ts; pools are shared by the engines of one shape in a process, so
   * closing one engine never cancels another's parallel query), and every later call throws
   * `EngineClosedError`. Idempotent; a closed engine holds nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.releaseWorkers();
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.#closed;
  }

  #open(method: string): void {
    if (this.#closed) throw new EngineClosedError(method);
  }

  /**
   * The rows of `input` ordered by `keys`, as a stream of `batchSize` batches (config). Under
   * `memoryLimit` the sort spills sorted runs and merges them (operators/sort/sort.ts), so the
   * stream can be far larger than the limit; its spill directory is removed when the stream ends,
   * fails or is stopped. Keys are checked against the input's schema before any row is read. With
   * `threads` > 1 the runs are sorted on the worker threads (operators/sort/parallel.ts) and merged
   * here, in input order: the same rows in the same order as on one thread.
   */
  async sortStream(input: JoinInput, keys: SortKeysInput, options: { signal?: AbortSignal; pool?: MemoryPool } = {}): Promise<SortStream> {
    this.#open('sortStream');
    checkSortArguments(input, keys, options);
    const scan = await this.openInput(input, 'input');
    const sortKeys = typeof keys === 'string' ? parseSortKeys(keys) : keys;
    bindSort(scan.schema, sortKeys, scan.source);
    const pool = options.pool ?? MemoryPool.forRun(this.config.memoryLimit);
    const batchSize = this.config.batchSize;
    const sort = newSortMetrics();
    const metrics: SortRunMetrics = {
      rows: 0,
      elapsedMs: 0,
      config: this.config,
      keys: sortKeys,
      scan: scan.metrics,
      sort,
      memory: { limit: pool.limit, limitSource: pool.limitSource ?? 'memoryLimit', peakReservedBytes: 0 },
      threads: '1',
    };
    // on the worker threads when there are some and the input is large enough to repay them
    // (the joins' rule, core/parallel/threshold.ts)
    const workers = this.workers();
    const choice = chooseWorkers(workers, estimatedRows(scan), this.config, 'input');
    metrics.threads = threadsDetail(workers, choice);
    const onWorkers = choice.pool;
    async function* run(): AsyncIterable<RecordBatch> {
      const started = performance.now();
      const spill = new SpillManager();
      // the batch between the sort and the consumer, as in Engine.stream
      const inFlight = pool.reservation('sort output batch');
      const sortOptions = { pool, batchSize, signal: options.signal, metrics: sort, spill };
      const parallel = onWorkers === null ? null : new ParallelSort(scan, sortKeys, { ...sortOptions, workers: onWorkers });
      try {
        for await (const b of parallel?.batches() ?? sortScan(scan, sortKeys, sortOptions)) {
          inFlight.resize(heldBatchBytes(b));
          if ((sort.outputBatches & HEAP_CHECK_MASK) === 0) pool.checkHeap('sort output');
          metrics.rows += b.numRows;
          yield b;
        }
      } finally {
        inFlight.free();
        if (parallel !== null) {
          await parallel.close(); // a consumer that stopped early: the runs still held, the session
          metrics.parallelSort = parallel.describe();
        }
        metrics.elapsedMs = performance.now() - started;
        metrics.memory.peakReservedBytes = pool.peak;
        await spill.close();
      }
    }
    return { schema: scan.schema, batches: run(), metrics, pool };
  }

  /**
   * GROUP BY / aggregates / SELECT DISTINCT over `input` with the hash aggregate
   * (operators/aggregate/hash-aggregate.ts): the spec is checked against the input's schema before
   * any row is read; output batches of `batchSize` rows (config), groups in first-appearance order.
   */
  async aggregate(input: JoinInput, spec: AggregateSpec, options: { signal?: AbortSignal } = {}): Promise<AggregateResult> {
    this.#open('aggregate');
    checkInput(input, 'input');
    checkArgument(AGGREGATE_SPEC_ARGUMENT, spec, 'spec');
    checkOptions(options);
    const started = performance.now();
    const scan = await this.openInput(input, 'input');
    const pool = MemoryPool.forRun(this.config.memoryLimit);
    const wanted = [...new Set([...spec.groupBy, ...spec.aggregates.flatMap((a) => (a.column === null ? [] : [a.column]))])];
    const present = new Set(scan.schema.fields.map((f) => f.name));
    // read only the columns the aggregate needs (a missing one is the aggregate's error to report;
    // count(*) alone still reads one column, for the row counts)
    const first = scan.schema.fields[0]?.name;
    const columns = !wanted.every((c) => present.has(c)) ? undefined : wanted.length > 0 ? wanted : first === undefined ? undefined : [first];
    const metrics: AggregateRunMetrics = { rows: 0, groups: 0, elapsedMs: 0, peakReservedBytes: 0 };
    async function* counted(): AsyncIterable<RecordBatch> {
      for await (const b of scan.batches({ columns, signal: options.signal })) {
        metrics.rows += b.numRows;
        yield b;
      }
    }
    const table = await hashAggregate(counted(), scan.schema, spec, { pool, signal: options.signal, batchSize: this.config.batchSize });
    metrics.groups = table.numRows;
    metrics.elapsedMs = performance.now() - started;
    metrics.peakReservedBytes = pool.peak;
    return { table, metrics };
  }

  /**
   * Runs a SELECT over `tables` (name -> Arrow table, Parquet / Arrow file path, or scan) on
   * joinlab's operators: DuckDB parses (`options.duck`, else an in-memory one per call), joinlab
   * binds and plans (adapters/sql/run.ts). The result has the table, every join's metrics, every
   * table scan's metrics with the filters published into it, and the plan as a tree.
   */
  async sql(text: string, tables: Readonly<Record<string, JoinInput>>, options: RunSqlOptions = {}): Promise<SqlResult> {
    this.#open('sql');
    if (typeof text !== 'string' || text.trim() === '') throw new InvalidArgumentError('text', `expected the SQL text of a SELECT, got ${describeValue(text)}`);
    checkTables(tables);
    checkOptions(options);
    return runSql(this, text, tables, options);
  }

  /** `sortStream` collected into a table (which counts against `memoryLimit`, like `join`'s). */
  async sort(input: JoinInput, keys: SortKeysInput, options: { signal?: AbortSignal; pool?: MemoryPool } = {}): Promise<SortResult> {
    this.#open('sort');
    const s = await this.sortStream(input, keys, options);
    const batches: RecordBatch[] = [];
    const held = s.pool.reservation('Engine.sort result table');
    for await (const b of s.batches) {
      held.grow(heldBatchBytes(b));
      batches.push(b);
    }
    s.metrics.memory.peakReservedBytes = s.pool.peak;
    return { table: new Table(s.schema, batches), metrics: s.metrics };
  }
}

function checkPool(options: unknown): void {
  const pool = (options as { pool?: unknown } | undefined)?.pool;
  if (pool !== undefined && !(pool instanceof MemoryPool)) throw new InvalidArgumentError('options.pool', `expected a MemoryPool, got ${describeValue(pool)}`);
}

function checkJoinArguments(spec: unknown, left: unknown, right: unknown, options: unknown): void {
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new InvalidArgumentError('spec', `expected a join spec such as { type: 'inner', on: 'a=b' }, got ${describeValue(spec)}`);
  checkArgument(JOIN_SPEC_ARGUMENT, spec, 'spec');
  checkInput(left, 'left');
  checkInput(right, 'right');
  checkOptions(options);
  checkPool(options);
}

function checkSortArguments(input: unknown, keys: unknown, options: unknown): void {
  checkInput(input, 'input');
  if (typeof keys !== 'string') {
    if (!Array.isArray(keys)) throw new InvalidArgumentError('keys', `expected sort keys as text ('a desc nulls first, b') or a list of { column, descending?, nullsFirst? }, got ${describeValue(keys)}`);
    checkArgument(SORT_KEYS_ARGUMENT, keys, 'keys');
  }
  checkOptions(options);
  checkPool(options);
}
