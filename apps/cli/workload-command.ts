/**
 * `joinlab workload ssb|tpch [--sf N] [--queries q1.1,…] [--config F] [--set k=v] [--threads N]
 * [--compare] [--warmup N] [--repeat N] [--timeout S] [--json]`: a standard workload end to end
 * (apps/workloads/run.ts). The data is generated once per scale factor (cached under
 * `os.tmpdir()/joinlab-data`, progress on stderr while it is written); every query then runs on
 * joinlab and on DuckDB over the same Parquet files at the same thread count, and one line per
 * query is printed as soon as it is known — status, joinlab ms, DuckDB ms, the ratio, the
 * containers each scan pruned — then a summary: the count of each status and the geometric mean
 * of the ratios over the queries that passed.
 *
 * Exit code: 0 when every query passed (ran, without `--compare`), 1 otherwise, 2 for a usage or
 * input error (bad scale factor, unknown workload or query, bad config) before anything runs.
 * `--threads N` is `--set threads=N` (giving both is a usage error): joinlab's `threads` and
 * DuckDB's thread count.
 */
import { dirname, resolve } from 'node:path';
import { loadConfig } from '../../composition.ts';
import { UsageError } from '../../core/errors.ts';
import { runWorkload, type QueryResult, type WorkloadResult } from '../workloads/run.ts';
import { checkScaleFactor, selectQueries, workloadDef, type WorkloadName } from '../workloads/workloads.ts';
import { configReport, round, scanReport } from './join-command.ts';
import { integerFlag } from './options.ts';

export interface WorkloadCommandOptions {
  sf: string;
  queries?: string;
  config?: string;
  set: string[];
  threads?: string;
  compare: boolean;
  warmup: string;
  repeat: string;
  timeout: string;
  json: boolean;
  signal?: AbortSignal;
}

/** `--timeout` in seconds: a positive number. */
function timeoutMs(text: string): number {
  const s = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : NaN;
  if (!(s > 0) || s > 86_400) throw new UsageError(`--timeout expects seconds (a number above 0, at most 86400), got '${text}'`);
  return s * 1000;
}

function scaleFactor(workload: WorkloadName, text: string): number {
  const sf = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : NaN;
  if (Number.isNaN(sf)) throw new UsageError(`--sf expects a scale factor (e.g. 1 or 0.01), got '${text}'`);
  return checkScaleFactor(workload, sf);
}

/**
 * `lineitem 45/60, orders 0/15`: containers pruned / total per scan (the alias when it differs from
 * the table), then `(pages 120/300)` where a page index pruned pages.
 */
export function prunedText(q: QueryResult): string {
  return q.scans
    .map((s) => {
      const m = s.metrics;
      const pages = m.pagesTotal > 0 ? ` (pages ${m.pagesPruned}/${m.pagesTotal})` : '';
      return `${s.alias && s.alias !== s.table ? `${s.table} ${s.alias}` : s.table} ${m.containersPruned}/${m.containersTotal}${pages}`;
    })
    .join(', ');
}

const ms = (x: number | null) => (x === null ? '-' : `${x < 10 ? x.toFixed(1) : Math.round(x)} ms`);

export const HEADER = `${'query'.padEnd(5)} ${'status'.padEnd(11)} ${'joinlab'.padStart(10)} ${'DuckDB'.padStart(10)} ${'ratio'.padStart(9)}  containers pruned per scan`;

/** One query's line. */
export function queryLine(q: QueryResult): string {
  const ratio = q.ratio === null ? '-' : `${q.ratio.toFixed(2)}x`;
  const tail = q.message !== undefined ? q.message : prunedText(q);
  return `${q.name.padEnd(5)} ${q.status.padEnd(11)} ${ms(q.joinlabMs).padStart(10)} ${ms(q.duckdbMs).padStart(10)} ${ratio.padStart(9)}  ${tail}`;
}

