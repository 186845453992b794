/**
 * The core engine — the join runtime under the public `Engine` facade (composition.ts, exported
 * by index.ts): a validated configuration plus a registry with the built-in and configured
 * extensions loaded. It binds a join spec to its inputs, resolves the configured algorithm and
 * runs it, returning the output (as a stream or a table) and the metrics.
 *
 * The configured `join` may be a planning strategy (`auto`, the default: a `JoinAlgorithm` with
 * `choose`): then the algorithm it chooses for the bound join is the one checked and run
 * (core/join-planning.ts), the UnsupportedJoinError names it, and the metrics say
 * `algorithm: <chosen>, chosenBy: <planner>`.
 *
 * Every join the CLI, the runners and the SQL path run goes through here, so a library user gets
 * the same checks, errors and metrics as the command line. Users and apps never name this class:
 * they create the facade, which adds the sort, the aggregate and SQL and delegates joins here.
 *
 * Core names no operator, strategy or file format: what the engine can run and read comes from an
 * `EngineRuntime` — the extensions to load before the configured ones, and how to open an input
 * that is not already a `Scan` — handed in by the composition root (`composition.ts`, which
 * `index.ts` exports as `Engine`). A core engine created here without one loads nothing and accepts
 * only `Scan` inputs.
 *
 * Memory: each run gets one pool (`MemoryPool.forRun`: the configured limit, or the system budget),
 * or the caller's (`stream`'s `pool` option: one query's operators sharing one limit).
 * The operators reserve what they hold; the engine reserves the output batch in flight between the
 * operator and the consumer, and `join` the table it returns — so `stream` is bounded by the
 * operators' state, and `join` fails with a MemoryLimitError once the result outgrows the limit.
 *
 * Cancellation: with a `signal`, the loop that passes a join's output batches on gives the event
 * loop a turn at most every 20 ms (core/next-turn.ts) and then checks the signal. An operator that
 * turns one input batch into many output batches (a hash probe over a hot key) otherwise runs on
 * microtasks alone, and neither a timeout's timer nor the CLI's SIGINT / SIGTERM handler could run
 * until the whole join had finished. Every join of a SQL tree is such a stream, so this covers them
 * all; without a signal nothing changes.
 */
import { Table, type RecordBatch, type Schema } from 'apache-arrow';
import { heldBatchBytes } from './arrow/size.ts';
import { configuredExtensions, CORE_SCHEMA, parseConfig, type Config, type ConfigSchema } from './config/schema.ts';
import type { JoinAlgorithm, JoinContext } from './join-algorithm.ts';
import { chooseJoinAlgorithm, type JoinChoice } from './join-planning.ts';
import { MemoryPool } from './memory/pool.ts';
import { CANCEL_CHECK_MS, nextTurn, TurnClock } from './next-turn.ts';
import { SpillManager } from './memory/spill.ts';
import { newOperatorMetrics, type OperatorMetrics, type ScanMetrics } from './metrics.ts';
import { bindJoin, type BoundJoin } from './plan.ts';
import { UnsupportedJoinError, UsageError } from './errors.ts';
import { loadExtensions } from './registry/extensions.ts';
import { Registry } from './registry/registry.ts';
import { ALL_SLOTS, JOIN, SIP } from './registry/slots.ts';
import { toJoinSpec, type JoinSpecInput } from './spec.ts';
import type { JoinSpec } from './types.ts';
import { ProjectedScan } from './scan/projected-scan.ts';
import { WorkerPool } from './parallel/worker-pool.ts';
import type { Scan } from './scan/scan.ts';

/** A join input: an Arrow table, a file path (.parquet, .arrow), or an already opened scan. */
export type JoinInput = Table | string | Scan;

export interface JoinMetrics {
  rows: number;
  elapsedMs: number;
  /** The algorithm that ran the join (with `join: auto`, the one auto chose). */
  algorithm: string;
  /** The planning strategy `join` named that chose `algorithm` (`auto`), or null when `join` named it directly. */
  chosenBy: string | null;
  config: Config;
  scans: { left: ScanMetrics; right: ScanMetrics };
  operators: Record<string, OperatorMetrics>;
  memory: MemoryMetrics;
}

