/**
 * Running a workload: every query of SSB or TPC-H through joinlab (`Engine.sql`) and through DuckDB
 * on the same Parquet files, timed side by side and (with `compare`) checked against each other.
 * The library entry `runWorkload` is what `joinlab workload`, the workload tests and the
 * experiment runner share.
 *
 * What is measured: a joinlab time is the wall time of one `engine.sql(text, tables)` call
 * (DuckDB's parse, opening the files, every join, aggregate and sort, the result materialised as an
 * Arrow table); a DuckDB time that of `CREATE OR REPLACE TEMP TABLE … AS <query>` over views on
 * the same files (materialised too, so neither side can skip work), at the same thread count
 * (`threads` of the config is DuckDB's `threads`). One Engine serves every query, so with
 * `warmup` runs (default 1) the measured runs are warm — file footers read, workers started — as
 * experiments measure; `repeat` measured runs give the median.
 *
 * What is compared (`compare`): the answers as multisets (adapters/duckdb/compare.ts; floats to
 * FLOAT_DIGITS significant digits, since summation order differs), and for a query with ORDER BY
 * the ORDER BY columns row by row. A query whose answer differs is `different`, with the first
 * lines of the difference.
 *
 * A runner never stops for one bad query: SQL joinlab refuses (UnsupportedSqlError) is
 * `unsupported` with the first line of the message, any other error `error`, a query still
 * running after `timeoutMs` is aborted through the AbortSignal `runSql` takes and is `timeout`;
 * the next query runs and the summary is always produced. Only an abort of the caller's `signal`
 * (an interrupted process) stops the run, with the error it was aborted with. Without `compare`
 * a query that completes is `ran`. The summary counts each status and the geometric mean of
 * joinlab/DuckDB over the queries that passed (ran, without `compare`).
 */
import type { Table } from 'apache-arrow';
import type { Config } from '../../core/config/schema.ts';
import { CancelledError, UnsupportedSqlError, isJoinlabError } from '../../core/errors.ts';
import type { ScanMetrics } from '../../core/metrics.ts';
import { Engine } from '../../composition.ts';
import type { FileInfo } from '../../adapters/datagen/cached-parquet.ts';
import { compareResults, formatComparison, orderDifference } from '../../adapters/duckdb/compare.ts';
import { DuckDBSession } from '../../adapters/duckdb/session.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';
import { generateWorkload, queryText, selectQueries, WORKLOADS, type WorkloadName } from './workloads.ts';

export type QueryStatus = 'passed' | 'different' | 'ran' | 'unsupported' | 'error' | 'timeout';
export const QUERY_STATUSES: readonly QueryStatus[] = ['passed', 'different', 'ran', 'unsupported', 'error', 'timeout'];

/** Floats of the two answers are compared to this many significant digits. */
export const FLOAT_DIGITS = 9;
export const DEFAULT_TIMEOUT_MS = 300_000;

/** One table scan of a query's last measured run. */
export interface QueryScan {
  readonly table: string;
  readonly alias: string;
  readonly filters: readonly string[];
  readonly metrics: ScanMetrics;
}

export interface QueryResult {
  readonly name: string;
  readonly status: QueryStatus;
  /** unsupported / error / timeout: the first line of the error; different: the first lines of the difference. */
  readonly message?: string;
  /** Median of the measured runs (null when joinlab did not finish). */
  readonly joinlabMs: number | null;
  readonly duckdbMs: number | null;
  /** joinlabMs / duckdbMs. */
  readonly ratio: number | null;
  readonly joinlabRunsMs: readonly number[];
  readonly duckdbRunsMs: readonly number[];
  /** Rows of joinlab's answer, and of DuckDB's. */
  readonly rows: number | null;
  readonly duckdbRows: number | null;
  readonly joins: number;
  readonly scans: readonly QueryScan[];
}

export interface WorkloadSummary {
  readonly total: number;
  readonly counts: Readonly<Record<QueryStatus, number>>;
  /** Geometric mean of joinlab/DuckDB over the passed queries (ran ones without compare); null when none. */
  readonly geomeanRatio: number | null;
  readonly allPassed: boolean;
}

export interface WorkloadResult {
  readonly workload: WorkloadName;
  readonly sf: number;
  readonly threads: number;
  readonly config: Config;
  readonly compare: boolean;
  readonly warmup: number;
  readonly repeat: number;
  readonly timeoutMs: number;
  readonly data: { readonly dir: string; readonly cached: boolean; readonly generationMs: number; readonly tables: Readonly<Record<string, FileInfo>> };
  readonly queries: readonly QueryResult[];
  readonly summary: WorkloadSummary;
}

