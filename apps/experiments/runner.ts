/**
 * The experiment runner: one experiment file in, one directory of evidence out.
 *
 * Why it exists: a pushdown policy is only "better" relative to something — another policy, the
 * same policy without its bitmap, DuckDB — on the same files, measured the same way, with the
 * answer checked. So for every data set the runner generates (or finds) the Parquet files once,
 * runs every variant (`warmup` untimed runs, then `repeat` timed ones) through `Engine.join`,
 * checks the last answer against DuckDB's answer to the same SQL over the same files, times
 * DuckDB (at the experiment's `threads`, joinlab's too) on that SQL as the baseline, and writes `results.json` (everything measured,
 * the machine, the resolved configs), `report.html` and a copy of the experiment file.
 *
 * What a time is: the wall time of one `engine.join(spec, leftPath, rightPath)` call — opening
 * both files, reading footers, building, probing and materialising the result table — against
 * DuckDB's `CREATE TEMP TABLE … AS <join SQL>` over views on the same files (also materialised,
 * not just counted, so neither side can skip columns). The engine's own join time (without the
 * file opening) is kept as `joinMs`.
 *
 * How many timed runs: `repeat: N`, or with `repeat: auto` as many as it takes for the 95%
 * confidence interval of the median to get within `repeatAuto.precision` of it, up to `maxRuns`
 * runs or `budgetSeconds` of timed runs per variant (and join order) and data set — DuckDB's runs
 * too (stats.ts `repeatRuns`). Every time records its runs, its interval (stats.ts `runStats`) and
 * why the runs stopped. `machine` in results.json records, beside the hardware and versions, the
 * conditions of the run: os.loadavg() at the start and at the end, the glibc malloc settings
 * bin/tuned.mjs sets (or `not set`), and the thread counts (each variant's `threads`, DuckDB's
 * `threads` setting as the session reports it).
 *
 * The probe side is the side the hash join streams (the one its dynamic filter prunes): the
 * opposite of `details.build`. Algorithms without a build side (nested-loop) report the left side.
 * A variant whose algorithm cannot run the join (UnsupportedJoinError) or runs out of its
 * `memoryLimit` gets a row saying so; any other error stops the run.
 *
 * With `timeout: T` every run — one repetition (warm-up or timed) of one variant under one join
 * order, one DuckDB run, DuckDB's answer for the parity checks — is given T seconds: past them it
 * is aborted through the AbortSignal `Engine.sql` / `Engine.join` take (DuckDB's through its
 * interrupt), its row says `timeout` (status 'timeout', neither an error nor a crash), the other
 * runs of that variant and order are skipped (they would time out again) and the runner moves on.
 * A run that never gives the event loop a turn cannot be stopped sooner; one that finishes past T
 * counts as a timeout all the same. Without DuckDB's answer no variant of that data set is
 * checked (`parityUnchecked` says why) and DuckDB's timed runs are skipped. `options.signal` (an
 * interrupted process) aborts the run in progress the same way and stops the whole experiment.
 *
 * A `sql:` data set runs its query instead: every table (a file, or one table of a generated data
 * set, each data set generated once) becomes a DuckDB view (Parquet) or table (Arrow IPC) of the
 * same name, DuckDB's answer to the query as written is the parity reference and its `CREATE TEMP
 * TABLE … AS <query>` the baseline, and each variant runs `engine.sql(query, tables)` (time: the
 * whole call — DuckDB's parse, opening the files, every join, the projection). Its row sums the
 * query: `probe` is the sum of every table scan (`scans` lists them one by one), `joinMs` the sum
 * of the joins' own times, `peakReservedBytes` the largest join's, the dynamic filters those of
 * the joins in the order they ran. The query is parsed before any data is generated, so a syntax
 * error, or SQL the parser already refuses, fails fast (a ConfigError naming the `sql` key); SQL
 * that only binding refuses (UnsupportedSqlError from Engine.sql) is a row saying so.
 *
 * A `workload:` data set is a `sql:` one whose text is a query of SSB or TPC-H
 * (apps/workloads/) over every table of the workload at its scale factor, generated once per
 * run (cached across runs) in a DuckDB session of its own.
 *
 * With `orders: N` each variant runs a `sql:` / `workload:` query under `sql.joinOrder` cost and
 * random:1 … random:N — one engine per (variant, order), each order with its own warm-up,
 * repetitions and parity check — and its row is the cost order's run plus `orders` (every order's
 * time, output rows per join, parity) and `ordersSummary` (orders.ts; a timed-out order counts as
 * "more than the timeout"). Every variant with a time is then compared with the baseline variant
 * (compare.ts): per data set in words, and the geometric mean of the ratios over the data sets.
 *
 * A `sql:` / `workload:` variant's row also carries `sip`: what the information-passing strategy
 * did in each join tree of the query (`sipSummary`, docs/sip.md) — its transfers, the rows they
 * dropped, the bytes of their filters, and a note such as a cyclic query's fallback.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { arch, cpus, freemem, loadavg, platform, release, totalmem, type as osType } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { Table } from 'apache-arrow';
import { SingleBar } from 'cli-progress';
import type { Config } from '../../core/config/schema.ts';
import { Engine } from '../../composition.ts';
import { CancelledError, ConfigError, FileNotFoundError, MemoryLimitError, SqlSyntaxError, UnknownStrategyError, UnsupportedJoinError, UnsupportedSqlError } from '../../core/errors.ts';
import { scanCounters, type ScanMetrics } from '../../core/metrics.ts';
import { compareResults, formatComparison } from '../../adapters/duckdb/compare.ts';
import { joinToSql } from '../../adapters/duckdb/join-sql.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { assertOutputDirectory, writeFileAtomic } from '../../adapters/io/atomic.ts';
import { readTable } from '../../adapters/io/index.ts';
import { isParquetPath } from '../../adapters/io/parquet.ts';
import { parseSql } from '../../adapters/sql/parse.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';
import { sipSummary } from '../../adapters/sql/sip-run.ts';
import { duckdbVersion, generateData, generateTables, parquetInfo, type FileInfo, type GeneratedTables } from './generators.ts';
import { generateWorkload, type WorkloadDataSpec } from '../workloads/workloads.ts';
import { renderReport } from './report.ts';
import { sqlScans, sumScans } from './sql-scans.ts';
import { summarizeComparisons, withComparisons } from './compare.ts';
import { largestJoinRows, summarizeOrders } from './orders.ts';
import { maxRunsOf, median as medianOf, repeatRuns, repeatText, runStats, type RepeatOutcome, type RepeatPlan } from './stats.ts';
import type {
  RunStats,
  ScanSummary,
  ParityResult,
  ConfigJson,
  VariantResult,
  DuckDBBaseline,
  DatasetResult,
  MachineInfo,
  ExperimentResults,
  SqlDatasetResult,
  OrderRunResult,
} from './results.ts';
export type {
  RunStats,
  ScanSummary,
  ParityResult,
  ConfigJson,
  VariantResult,
  DuckDBBaseline,
  DatasetResult,
  JoinDatasetResult,
  SqlDatasetResult,
  TableScanSummary,
  MachineInfo,
  ExperimentResults,
} from './results.ts';
import { joinOrdersOf, loadExperiment, repeatPlanOf, type Dataset, type Experiment, type GeneratedDataSpec, type JoinDataset, type SqlDataset, type Variant } from './schema.ts';

export interface RunOptions {
  /** Output directory (default 'joinlab-report', relative to the working directory). */
  readonly out?: string;
  /** Progress bar on stderr: default when stderr is a TTY; true forces it, false hides it. */
  readonly progress?: boolean;
  /** Status lines ("generating star data …"); shown in the progress bar instead while it runs. */
  readonly log?: (line: string) => void;
  /** Cache root for generated data (default os.tmpdir()/joinlab-data). */
  readonly dataRoot?: string;
  /**
   * Stops the experiment (an interrupted process: `joinlab run` passes the CLI's): the run in
   * progress is aborted — joinlab's through its signal, DuckDB's interrupted — and
   * `runExperiment` rejects with the signal's reason; nothing is written.
   */
  readonly signal?: AbortSignal;
  /** `KEY=VALUE` config overrides applied to every variant (`joinlab run --set`; schema.ts). */
  readonly set?: readonly string[];
  /** Timed runs per variant instead of the file's `repeat` (`joinlab run --repeat N|auto`). */
  readonly repeat?: number | 'auto';
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** A variant's times: median, min, max, the runs, the 95% interval of the median (stats.ts `runStats`). */
export function stats(runs: readonly number[], outcome?: Pick<RepeatOutcome, 'stop' | 'relativeHalfWidth'>): RunStats {
  return runStats(runs, outcome);
}