export interface JoinStream {
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
  /** Filled while `batches` is consumed; final once it is exhausted. */
  readonly metrics: JoinMetrics;
  /**
   * The run's memory pool: a consumer that keeps batches (a table, a writer's pending row group)
   * reserves them here, against the same limit as the operators.
   */
  readonly pool: MemoryPool;
}

/** The run's memory: the limit in force and the most that was reserved at once. */
export interface MemoryMetrics {
  /** Bytes (the configured `memoryLimit`, or the system budget when none is set). */
  limit: number;
  /** Where the limit comes from. */
  limitSource: string;
  peakReservedBytes: number;
}

export interface JoinResult {
  readonly table: Table;
  readonly metrics: JoinMetrics;
}

export interface EngineOptions {
  /** Directory relative extension paths resolve against (default: the working directory). */
  readonly baseDir?: string;
  /** The built-ins (default: none — only `Scan` inputs, only configured extensions). */
  readonly runtime?: EngineRuntime;
}

/** What the composition root wires into the engine. */
export interface EngineRuntime {
  /** Extension module specifiers loaded before the configured `extensions`, in order. */
  readonly extensions: readonly string[];
  /**
   * Turns a table or a file path into a scan (`name` is the side: 'left' or 'right'); `options`
   * carries the engine's `batchSize` for inputs decoded into batches of the opener's making (CSV).
   */
  openInput(input: Table | string, name: string, options?: { readonly batchSize?: number }): Promise<Scan>;
}

/** No built-ins: an engine that only runs configured extensions over `Scan` inputs. */
export const EMPTY_RUNTIME: EngineRuntime = {
  extensions: [],
  openInput(_input, name) {
    return Promise.reject(
      new UsageError(`the ${name} input is not a Scan and this engine has no input opener: create it through joinlab's index.ts, or pass EngineOptions.runtime`),
    );
  },
};

/** The V8 heap is checked on every 16th output batch (`outputBatches & HEAP_CHECK_MASK` = 0). */
const HEAP_CHECK_MASK = 15;

function isScan(x: JoinInput): x is Scan {
  return typeof x === 'object' && !(x instanceof Table) && typeof (x as Scan).batches === 'function';
}

export class CoreEngine {
  /** The worker pools this engine took (`workers()`), released by `releaseWorkers`. */
  readonly #heldPools = new Set<WorkerPool>();

  protected constructor(
    readonly config: Config,
    readonly registry: Registry,
    readonly runtime: EngineRuntime,
    /** Where the configured extensions' relative paths resolve (the worker threads load them too). */
    readonly baseDir: string = process.cwd(),
    /** The keys `config` was validated against: core's and every loaded extension's settings, with their owners. */
    readonly configSchema: ConfigSchema = CORE_SCHEMA,
  ) {}

