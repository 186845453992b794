/**
 * `joinlab run FILE [--out DIR] [--set KEY=VALUE]… [--repeat N|auto] [--json]` (and the default
 * experiment behind `joinlab demo`): run an experiment file, print one table per data set and say
 * where the report is — or, with `--json`, one JSON object summing the run up (`runSummary`).
 * `--set` overrides a config key in every variant (validated as anywhere: an unknown key is an
 * error before any data is generated), `--repeat` the file's number of timed runs; both are
 * recorded in results.json (`experiment.set`, `experiment.repeat`).
 *
 * Kept apart from main.ts so the command wiring stays a one-liner there, and so scripts and tests
 * can call it directly. Progress goes to stderr (a bar on a TTY), results to stdout.
 *
 * Before the run: the experiment file and any data files it names must be regular files (a
 * directory used to crash with EISDIR, a FIFO to hang), checked here so an experiment fails in
 * milliseconds rather than after its data were generated; the runner itself checks the output
 * directory before any work.
 *
 * `signal` is the CLI's interrupt signal (main.ts, interrupt.ts): SIGINT / SIGTERM abort the query
 * run in progress (joinlab's through `Engine.sql` / `Engine.join`, DuckDB's through its interrupt)
 * and the experiment stops at once, rather than when its current query ends.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { assertRegularFile } from '../../core/input-file.ts';
import { formatResultsTable } from '../experiments/report.ts';
import { runExperiment, type ExperimentResults } from '../experiments/runner.ts';
import { loadExperiment } from '../experiments/schema.ts';

/** The demo experiment: star and sparse data, every pushdown policy, DuckDB side by side. */
export const DEFAULT_EXPERIMENT_FILE = fileURLToPath(new URL('../../bench/experiments/default.yaml', import.meta.url));

export interface RunCommandOptions {
  /** Output directory (default 'joinlab-report'). */
  readonly out?: string;
  /** Progress bar: default when stderr is a TTY. */
  readonly progress?: boolean;
  /** Aborted when the process is interrupted: stops the experiment. */
  readonly signal?: AbortSignal;
  /** `KEY=VALUE` config overrides applied to every variant (`--set`, repeatable). */
  readonly set?: readonly string[];
  /** Timed runs per variant instead of the file's `repeat` (`--repeat N`, or `auto`). */
  readonly repeat?: number | 'auto';
  /** Print `runSummary` as JSON instead of the tables. */
  readonly json?: boolean;
}

/**
 * Runs `file`, prints the tables and the report path. Resolves to the results; `parityOk` is
 * false when any answer differed from DuckDB's (the caller should then exit non-zero).
 */
export async function runRunCommand(file: string, opts: RunCommandOptions = {}): Promise<ExperimentResults> {
  await checkExperimentInputs(file, opts);
  const results = await runExperiment(file, {
    out: opts.out,
    progress: opts.progress,
    signal: opts.signal,
    set: opts.set,
    repeat: opts.repeat,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(runSummary(results), null, 2)}\n`);
    return results;
  }
  process.stdout.write(`${formatResultsTable(results)}\n\n`);
  process.stdout.write(results.parityOk ? 'every checked answer matches DuckDB\n' : 'MISMATCH: some answers differ from DuckDB\n');
  process.stdout.write(`report: ${join(results.out, 'report.html')} (data: ${join(results.out, 'results.json')}; ${(results.wallMs / 1000).toFixed(1)} s)\n`);
  return results;
}

/** The experiment file, then every data file it names, is a readable regular file. */
async function checkExperimentInputs(file: string, opts: Pick<RunCommandOptions, 'set' | 'repeat'>): Promise<void> {
  await assertRegularFile(file, 'experiment file');
  const exp = await loadExperiment(file, { set: opts.set, repeat: opts.repeat });
  for (const ds of exp.datasets) {
    if (ds.kind === 'sql') {
      for (const [name, t] of Object.entries(ds.tables)) if (t.kind === 'file') await assertRegularFile(t.path, `table '${name}' of data set '${ds.name}'`);
      continue;
    }
    if (ds.data.kind !== 'files') continue;
    await assertRegularFile(ds.data.left, `left input of data set '${ds.name}'`);
    await assertRegularFile(ds.data.right, `right input of data set '${ds.name}'`);
  }
}

/**
 * `joinlab run --json`: the run in one object — where the report and results.json are, whether
 * every answer matched DuckDB, and per data set each variant's time (median, min, max in ms,
 * its 95% CI (null: unknown, fewer than 3 runs), runs taken), rows, ratio to DuckDB, verdict against
 * the baseline and parity. results.json has everything else.
 */
export function runSummary(r: ExperimentResults) {
  return {
    experiment: r.experiment.name,
    source: r.experiment.source,
    repeat: r.experiment.repeat,
    warmup: r.experiment.warmup,
    threads: r.experiment.threads,
    set: r.experiment.set ?? {},
    parityOk: r.parityOk,
    wallMs: r.wallMs,
    out: r.out,
    report: join(r.out, 'report.html'),
    results: join(r.out, 'results.json'),
    datasets: r.datasets.map((d) => ({
      name: d.name,
      duckdb: d.duckdb === null ? null : { status: d.duckdb.status ?? 'ok', medianMs: d.duckdb.time?.medianMs ?? null, rows: d.duckdb.rows ?? null },
      variants: d.variants.map((v) => ({
        name: v.name,
        status: v.status,
        ...(v.reason !== undefined ? { reason: v.reason } : {}),
        ...(v.algorithm !== undefined ? { algorithm: v.algorithm } : {}),
        medianMs: v.time?.medianMs ?? null,
        minMs: v.time?.minMs ?? null,
        maxMs: v.time?.maxMs ?? null,
        ci95: v.time?.ci95 ?? null,
        runs: v.time?.runsMs.length ?? null,
        rows: v.rows ?? null,
        ratioToDuckdb: v.ratio,
        vsBaseline: v.comparison?.text ?? null,
        parity: v.parity === null ? null : v.parity.equal,
      })),
    })),
    ...(r.comparison !== undefined ? { comparison: r.comparison } : {}),
  };
}

/** `joinlab demo` once wired to the experiment runner: the default experiment. */
export async function runDefaultExperiment(opts: RunCommandOptions = {}): Promise<ExperimentResults> {
  return runRunCommand(DEFAULT_EXPERIMENT_FILE, opts);
}