function median(xs: readonly number[]): number {
  return Math.round(medianOf(xs) * 100) / 100;
}

/** What bounds every run: the experiment's `timeout` (seconds, or null) and the caller's signal. */
interface RunLimit {
  readonly timeoutS: number | null;
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs `run` with a signal that aborts after `limit.timeoutS` seconds or when `limit.signal` does
 * (`interrupt`, if given, is called then: DuckDB does not see signals). A run that fails after the
 * timer fired, or finishes after it, timed out; an abort of the caller's signal is rethrown (the
 * experiment stops), as is any other error.
 */
async function underLimit<R>(limit: RunLimit, run: (signal: AbortSignal | undefined) => Promise<R>, interrupt?: () => void): Promise<{ readonly value: R } | { readonly timedOut: true }> {
  const outer = limit.signal;
  outer?.throwIfAborted();
  if (limit.timeoutS === null && outer === undefined) return { value: await run(undefined) };
  const controller = new AbortController();
  if (interrupt) controller.signal.addEventListener('abort', interrupt, { once: true });
  const onOuter = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  let timedOut = false;
  const timer =
    limit.timeoutS === null
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new CancelledError(`timed out after ${limit.timeoutS} s`));
        }, limit.timeoutS * 1000);
  try {
    const value = await run(controller.signal);
    outer?.throwIfAborted();
    return timedOut ? { timedOut: true } : { value };
  } catch (e) {
    if (outer?.aborted) throw outer.reason;
    if (timedOut) return { timedOut: true };
    throw e;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
    if (interrupt) controller.signal.removeEventListener('abort', interrupt);
  }
}

/** Why a run is recorded as a timeout: `no answer within 5 s (run 2/3); its other runs skipped`. */
function timeoutReason(limit: RunLimit, which: string, skipped = 'its other runs skipped'): string {
  return `no answer within ${limit.timeoutS} s (${which})${skipped ? `; ${skipped}` : ''}`;
}

/** A scan's counters for the results (its time is the run's, recorded elsewhere). */
function scanSummary(m: ScanMetrics): ScanSummary {
  return scanCounters(m, ['elapsedMs']);
}