export interface RunWorkloadOptions {
  readonly workload: WorkloadName;
  readonly sf: number;
  /** Query names (default: all, in the spec's order). */
  readonly queries?: readonly string[];
  /** joinlab's config; its `threads` is DuckDB's thread count too. */
  readonly config: Config;
  /** Directory relative extension paths of the config resolve against. */
  readonly baseDir?: string;
  readonly compare?: boolean;
  /** Unmeasured runs of each query before the measured ones (default 1). */
  readonly warmup?: number;
  /** Measured runs; the median is reported (default 1). */
  readonly repeat?: number;
  /** Per joinlab run of a query (default 300 s). */
  readonly timeoutMs?: number;
  /** Time DuckDB too (default true); without it only `compare` asks DuckDB anything. */
  readonly duckdb?: boolean;
  readonly rowGroupSize?: number;
  /** Cache root of the generated data (default os.tmpdir()/joinlab-data). */
  readonly dataRoot?: string;
  /** Aborts the whole run (an interrupted process). */
  readonly signal?: AbortSignal;
  /** Progress lines (generating, which query runs). */
  readonly log?: (line: string) => void;
  /** Each query's result as soon as it is known. */
  readonly onQuery?: (result: QueryResult) => void;
}

const RESULT_TABLE = '__joinlab_workload_result';

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
}

/** The first line of an error's message. */
function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.split('\n')[0]!;
}

/** Geometric mean of positive ratios (null when there are none). */
export function geometricMean(xs: readonly number[]): number | null {
  const ok = xs.filter((x) => x > 0 && Number.isFinite(x));
  if (ok.length === 0) return null;
  return Math.exp(ok.reduce((s, x) => s + Math.log(x), 0) / ok.length);
}

export function summarize(queries: readonly QueryResult[], compare: boolean): WorkloadSummary {
  const counts = Object.fromEntries(QUERY_STATUSES.map((s) => [s, 0])) as Record<QueryStatus, number>;
  for (const q of queries) counts[q.status]++;
  const good: QueryStatus = compare ? 'passed' : 'ran';
  const ratios = queries.filter((q) => q.status === good && q.ratio !== null).map((q) => q.ratio!);
  return { total: queries.length, counts, geomeanRatio: geometricMean(ratios), allPassed: queries.every((q) => q.status === good) };
}

/** One joinlab run of `sql`, aborted after `timeoutMs` (or when `outer` aborts). */
async function timedSql(engine: Engine, sql: string, tables: Readonly<Record<string, string>>, duck: DuckDBSession, timeoutMs: number, outer?: AbortSignal): Promise<{ result: SqlResult; ms: number } | { timedOut: true }> {
  const controller = new AbortController();
  const onOuter = () => controller.abort(outer!.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new CancelledError(`timed out after ${timeoutMs / 1000} s`));
  }, timeoutMs);
  try {
    const t0 = performance.now();
    const result = await engine.sql(sql, tables, { duck, signal: controller.signal });
    const ms = performance.now() - t0;
    if (timedOut) return { timedOut: true }; // finished, but past the limit (a run that never yields cannot be interrupted sooner)
    return { result, ms };
  } catch (e) {
    if (timedOut && !outer?.aborted) return { timedOut: true };
    throw e;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}

/** DuckDB's time for `sql` (materialised into a temp table) and, when `answer`, its answer. */
async function duckdbRun(duck: DuckDBSession, sql: string, answer: boolean): Promise<{ ms: number; rows: number; table: Table | null }> {
  const t0 = performance.now();
  await duck.run(`CREATE OR REPLACE TEMP TABLE ${RESULT_TABLE} AS ${sql.trim().replace(/;\s*$/, '')}`);
  const ms = performance.now() - t0;
  const table = answer ? await duck.query(`SELECT * FROM ${RESULT_TABLE}`) : null;
  const rows = table?.numRows ?? Number((await duck.queryRows(`SELECT count(*) FROM ${RESULT_TABLE}`))[0]![0]);
  return { ms, rows, table };
}

/**
 * The verdict on joinlab's answer: null when it equals DuckDB's, else the first lines of the
 * difference (multiset, then the ORDER BY columns row by row).
 */
function difference(actual: SqlResult, expected: Table): string | null {
  const options = { floatTolerance: 10 ** -FLOAT_DIGITS, maxReported: 3 };
  const c = compareResults(actual.table, expected, options);
  if (!c.equal) return formatComparison(c).split('\n').slice(0, 4).join(' | ');
  const order = actual.orderedBy.length > 0 ? orderDifference(actual.table, expected, actual.orderedBy, options) : null;
  return order === null ? null : `order: ${order}`;
}