  /**
   * The worker threads runs of this engine may use: null when `threads` is 1, else the process's
   * pool of `threads` workers loading this engine's extensions. Getting it starts nothing: an
   * operator starts its threads (`ready`, `open`) only for work that repays them
   * (core/parallel/threshold.ts), and a pool started once serves every later join and query.
   */
  /** Lets go of every worker pool this engine used (`WorkerPool.release`: the last holder's closes it). */
  protected async releaseWorkers(): Promise<void> {
    const pools = [...this.#heldPools];
    this.#heldPools.clear();
    await Promise.all(pools.map((p) => p.release(this)));
  }

  workers(): WorkerPool | null {
    if (this.config.threads <= 1) return null;
    const pool = WorkerPool.get(this.config.threads, [...this.runtime.extensions, ...this.config.extensions], this.baseDir, this.config['parallel.workerCode']).hold(this);
    this.#heldPools.add(pool);
    return pool;
  }

  /**
   * Loads the runtime's then the configured extensions, then validates `config` (nested or dotted
   * keys) against core's keys plus the settings those extensions declare (core/config/settings.ts).
   */
  static async create(config: unknown = {}, options: EngineOptions = {}): Promise<CoreEngine> {
    const configured = configuredExtensions(config);
    const runtime = options.runtime ?? EMPTY_RUNTIME;
    const registry = new Registry();
    for (const slot of ALL_SLOTS) registry.declareSlot(slot);
    await loadExtensions(registry, runtime.extensions);
    await loadExtensions(registry, configured, options.baseDir);
    const schema = CORE_SCHEMA.with(registry.settings());
    const parsed = parseConfig(config, schema);
    // `this`: a subclass (the composition root's Engine) gets an instance of itself
    const engine = new this(parsed, registry, runtime, options.baseDir ?? process.cwd(), schema);
    engine.algorithm(); // fail fast on an unknown `join`
    if (registry.names(SIP).length > 0) registry.resolve(SIP, parsed.sip); // and `sip`, where any is registered
    return engine;
  }

  /** The same engine (same runtime) with some config keys changed (e.g. one experiment variant). */
  async with(overrides: Record<string, unknown>, options: EngineOptions = {}): Promise<CoreEngine> {
    return (this.constructor as typeof CoreEngine).create({ ...this.config, ...overrides }, { runtime: this.runtime, baseDir: this.baseDir, ...options });
  }

  /** `input` as a scan: itself, or opened by the runtime (`name` names it in errors: 'left', 'right', 'input'). */
  protected openInput(input: JoinInput, name: string): Promise<Scan> {
    return isScan(input) ? Promise.resolve(input) : this.runtime.openInput(input, name, { batchSize: this.config.batchSize });
  }

  /** The strategy `join` names (the configured one by default): an algorithm, or a planner such as `auto`. */
  algorithm(name = this.config.join): JoinAlgorithm {
    return this.registry.resolve(JOIN, name);
  }

  /**
   * The algorithm that runs `join` under this config: the configured `join`, or the one it
   * chooses when it is a planner (`chosenBy` then names the planner). UnknownStrategyError when a
   * planner chooses an algorithm that is not registered.
   */
  choose(join: BoundJoin): JoinChoice {
    return chooseJoinAlgorithm(this.registry, this.config.join, join);
  }

  /** Checks a spec against two schemas and the algorithm that would run it, without reading data. */
  bind(spec: JoinSpec | JoinSpecInput, leftSchema: Schema, rightSchema: Schema): BoundJoin {
    return this.#check(spec, leftSchema, rightSchema).bound;
  }

  #check(spec: JoinSpec | JoinSpecInput, leftSchema: Schema, rightSchema: Schema, algorithm?: string): { bound: BoundJoin; choice: JoinChoice } {
    const bound = bindJoin(normalizeSpec(spec), leftSchema, rightSchema);
    const choice = algorithm === undefined ? this.choose(bound) : chooseJoinAlgorithm(this.registry, algorithm, bound);
    const reason = choice.algorithm.unsupportedReason(bound);
    if (reason) {
      const by = choice.chosenBy !== null ? ` (chosen by '${choice.chosenBy}')` : '';
      throw new UnsupportedJoinError(`join algorithm '${choice.algorithm.name}'${by} cannot run this join: ${reason}`);
    }
    return { bound, choice };
  }