export function configJson(c: Config): ConfigJson {
  return { ...c, memoryLimit: Number.isFinite(c.memoryLimit) ? c.memoryLimit : 'unlimited' };
}

async function packageVersions(): Promise<{ joinlab: string; duckdbNodeApi: string }> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
      dependencies?: Record<string, string>;
    };
    return { joinlab: pkg.version ?? 'unknown', duckdbNodeApi: pkg.dependencies?.['@duckdb/node-api'] ?? 'unknown' };
  } catch {
    return { joinlab: 'unknown', duckdbNodeApi: 'unknown' };
  }
}

/** The malloc settings bin/tuned.mjs gives a child process, as found in this one's environment. */
export function allocatorSettings(env: NodeJS.ProcessEnv = process.env): NonNullable<MachineInfo['allocator']> {
  return { MALLOC_MMAP_THRESHOLD_: env.MALLOC_MMAP_THRESHOLD_ ?? 'not set', MALLOC_TRIM_THRESHOLD_: env.MALLOC_TRIM_THRESHOLD_ ?? 'not set' };
}

/** os.loadavg(), rounded to 0.01. */
export function loadAverage(): number[] {
  return loadavg().map((x) => Math.round(x * 100) / 100);
}

/**
 * The machine and the software an experiment ran on; with `joinlabThreads` (each variant's
 * `threads`) also the thread counts, DuckDB's read from the session; `loadStart`: os.loadavg() at
 * the start (the end's is filled in when the runs are done).
 */
export async function machineInfo(duck: DuckDBSession, joinlabThreads: Readonly<Record<string, number>> = {}, loadStart: number[] = loadAverage()): Promise<MachineInfo> {
  const cpuList = cpus();
  const versions = await packageVersions();
  const duckThreads = Number((await duck.queryRows(`SELECT current_setting('threads')`))[0]?.[0]);
  return {
    os: `${osType()} ${release()}`,
    platform: platform(),
    arch: arch(),
    cpus: cpuList.length,
    cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    freeMemoryBytes: freemem(),
    node: process.version,
    joinlab: versions.joinlab,
    duckdb: await duckdbVersion(duck),
    duckdbNodeApi: versions.duckdbNodeApi,
    loadAverage: { start: loadStart, end: loadStart },
    allocator: allocatorSettings(),
    threads: { joinlab: joinlabThreads, duckdb: duckThreads },
  };
}

/** Progress: a cli-progress bar on stderr, or plain log lines. */
class Progress {
  private bar: SingleBar | null = null;
  private value = 0;

  constructor(
    enabled: boolean,
    total: number,
    private readonly log: (line: string) => void,
  ) {
    if (!enabled) return;
    this.bar = new SingleBar({
      stream: process.stderr,
      format: ' {bar} {value}/{total} | {step}',
      barsize: 30,
      hideCursor: true,
      clearOnComplete: true,
      noTTYOutput: !process.stderr.isTTY,
      notTTYSchedule: 2000,
      etaBuffer: 20,
    });
    this.bar.start(total, 0, { step: 'starting' });
  }

  /** Shows `label` in the bar; without a bar logs `line` (default: the label; null: nothing). */
  step(label: string, line: string | null = label): void {
    if (this.bar) this.bar.update(this.value, { step: label });
    else if (line !== null) this.log(line);
  }