/** The summary line: counts per status (those that occurred) and the geometric mean. */
export function summaryLine(r: WorkloadResult): string {
  const s = r.summary;
  const counts = Object.entries(s.counts)
    .filter(([status, n]) => n > 0 || status === (r.compare ? 'passed' : 'ran'))
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const good = r.compare ? 'passed' : 'ran';
  const mean = s.geomeanRatio === null ? `no ${good} query was timed against DuckDB` : `geometric mean joinlab/DuckDB ${s.geomeanRatio.toFixed(2)}x over the ${s.counts[good]} ${good}`;
  return `${r.workload} sf=${r.sf}: ${s.total} quer${s.total === 1 ? 'y' : 'ies'}: ${counts}; ${mean}`;
}

function jsonReport(r: WorkloadResult) {
  return {
    workload: r.workload,
    sf: r.sf,
    threads: r.threads,
    compare: r.compare,
    warmup: r.warmup,
    repeat: r.repeat,
    timeoutS: r.timeoutMs / 1000,
    config: configReport(r.config),
    data: {
      dir: r.data.dir,
      cached: r.data.cached,
      generationMs: round(r.data.generationMs),
      tables: Object.fromEntries(Object.entries(r.data.tables).map(([n, f]) => [n, { rows: f.rows, rowGroups: f.rowGroups, bytes: f.bytes }])),
    },
    queries: r.queries.map((q) => ({
      name: q.name,
      status: q.status,
      ...(q.message !== undefined ? { message: q.message } : {}),
      joinlabMs: q.joinlabMs === null ? null : round(q.joinlabMs),
      duckdbMs: q.duckdbMs === null ? null : round(q.duckdbMs),
      ratio: q.ratio === null ? null : Math.round(q.ratio * 1000) / 1000,
      joinlabRunsMs: q.joinlabRunsMs.map(round),
      duckdbRunsMs: q.duckdbRunsMs.map(round),
      rows: q.rows,
      duckdbRows: q.duckdbRows,
      joins: q.joins,
      scans: q.scans.map((s) => ({ table: s.table, alias: s.alias, filters: s.filters, ...scanReport(s.metrics) })),
    })),
    summary: { ...r.summary, geomeanRatio: r.summary.geomeanRatio === null ? null : Math.round(r.summary.geomeanRatio * 1000) / 1000 },
  };
}

/** Runs the command; true when every query passed (ran, without --compare). */
export async function runWorkloadCommand(name: string, opts: WorkloadCommandOptions): Promise<boolean> {
  const workload = workloadDef(name).name as WorkloadName;
  const sf = scaleFactor(workload, opts.sf);
  const queries = selectQueries(workload, opts.queries);
  const warmup = integerFlag(opts.warmup, '--warmup', 0, 1000);
  const repeat = integerFlag(opts.repeat, '--repeat', 1, 1000);
  const timeout = timeoutMs(opts.timeout);
  const set = [...opts.set];
  if (opts.threads !== undefined) {
    if (set.some((s) => s.trim().startsWith('threads='))) throw new UsageError('--threads and --set threads=… both given; give one');
    set.push(`threads=${integerFlag(opts.threads, '--threads', 1, 64)}`);
  }
  const config = await loadConfig({ file: opts.config, set });
  let first = true;
  const result = await runWorkload({
    workload,
    sf,
    queries,
    config,
    baseDir: opts.config ? dirname(resolve(opts.config)) : undefined,
    compare: opts.compare,
    warmup,
    repeat,
    timeoutMs: timeout,
    signal: opts.signal,
    log: (line) => {
      if (line.startsWith('generating')) process.stderr.write(`${line}\n`);
    },
    onQuery: opts.json
      ? undefined
      : (q) => {
          if (first) process.stdout.write(`${HEADER}\n`);
          first = false;
          process.stdout.write(`${queryLine(q)}\n`);
        },
  });
  if (opts.json) process.stdout.write(`${JSON.stringify(jsonReport(result), null, 2)}\n`);
  else process.stdout.write(`${summaryLine(result)}\n`);
  return result.summary.allPassed;
}