  /**
   * `options.pool`: run against this pool instead of a new one — several operators of one query
   * (a SQL join tree) then share one `memoryLimit`, rather than each having the whole limit.
   * `options.algorithm`: run this join algorithm instead of config `join` (a SQL `ASOF JOIN` forces
   * `asof` for its own join only).
   */
  async stream(spec: JoinSpec | JoinSpecInput, left: JoinInput, right: JoinInput, options: { signal?: AbortSignal; pool?: MemoryPool; algorithm?: string } = {}): Promise<JoinStream> {
    const [leftInput, rightInput] = await Promise.all([this.openInput(left, 'left'), this.openInput(right, 'right')]);
    const checked = this.#check(spec, leftInput.schema, rightInput.schema, options.algorithm);
    const { algorithm, chosenBy } = checked.choice;
    let { bound } = checked;
    // A select list may leave input columns unread: the operators then see projected scans (and
    // a join bound to them, with the output names of the full inputs).
    const leftScan = projectTo(leftInput, bound.inputColumns.left);
    const rightScan = projectTo(rightInput, bound.inputColumns.right);
    if (leftScan !== leftInput || rightScan !== rightInput) bound = bindJoin(bound.spec, leftScan.schema, rightScan.schema, bound.output);
    const pool = options.pool ?? MemoryPool.forRun(this.config.memoryLimit);
    const opMetrics = newOperatorMetrics(algorithm.name);
    const spill = new SpillManager({ metrics: opMetrics });
    const operators: Record<string, OperatorMetrics> = { join: opMetrics };
    const metrics: JoinMetrics = {
      rows: 0,
      elapsedMs: 0,
      algorithm: algorithm.name,
      chosenBy,
      config: this.config,
      scans: { left: leftScan.metrics, right: rightScan.metrics },
      operators,
      memory: { limit: pool.limit, limitSource: pool.limitSource ?? 'memoryLimit', peakReservedBytes: 0 },
    };
    const ctx: JoinContext = { config: this.config, registry: this.registry, pool, spill, metrics: opMetrics, operators, signal: options.signal, workers: this.workers() };
    async function* run(): AsyncIterable<RecordBatch> {
      const started = performance.now();
      // the batch between the operator and the consumer: released when the consumer asks for
      // the next one (a consumer that keeps it reserves it itself)
      const inFlight = pool.reservation(`${algorithm.name} join output batch`);
      // the residual filter's node buffers count as they grow (core/expr/scratch.ts: evaluated in
      // smaller chunks of pairs when the pool refuses); freed when the run ends
      bound.filter?.scratch.attach(pool.reservation(`${algorithm.name} join filter scratch`));
      const signal = options.signal;
      const clock = signal !== undefined ? new TurnClock(CANCEL_CHECK_MS) : null;
      try {
        for await (const b of algorithm.execute(bound, { left: leftScan, right: rightScan }, ctx)) {
          if (clock?.due()) {
            await nextTurn();
            signal!.throwIfAborted();
          }
          inFlight.resize(heldBatchBytes(b));
          if ((opMetrics.outputBatches & HEAP_CHECK_MASK) === 0) pool.checkHeap(`${algorithm.name} join output`);
          metrics.rows += b.numRows;
          opMetrics.outputRows += b.numRows;
          opMetrics.outputBatches++;
          yield b;
        }
      } finally {
        inFlight.free();
        bound.filter?.scratch.detach();
        metrics.elapsedMs = performance.now() - started;
        opMetrics.peakReservedBytes = Math.max(opMetrics.peakReservedBytes, pool.peak);
        metrics.memory.peakReservedBytes = pool.peak;
        await spill.close();
      }
    }
    return { schema: bound.outputSchema, batches: run(), metrics, pool };
  }

  async join(spec: JoinSpec | JoinSpecInput, left: JoinInput, right: JoinInput, options: { signal?: AbortSignal } = {}): Promise<JoinResult> {
    const s = await this.stream(spec, left, right, options);
    const batches: RecordBatch[] = [];
    // the returned table is memory the run holds: it counts against the limit like the operators'
    const held = s.pool.reservation('Engine.join result table');
    for await (const b of s.batches) {
      held.grow(heldBatchBytes(b));
      batches.push(b);
    }
    s.metrics.memory.peakReservedBytes = s.pool.peak;
    return { table: new Table(s.schema, batches), metrics: s.metrics };
  }
}

/** `scan` restricted to `columns` when they are fewer than its own. */
function projectTo(scan: Scan, columns: readonly string[]): Scan {
  if (columns.length === scan.schema.fields.length) return scan;
  // a side nothing reads still has rows to count (a cross product): keep one column of it
  return new ProjectedScan(scan, columns.length > 0 ? columns : [scan.schema.fields[0]!.name]);
}

function normalizeSpec(spec: JoinSpec | JoinSpecInput): JoinSpec {
  return 'nullEquality' in spec ? spec : toJoinSpec(spec);
}