  advance(n = 1): void {
    this.value += n;
    this.bar?.update(this.value);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}

function stepsFor(exp: Experiment): number {
  // with `repeat: auto` the bar counts `maxRuns` per variant; one that stops sooner skips the rest
  const timed = maxRunsOf(repeatPlanOf(exp));
  const perRun = exp.warmup + timed + (exp.parity ? 1 : 0);
  const runs = (ds: Dataset) => (ds.kind === 'sql' ? Math.max(1, joinOrdersOf(exp).length) : 1);
  const perDataset = (ds: Dataset) => 1 + (exp.parity ? 1 : 0) + exp.variants.length * runs(ds) * perRun + (exp.duckdb ? exp.warmup + timed : 0);
  return exp.datasets.reduce((n, ds) => n + perDataset(ds), 0);
}

const LEFT_VIEW = 'left_input';
const RIGHT_VIEW = 'right_input';
const RESULT_TABLE = '__joinlab_experiment_result';

async function fileInfo(duck: DuckDBSession, path: string): Promise<FileInfo> {
  if (isParquetPath(path)) return parquetInfo(duck, path);
  const table = await readTable(path);
  const { size } = await stat(path);
  return { path, rows: table.numRows, rowGroups: table.batches.length, bytes: size };
}

/** Makes `name` a DuckDB view (Parquet) or table (Arrow IPC) over `path`; returns its columns. */
async function registerInput(duck: DuckDBSession, name: string, path: string): Promise<string[]> {
  if (isParquetPath(path)) await duck.createViewOnParquet(name, path);
  else await duck.loadTable(name, await readTable(path));
  const rows = await duck.queryRows(`SELECT column_name FROM (DESCRIBE "${name}")`);
  return rows.map((r) => String(r[0]));
}

/** A variant's engine, and with `orders` one per join order (`joinOrdersOf`, the same order). */
interface VariantEngines {
  readonly engine: Engine;
  readonly orders: readonly { readonly order: string; readonly engine: Engine }[];
}

/** Creates every variant's engine(s) before any data is generated: a bad strategy name fails fast. */
async function createEngines(exp: Experiment): Promise<VariantEngines[]> {
  const engines: VariantEngines[] = [];
  for (const [i, v] of exp.variants.entries()) {
    try {
      // experiments measure warm runs: at threads > 1 the warm-up starts the worker pool whatever the
      // data's size (parallel.minStartRows 0 unless the experiment sets it; core/parallel/threshold.ts)
      const warm = exp.threads > 1 && !('parallel.minStartRows' in v.config) ? { 'parallel.minStartRows': 0 } : {};
      const engine = await Engine.create({ ...warm, ...v.config }, { baseDir: exp.baseDir });
      const orders = [];
      // the schema refuses sql.joinOrder in a config beside `orders`, so `cost` is the variant's own engine
      for (const order of joinOrdersOf(exp)) {
        orders.push({ order, engine: order === v.config['sql.joinOrder'] ? engine : await Engine.create({ ...warm, ...v.config, 'sql.joinOrder': order }, { baseDir: exp.baseDir }) });
      }
      engines.push({ engine, orders });
    } catch (e) {
      if (e instanceof UnknownStrategyError) {
        const key = `variants[${i}].config.${e.slot}`;
        throw new ConfigError(`experiment ${exp.source}: ${key}: ${e.message} (variant '${v.name}')`, key);
      }
      if (e instanceof ConfigError) {
        const key = `variants[${i}].config${e.key ? `.${e.key}` : ''}`;
        throw new ConfigError(`experiment ${exp.source}: ${key}: ${e.message} (variant '${v.name}')`, key);
      }
      throw e;
    }
  }
  return engines;
}

function parityOf(actual: Table, expected: Table): ParityResult {
  const c = compareResults(actual, expected, { maxReported: 5 });
  return {
    ...(c.equal ? {} : { detail: formatComparison(c) }),
    equal: c.equal,
    missing: c.missingCount,
    extra: c.extraCount,
    actualRows: c.actualRows,
    expectedRows: c.expectedRows,
    schemaProblems: c.schemaProblems,
  };
}

function variantBase(variant: Variant) {
  return { name: variant.name, overrides: variant.overrides, config: configJson(variant.config), parity: null, ratio: null };
}

/** `run 2/3`, or with `repeat: auto` `run 2 (of at most 30)`. */
function runLabel(plan: RepeatPlan, i: number): string {
  return plan.kind === 'fixed' ? `run ${i + 1}/${plan.runs}` : `run ${i + 1} (of at most ${plan.maxRuns})`;
}

/**
 * `exp.warmup` untimed then the timed runs of `run` (`repeat: N`, or `repeat: auto` until the
 * interval is narrow: stats.ts `repeatRuns`): the wall times, the engine's own times (`engineMs` of
 * each result), why the runs stopped and the last result; or the row of a variant that cannot run.
 */
async function timedRuns<R>(
  exp: Experiment,
  ds: Dataset,
  variant: Variant,
  progress: Progress,
  limit: RunLimit,
  run: (signal: AbortSignal | undefined) => Promise<R>,
  engineMs: (r: R) => number,
  order?: string,
): Promise<{ last: R; wall: number[]; engine: number[]; outcome: RepeatOutcome } | VariantResult> {
  const who = order === undefined ? variant.name : `${variant.name} [${order}]`;
  const plan = repeatPlanOf(exp);
  const runSteps = exp.warmup + maxRunsOf(plan);
  const steps = runSteps + (exp.parity ? 1 : 0);
  const first = `${ds.name}: ${who} (${exp.warmup} warm-up + ${repeatText(plan)})`;
  const engine: number[] = [];
  let last: R | null = null;
  let done = 0;
  let timedOut: string | null = null;
  const timeoutRow = (reason: string): VariantResult => {
    progress.advance(steps - done);
    return { ...variantBase(variant), status: 'timeout', reason };
  };
  let outcome: RepeatOutcome;
  try {
    for (let r = 0; r < exp.warmup; r++) {
      progress.step(`${ds.name}: ${who} warmup ${r + 1}/${exp.warmup}`, r === 0 ? first : null);
      last = null; // let the previous result go before the next run
      const out = await underLimit(limit, run);
      if ('timedOut' in out) return timeoutRow(timeoutReason(limit, `warm-up ${r + 1}/${exp.warmup}`));
      last = out.value;
      progress.advance();
      done++;
    }
    outcome = await repeatRuns(plan, async (i) => {
      progress.step(`${ds.name}: ${who} ${runLabel(plan, i)}`, exp.warmup === 0 && i === 0 ? first : null);
      last = null;
      const t0 = performance.now();
      const out = await underLimit(limit, run);
      const t1 = performance.now();
      if ('timedOut' in out) {
        const final = plan.kind === 'fixed' && i === plan.runs - 1;
        timedOut = timeoutReason(limit, runLabel(plan, i), final ? '' : 'its other runs skipped');
        return undefined;
      }
      engine.push(engineMs(out.value));
      last = out.value;
      progress.advance();
      done++;
      return t1 - t0;
    });
  } catch (e) {
    progress.advance(steps - done);
    const base = variantBase(variant);
    if (e instanceof UnsupportedJoinError || e instanceof UnsupportedSqlError) return { ...base, status: 'unsupported', reason: e.message };
    if (e instanceof MemoryLimitError) return { ...base, status: 'failed', reason: e.message };
    throw e;
  }
  if (timedOut !== null) return timeoutRow(timedOut);
  progress.advance(runSteps - done); // `repeat: auto` stopped before maxRuns
  return { last: last!, wall: outcome.runsMs, engine, outcome };
}

async function runVariant(
  exp: Experiment,
  ds: JoinDataset,
  variant: Variant,
  engine: Engine,
  files: { left: string; right: string },
  expected: Table | null,
  progress: Progress,
  limit: RunLimit,
): Promise<VariantResult> {
  const base = variantBase(variant);
  const runs = await timedRuns(exp, ds, variant, progress, limit, (signal) => engine.join(ds.spec, files.left, files.right, { signal }), (r) => r.metrics.elapsedMs);
  if (!('last' in runs)) return runs;
  const { wall, engine: joinMs } = runs;
  const { table, metrics } = runs.last;
  const op = metrics.operators.join;
  const build = op?.details.build;
  const probeSide: 'left' | 'right' = build === 'left' ? 'right' : 'left';
  const buildSide: 'left' | 'right' = probeSide === 'left' ? 'right' : 'left';
  let parity: ParityResult | null = null;
  if (expected) {
    progress.step(`${ds.name}: ${variant.name} parity check`, null);
    parity = parityOf(table, expected);
    progress.advance();
  }
  return {
    ...base,
    status: 'ok',
    algorithm: metrics.algorithm,
    ...(metrics.chosenBy !== null ? { chosenBy: metrics.chosenBy } : {}),
    time: stats(wall, runs.outcome),
    joinMs: median(joinMs),
    rows: metrics.rows,
    probeSide,
    probe: scanSummary(metrics.scans[probeSide]),
    build: scanSummary(metrics.scans[buildSide]),
    peakReservedBytes: op?.peakReservedBytes ?? 0,
    dynamicFilter: op?.details.dynamicFilter,
    dynamicFilterLabel: op?.details.dynamicFilterLabel,
    details: { ...(op?.details ?? {}) },
    counters: { ...(op?.counters ?? {}) },
    parity,
  };
}

/** One variant of a `sql:` data set: `engine.sql(query, tables)`, its row summed over the query's joins and scans. */
async function runSqlVariant(
  exp: Experiment,
  ds: SqlDataset,
  variant: Variant,
  engine: Engine,
  tables: Readonly<Record<string, string>>,
  expected: Table | null,
  progress: Progress,
  limit: RunLimit,
  order?: string,
): Promise<VariantResult> {
  const base = variantBase(variant);
  const joinsMs = (r: SqlResult) => r.joins.reduce((s, j) => s + j.elapsedMs, 0);
  const runs = await timedRuns(exp, ds, variant, progress, limit, (signal) => engine.sql(ds.sql, tables, { signal }), joinsMs, order);
  if (!('last' in runs)) return runs;
  const result = runs.last;
  const scans = sqlScans(result);
  const ops = result.joins.map((j) => j.operators.join);
  const details: Record<string, string> = {};
  const counters: Record<string, number> = {};
  ops.forEach((op, i) => {
    for (const [k, v] of Object.entries(op?.details ?? {})) details[`join${i + 1}.${k}`] = v;
    for (const [k, v] of Object.entries(op?.counters ?? {})) counters[k] = (counters[k] ?? 0) + v;
  });
  const filters = (pick: (d: Record<string, string>) => string | undefined) =>
    ops.length === 0 || ops.every((op) => pick(op?.details ?? {}) === undefined) ? undefined : ops.map((op) => pick(op?.details ?? {}) ?? '-').join(' ; ');
  let parity: ParityResult | null = null;
  if (expected) {
    progress.step(`${ds.name}: ${variant.name}${order === undefined ? '' : ` [${order}]`} parity check`, null);
    parity = parityOf(result.table, expected);
    progress.advance();
  }
  const joinRows = result.joins.map((j) => j.rows);
  const chosenBy = result.joins.find((j) => j.chosenBy !== null)?.chosenBy;
  // under a sip strategy that turns the joins' own filters off (none, lip, transfer, yannakakis)
  // the joins still build them: say so, or the column reads as if they had filtered the scans
  const gated = result.sip.length > 0 && result.sip.every((s) => !s.joinFilters) ? ' (built, not applied)' : '';
  const dynamicFilter = filters((d) => (d.dynamicFilter === undefined ? undefined : `${d.dynamicFilter}${gated}`));
  const dynamicFilterLabel = filters((d) => {
    const label = d.dynamicFilterLabel ?? d.dynamicFilter;
    return label === undefined ? undefined : `${label}${gated}`;
  });
  return {
    ...base,
    status: 'ok',
    algorithm: [...new Set(result.joins.map((j) => j.algorithm))].join(', ') || 'scan',
    ...(chosenBy ? { chosenBy } : {}),
    time: stats(runs.wall, runs.outcome),
    joinMs: median(runs.engine),
    rows: result.table.numRows,
    probe: scanSummary(sumScans(scans)),
    peakReservedBytes: Math.max(0, ...ops.map((op) => op?.peakReservedBytes ?? 0)),
    ...(dynamicFilter !== undefined ? { dynamicFilter } : {}),
    ...(dynamicFilterLabel !== undefined ? { dynamicFilterLabel } : {}),
    details,
    counters,
    scans: scans.map((s) => ({ table: s.table, alias: s.alias, filters: s.filters, scan: scanSummary(s.metrics) })),
    joins: result.joins.length,
    joinRows,
    largestJoinRows: largestJoinRows(joinRows),
    sip: result.sip.map(sipSummary),
    parity,
  };
}

/**
 * One variant of a `sql:` data set under every join order of `orders: N` (cost first): its row is
 * the cost order's, with every order's run under `orders` and their summary.
 */
async function runSqlVariantOrders(
  exp: Experiment,
  ds: SqlDataset,
  variant: Variant,
  engines: VariantEngines,
  tables: Readonly<Record<string, string>>,
  expected: Table | null,
  progress: Progress,
  limit: RunLimit,
): Promise<VariantResult> {
  const runs: { order: string; result: VariantResult }[] = [];
  for (const { order, engine } of engines.orders) runs.push({ order, result: await runSqlVariant(exp, ds, variant, engine, tables, expected, progress, limit, order) });
  const orders: OrderRunResult[] = runs.map(({ order, result: r }) => ({
    order,
    status: r.status,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.time !== undefined ? { time: r.time, joinMs: r.joinMs, rows: r.rows, joins: r.joins, joinRows: r.joinRows, largestJoinRows: r.largestJoinRows } : {}),
    parity: r.parity,
  }));
  return { ...runs[0]!.result, orders, ordersSummary: summarizeOrders(orders, exp.timeout === null ? null : exp.timeout * 1000) };
}