interface QueryContext {
  readonly engine: Engine;
  readonly duck: DuckDBSession;
  readonly tables: Readonly<Record<string, string>>;
  readonly compare: boolean;
  readonly duckdb: boolean;
  readonly warmup: number;
  readonly repeat: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Runs one query as the module comment says; throws only when the caller's signal aborted. */
async function runQuery(ctx: QueryContext, name: string, sql: string): Promise<QueryResult> {
  const base = { name, joinlabMs: null, duckdbMs: null, ratio: null, joinlabRunsMs: [], duckdbRunsMs: [], rows: null, duckdbRows: null, joins: 0, scans: [] };
  // DuckDB first: its answer is the reference, and its time is wanted whatever joinlab does
  const duckRuns: number[] = [];
  let expected: Table | null = null;
  let duckdbRows: number | null = null;
  if (ctx.duckdb || ctx.compare) {
    const runs = ctx.duckdb ? ctx.warmup + ctx.repeat : 1;
    for (let r = 0; r < runs; r++) {
      const last = r === runs - 1;
      const d = await duckdbRun(ctx.duck, sql, last && ctx.compare);
      if (ctx.duckdb && r >= ctx.warmup) duckRuns.push(d.ms);
      if (last) {
        expected = d.table;
        duckdbRows = d.rows;
      }
    }
    await ctx.duck.run(`DROP TABLE IF EXISTS ${RESULT_TABLE}`);
  }
  const duckdbMs = median(duckRuns);
  const withDuck = { ...base, duckdbMs, duckdbRunsMs: duckRuns, duckdbRows };

  const runs: number[] = [];
  let last: SqlResult | null = null;
  for (let r = 0; r < ctx.warmup + ctx.repeat; r++) {
    let out: Awaited<ReturnType<typeof timedSql>>;
    try {
      out = await timedSql(ctx.engine, sql, ctx.tables, ctx.duck, ctx.timeoutMs, ctx.signal);
    } catch (e) {
      if (ctx.signal?.aborted) throw e;
      if (e instanceof UnsupportedSqlError) return { ...withDuck, status: 'unsupported', message: firstLine(e) };
      return { ...withDuck, status: 'error', message: `${isJoinlabError(e) ? '' : `${(e as Error)?.name ?? 'Error'}: `}${firstLine(e)}` };
    }
    if ('timedOut' in out) return { ...withDuck, status: 'timeout', message: `no answer after ${ctx.timeoutMs / 1000} s` };
    if (r >= ctx.warmup) runs.push(out.ms);
    last = out.result;
  }
  const result = last!;
  const joinlabMs = median(runs);
  const measured = {
    ...withDuck,
    joinlabMs,
    joinlabRunsMs: runs,
    ratio: joinlabMs !== null && duckdbMs !== null && duckdbMs > 0 ? joinlabMs / duckdbMs : null,
    rows: result.table.numRows,
    joins: result.joins.length,
    scans: result.scans.map((s) => ({ table: s.table, alias: s.alias, filters: s.filters, metrics: s.metrics })),
  };
  if (!ctx.compare) return { ...measured, status: 'ran' };
  const diff = difference(result, expected!);
  return diff === null ? { ...measured, status: 'passed' } : { ...measured, status: 'different', message: diff };
}

/**
 * Generates (or finds) the workload's data, then runs each query as the module comment says.
 * One Engine (built from `config`) and one DuckDB session at `config.threads` serve every query.
 */
export async function runWorkload(options: RunWorkloadOptions): Promise<WorkloadResult> {
  const { workload, config } = options;
  const def = WORKLOADS[workload];
  const names = options.queries ?? selectQueries(workload);
  const texts = new Map<string, string>();
  for (const n of names) texts.set(n, await queryText(workload, n)); // unknown names fail before any data is written
  const engine = await Engine.create(config, { baseDir: options.baseDir });
  const log = options.log ?? (() => {});

  // generation on all of DuckDB's threads (the data does not depend on them), in its own session
  const started = performance.now();
  const gen = await DuckDBSession.open();
  let generated;
  try {
    generated = await generateWorkload(gen, { workload, sf: options.sf, rowGroupSize: options.rowGroupSize }, {
      root: options.dataRoot,
      onWrite: (table, i, n) => log(`generating ${def.name} sf=${options.sf}: ${table} (${i + 1}/${n})`),
    });
  } finally {
    gen.close();
  }
  const generationMs = performance.now() - started;

  const tables = Object.fromEntries(Object.entries(generated.tables).map(([name, f]) => [name, f.path]));
  const duck = await DuckDBSession.open({ threads: config.threads });
  const queries: QueryResult[] = [];
  const ctx: QueryContext = {
    engine,
    duck,
    tables,
    compare: options.compare ?? false,
    duckdb: options.duckdb ?? true,
    warmup: options.warmup ?? 1,
    repeat: options.repeat ?? 1,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    signal: options.signal,
  };
  try {
    for (const [name, path] of Object.entries(tables)) await duck.createViewOnParquet(name, path);
    for (const name of names) {
      options.signal?.throwIfAborted();
      log(`${def.name} ${name}`);
      const r = await runQuery(ctx, name, texts.get(name)!);
      queries.push(r);
      options.onQuery?.(r);
    }
  } finally {
    duck.close();
  }
  return {
    workload,
    sf: options.sf,
    threads: config.threads,
    config,
    compare: ctx.compare,
    warmup: ctx.warmup,
    repeat: ctx.repeat,
    timeoutMs: ctx.timeoutMs,
    data: { dir: generated.dir, cached: generated.cached, generationMs, tables: generated.tables },
    queries,
    summary: summarize(queries, ctx.compare),
  };
}