/**
 * DuckDB's timed runs of `sql`; `noAnswer` (its answer for the parity checks timed out) skips them,
 * as one that times out skips the rest: the baseline is then a timeout.
 */
async function runDuckDB(exp: Experiment, duck: DuckDBSession, sql: string, ds: Dataset, progress: Progress, limit: RunLimit, noAnswer: string | null): Promise<DuckDBBaseline> {
  const plan = repeatPlanOf(exp);
  const total = exp.warmup + maxRunsOf(plan);
  if (noAnswer !== null) {
    progress.advance(total);
    return { name: 'duckdb', threads: exp.threads, status: 'timeout', reason: noAnswer };
  }
  const first = `${ds.name}: duckdb, threads=${exp.threads} (${exp.warmup} warm-up + ${repeatText(plan)})`;
  const once = () => underLimit(limit, () => duck.run(`CREATE OR REPLACE TEMP TABLE ${RESULT_TABLE} AS ${sql}`), () => duck.interrupt());
  let done = 0;
  let timedOut: string | null = null;
  for (let r = 0; r < exp.warmup && timedOut === null; r++) {
    progress.step(`${ds.name}: duckdb warmup ${r + 1}/${exp.warmup}`, r === 0 ? first : null);
    if ('timedOut' in (await once())) timedOut = timeoutReason(limit, `warm-up ${r + 1}/${exp.warmup}`);
    else {
      progress.advance();
      done++;
    }
  }
  const outcome =
    timedOut !== null
      ? null
      : await repeatRuns(plan, async (i) => {
          progress.step(`${ds.name}: duckdb ${runLabel(plan, i)}`, exp.warmup === 0 && i === 0 ? first : null);
          const t0 = performance.now();
          const out = await once();
          const t1 = performance.now();
          if ('timedOut' in out) {
            const final = plan.kind === 'fixed' && i === plan.runs - 1;
            timedOut = timeoutReason(limit, runLabel(plan, i), final ? '' : 'its other runs skipped');
            return undefined;
          }
          progress.advance();
          done++;
          return t1 - t0;
        });
  progress.advance(total - done);
  if (outcome === null || timedOut !== null) {
    await duck.run(`DROP TABLE IF EXISTS ${RESULT_TABLE}`);
    return { name: 'duckdb', threads: exp.threads, status: 'timeout', reason: timedOut ?? '' };
  }
  const rows = Number((await duck.queryRows(`SELECT count(*) FROM ${RESULT_TABLE}`))[0]![0]);
  await duck.run(`DROP TABLE IF EXISTS ${RESULT_TABLE}`);
  return { name: 'duckdb', threads: exp.threads, status: 'ok', time: stats(outcome.runsMs, outcome), rows };
}

/**
 * DuckDB's answer to `sql`, the reference of the parity checks: the table, or why there is none
 * (it did not come within the timeout).
 */
async function duckdbAnswer(duck: DuckDBSession, sql: string, limit: RunLimit): Promise<{ readonly table: Table } | { readonly none: string }> {
  const out = await underLimit(limit, () => duck.query(sql), () => duck.interrupt());
  if ('timedOut' in out) return { none: timeoutReason(limit, "DuckDB's answer for the parity checks", 'no answer checked, no DuckDB run timed') };
  return { table: out.value };
}

/** Generated data sets, each written (or found in the cache) once per run. */
type GeneratedCache = Map<string, Promise<GeneratedTables>>;

function generatedOnce(cache: GeneratedCache, duck: DuckDBSession, spec: GeneratedDataSpec, dataRoot: string | undefined): Promise<GeneratedTables> {
  const key = JSON.stringify(spec);
  let tables = cache.get(key);
  if (tables === undefined) {
    tables = generateTables(duck, spec, { root: dataRoot });
    cache.set(key, tables);
  }
  return tables;
}

/**
 * A workload's tables, written (or found in the cache) once per run. Generated in a DuckDB session
 * of its own on all cores (the data does not depend on DuckDB's thread count); the runner's session
 * keeps the experiment's `threads` for the timings.
 */
function workloadOnce(cache: GeneratedCache, spec: Required<WorkloadDataSpec>, dataRoot: string | undefined): Promise<GeneratedTables> {
  const key = JSON.stringify({ workload: spec });
  let tables = cache.get(key);
  if (tables === undefined) {
    tables = (async () => {
      const gen = await DuckDBSession.open();
      try {
        return await generateWorkload(gen, spec, { root: dataRoot });
      } finally {
        gen.close();
      }
    })();
    cache.set(key, tables);
  }
  return tables;
}

/** Makes `name` a DuckDB view or table over `path`, replacing whatever object had the name before. */
async function registerTable(duck: DuckDBSession, name: string, path: string): Promise<void> {
  const ident = `"${name.replace(/"/g, '""')}"`;
  for (const kind of ['VIEW', 'TABLE']) {
    try {
      await duck.run(`DROP ${kind} IF EXISTS ${ident}`);
    } catch {
      // an object of the other kind has the name: the other DROP removes it
    }
  }
  await registerInput(duck, name, path);
}

async function runSqlDataset(
  exp: Experiment,
  ds: SqlDataset,
  engines: readonly VariantEngines[],
  duck: DuckDBSession,
  progress: Progress,
  limit: RunLimit,
  dataRoot: string | undefined,
  generated: GeneratedCache,
): Promise<SqlDatasetResult> {
  const generators = [
    ...new Set(Object.values(ds.tables).flatMap((t) => (t.kind === 'generated' ? [t.data.generator] : t.kind === 'workload' ? [`${t.data.workload} sf=${t.data.sf}`] : []))),
  ];
  progress.step(generators.length > 0 ? `${ds.name}: generating ${generators.join(', ')} data (cached after the first run)` : `${ds.name}: reading file footers`);
  const tables: Record<string, SqlDatasetResult['tables'][string]> = {};
  for (const [name, source] of Object.entries(ds.tables)) {
    if (source.kind === 'generated') {
      const g = await generatedOnce(generated, duck, source.data, dataRoot);
      tables[name] = { source: { ...source, cacheDir: g.dir, cached: g.cached }, file: g.tables[source.table]! };
    } else if (source.kind === 'workload') {
      const g = await workloadOnce(generated, source.data, dataRoot);
      tables[name] = { source: { ...source, cacheDir: g.dir, cached: g.cached }, file: g.tables[source.table]! };
    } else {
      if (!existsSync(source.path)) throw new FileNotFoundError(source.path);
      tables[name] = { source, file: await fileInfo(duck, source.path) };
    }
  }
  progress.advance();

  for (const [name, t] of Object.entries(tables)) await registerTable(duck, name, t.file.path);
  const reference = await parityReference(exp, ds, duck, ds.sql, progress, limit);
  const unchecked = reference.unchecked;
  let expected = reference.expected;
  const paths = Object.fromEntries(Object.entries(tables).map(([name, t]) => [name, t.file.path]));
  const variants: VariantResult[] = [];
  for (const [i, v] of exp.variants.entries()) {
    const e = engines[i]!;
    variants.push(
      e.orders.length > 0 ? await runSqlVariantOrders(exp, ds, v, e, paths, expected, progress, limit) : await runSqlVariant(exp, ds, v, e.engine, paths, expected, progress, limit),
    );
  }
  expected = null;
  const duckdb = exp.duckdb ? await runDuckDB(exp, duck, ds.sql, ds, progress, limit, unchecked) : null;
  return { kind: 'sql', name: ds.name, tables, sql: ds.sql, variants: withRatios(variants, duckdb), duckdb, ...(unchecked !== null ? { parityUnchecked: unchecked } : {}) };
}

/** With `parity`, DuckDB's answer to `sql` (null without), or why there is none (`unchecked`: it timed out). */
async function parityReference(
  exp: Experiment,
  ds: Dataset,
  duck: DuckDBSession,
  sql: string,
  progress: Progress,
  limit: RunLimit,
): Promise<{ expected: Table | null; unchecked: string | null }> {
  if (!exp.parity) return { expected: null, unchecked: null };
  progress.step(`${ds.name}: DuckDB's answer for the parity checks`);
  const answer = await duckdbAnswer(duck, sql, limit);
  progress.advance();
  return 'table' in answer ? { expected: answer.table, unchecked: null } : { expected: null, unchecked: answer.none };
}

function withRatios(variants: readonly VariantResult[], duckdb: DuckDBBaseline | null): VariantResult[] {
  return variants.map((v) => ({
    ...v,
    ratio: duckdb?.time && v.time && duckdb.time.medianMs > 0 ? Math.round((v.time.medianMs / duckdb.time.medianMs) * 1000) / 1000 : null,
  }));
}

async function runDataset(
  exp: Experiment,
  ds: Dataset,
  engines: readonly VariantEngines[],
  duck: DuckDBSession,
  progress: Progress,
  limit: RunLimit,
  dataRoot: string | undefined,
  generated: GeneratedCache,
): Promise<DatasetResult> {
  if (ds.kind === 'sql') return runSqlDataset(exp, ds, engines, duck, progress, limit, dataRoot, generated);
  let data: Extract<DatasetResult, { data: unknown }>['data'];
  let files: { left: FileInfo; right: FileInfo };
  if (ds.data.kind === 'generator') {
    progress.step(`${ds.name}: generating ${ds.data.generator} data (cached after the first run)`);
    const g = await generateData(duck, ds.data, { root: dataRoot });
    data = { ...ds.data, cacheDir: g.dir, cached: g.cached };
    files = { left: g.left, right: g.right };
  } else {
    progress.step(`${ds.name}: reading file footers`);
    for (const f of [ds.data.left, ds.data.right]) if (!existsSync(f)) throw new FileNotFoundError(f);
    data = ds.data;
    files = { left: await fileInfo(duck, ds.data.left), right: await fileInfo(duck, ds.data.right) };
  }
  progress.advance();

  const leftColumns = await registerInput(duck, LEFT_VIEW, files.left.path);
  const rightColumns = await registerInput(duck, RIGHT_VIEW, files.right.path);
  const sql = joinToSql(ds.spec, { table: LEFT_VIEW, columns: leftColumns }, { table: RIGHT_VIEW, columns: rightColumns });

  const reference = await parityReference(exp, ds, duck, sql, progress, limit);
  const unchecked = reference.unchecked;
  let expected = reference.expected;

  const variants: VariantResult[] = [];
  for (const [i, v] of exp.variants.entries()) {
    variants.push(await runVariant(exp, ds, v, engines[i]!.engine, { left: files.left.path, right: files.right.path }, expected, progress, limit));
  }
  expected = null;

  const duckdb = exp.duckdb ? await runDuckDB(exp, duck, sql, ds, progress, limit, unchecked) : null;
  return { kind: 'join', name: ds.name, data, files, join: ds.join, sql, variants: withRatios(variants, duckdb), duckdb, ...(unchecked !== null ? { parityUnchecked: unchecked } : {}) };
}

/**
 * Every `sql:` query parses (DuckDB's parser), before any data is generated. A workload's query is
 * not checked here: its text is the project's, and one joinlab refuses is a row saying so.
 */
async function checkQueries(exp: Experiment, duck: DuckDBSession): Promise<void> {
  for (const ds of exp.datasets) {
    if (ds.kind !== 'sql' || ds.workload !== undefined) continue;
    try {
      await parseSql(duck, ds.sql);
    } catch (e) {
      if (!(e instanceof SqlSyntaxError) && !(e instanceof UnsupportedSqlError)) throw e;
      throw new ConfigError(`experiment ${exp.source}: ${ds.at}: ${e.message}`, ds.at);
    }
  }
}

/** Name of the experiment file's copy in the output directory (never clobbering our own outputs). */
function copyName(source: string): string {
  const name = basename(source);
  return ['results.json', 'report.html'].includes(name) ? `experiment${extname(name)}` : name;
}

// ---------------------------------------------------------------------------------------------
// Entry point
// ---------------------------------------------------------------------------------------------

/**
 * Loads and validates `file`, runs every variant on every data set (plus DuckDB), and writes
 * `results.json`, `report.html` and a copy of `file` into `options.out` (default 'joinlab-report').
 */
export async function runExperiment(file: string, options: RunOptions = {}): Promise<ExperimentResults> {
  const started = performance.now();
  const loadStart = loadAverage();
  const out = resolve(options.out ?? 'joinlab-report');
  // Before any work: an output directory that cannot be made used to fail after the whole run.
  await assertOutputDirectory(out, `report directory ${options.out ?? 'joinlab-report'}`);
  const exp = await loadExperiment(file, { set: options.set, repeat: options.repeat });
  const engines = await createEngines(exp);
  const log = options.log ?? (() => {});
  const showBar = options.progress ?? process.stderr.isTTY === true;
  const duck = await DuckDBSession.open({ threads: exp.threads });
  const progress = new Progress(showBar, stepsFor(exp), log);
  const limit: RunLimit = { timeoutS: exp.timeout, signal: options.signal };
  let results: ExperimentResults;
  try {
    await checkQueries(exp, duck);
    const threads = Object.fromEntries(exp.variants.map((v) => [v.name, v.config.threads]));
    const startMachine = await machineInfo(duck, threads, loadStart);
    const datasets: DatasetResult[] = [];
    const generated: GeneratedCache = new Map();
    for (const ds of exp.datasets) {
      options.signal?.throwIfAborted();
      datasets.push(withComparisons(await runDataset(exp, ds, engines, duck, progress, limit, options.dataRoot, generated), exp.baseline, exp.timeout));
    }
    const machine: MachineInfo = { ...startMachine, loadAverage: { start: loadStart, end: loadAverage() } };
    const equal = (p: ParityResult | null) => p === null || p.equal;
    const parityOk = datasets.every((d) => d.variants.every((v) => equal(v.parity) && (v.orders ?? []).every((o) => equal(o.parity))));
    const comparison = summarizeComparisons(datasets, exp.variants.map((v) => v.name), exp.baseline);
    results = {
      experiment: {
        name: exp.name,
        description: exp.description,
        source: exp.source,
        copy: copyName(exp.source),
        repeat: exp.repeat,
        ...(exp.repeatAuto !== null ? { repeatAuto: exp.repeatAuto } : {}),
        warmup: exp.warmup,
        duckdb: exp.duckdb,
        parity: exp.parity,
        threads: exp.threads,
        extensions: exp.extensions,
        orders: exp.orders,
        baseline: exp.baseline,
        timeout: exp.timeout,
        ...(Object.keys(exp.set).length > 0 ? { set: exp.set } : {}),
      },
      timestamp: new Date().toISOString(),
      wallMs: Math.round(performance.now() - started),
      machine,
      datasets,
      ...(comparison !== undefined ? { comparison } : {}),
      parityOk,
      out,
    };
  } finally {
    progress.stop();
    duck.close();
  }

  await mkdir(out, { recursive: true });
  const enc = new TextEncoder();
  await writeFileAtomic(join(out, 'results.json'), enc.encode(`${JSON.stringify(results, null, 2)}\n`));
  await writeFileAtomic(join(out, 'report.html'), enc.encode(renderReport(results)));
  await writeFileAtomic(join(out, results.experiment.copy), (tmp) => copyFile(exp.source, tmp));
  return results;
}
