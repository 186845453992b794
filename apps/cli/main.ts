/**
 * The `joinlab` command line (commander): a thin layer over the library.
 *
 * Contract: a usage or input error prints ONE line `joinlab: <message>` to stderr and exits 2,
 * with no stack trace and no output file (outputs are written atomically, after the join has
 * completed). Anything else that escapes is a bug and is printed with its stack (exit 1).
 * The line is one line even when the message quotes a newline or a megabyte of input
 * (error-line.ts); options given twice or empty are refused (options.ts); paths are checked
 * before any work (preflight.ts, the runner's output check). With `signals: true` (the real
 * process) SIGINT/SIGTERM stop the run, remove its temp files and exit 130/143 (interrupt.ts).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { loadConfig } from '../../composition.ts';
import { isJoinlabError, UsageError } from '../../core/errors.ts';
import { JOIN_TYPES } from '../../core/types.ts';
import { SQL_FEATURES as SQL_FEATURE_NAMES } from '../../adapters/datagen/sql-features.ts';
import { errorLine } from './error-line.ts';
import { terminalWidth } from './format.ts';
import { handleBrokenPipe, handleInterrupts } from './interrupt.ts';
import type { JoinCommandOptions } from './join-command.ts';
import type { SortCommandOptions } from './sort-command.ts';
import type { SqlCommandOptions } from './sql-command.ts';
import type { SqllogictestOptions } from './sqllogictest-command.ts';
import type { WorkloadCommandOptions } from './workload-command.ts';
import { guardOptions, integerFlag, LIMITS, nonEmptyPath } from './options.ts';
// Commands are imported when they run: `joinlab join` need not load DuckDB (~0.4 s) or the
// experiment runner.
const runJoinCommand = async (o: JoinCommandOptions) => (await import('./join-command.ts')).runJoinCommand(o);
const runSortCommand = async (o: SortCommandOptions) => (await import('./sort-command.ts')).runSortCommand(o);
const runSqlCommand = async (q: string, o: SqlCommandOptions) => (await import('./sql-command.ts')).runSqlCommand(q, o);
const runWorkloadCommand = async (w: string, o: WorkloadCommandOptions) => (await import('./workload-command.ts')).runWorkloadCommand(w, o);
const runSqllogictest = async (p: string[], o: SqllogictestOptions) => (await import('./sqllogictest-command.ts')).runSqllogictestCommand(p, o);
const runStrategiesCommand = async (...a: Parameters<typeof import('./strategies-command.ts').runStrategiesCommand>) =>
  (await import('./strategies-command.ts')).runStrategiesCommand(...a);
const runConfigCommand = async (...a: Parameters<typeof import('./config-command.ts').runConfigCommand>) =>
  (await import('./config-command.ts')).runConfigCommand(...a);
const runRunCommand = async (...a: Parameters<typeof import('./run-command.ts').runRunCommand>) => (await import('./run-command.ts')).runRunCommand(...a);
const runDefaultExperiment = async (...a: Parameters<typeof import('./run-command.ts').runDefaultExperiment>) =>
  (await import('./run-command.ts')).runDefaultExperiment(...a);
const runParity = async (...a: Parameters<typeof import('./parity-command.ts').runParity>) => (await import('./parity-command.ts')).runParity(...a);
const runDemo = async (...a: Parameters<typeof import('./demo.ts').runDemo>) => (await import('./demo.ts')).runDemo(...a);
const runCleanCommand = async (...a: Parameters<typeof import('./clean-command.ts').runCleanCommand>) =>
  (await import('./clean-command.ts')).runCleanCommand(...a);

const collect = (v: string, acc: string[]) => [...acc, v];

/** What the commands share with main: the signal aborted when the process is interrupted. */
interface RunContext {
  readonly signal?: AbortSignal;
}

/** package.json's version: what `joinlab --version` prints. */
export function joinlabVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function buildProgram(ctx: RunContext): Command {
  const program = new Command()
    .name('joinlab')
    .description('Join operators over Apache Arrow data, with pluggable strategies and DuckDB parity checks.')
    .version(joinlabVersion(), '-V, --version', "print joinlab's version")
    .exitOverride()
    .showHelpAfterError(false)
    // a mistyped option or command gets commander's "did you mean" (its own edit distance:
    // the candidates are only this command's flags); reportError puts it on the error's one line
    .showSuggestionAfterError(true)
    // help wraps at the terminal's width, or 100 columns when stdout is not a terminal (format.ts)
    .configureOutput({ outputError: () => {}, getOutHelpWidth: () => terminalWidth(), getErrHelpWidth: () => terminalWidth(process.stderr) });

  program
    .command('join')
    .description('run one join over two files (.parquet, .arrow, .csv) and write or summarise the result')
    .requiredOption('--left <file>', 'left input (.parquet, .arrow or .csv)')
    .requiredOption('--right <file>', 'right input (.parquet, .arrow or .csv)')
    .option('--on <pairs>', 'equi-keys: LEFT=RIGHT[,LEFT2=RIGHT2...]')
    .option('--range <pred>', 'range predicate: "LEFT OP RIGHT" with OP in < <= > >=')
    .addOption(new Option('--type <type>', 'join type').choices(JOIN_TYPES).default('inner'))
    .option('--algorithm <name>', 'join algorithm (overrides config key join)')
    .option('--filter <expr>', 'residual filter, e.g. "l.amount > r.limit AND r.region IS NOT NULL"; @FILE reads it from FILE')
    .option('--select <names>', 'output columns to keep, by output name: NAME[,NAME2...] (default: all)')
    .option('--null-equals-null', 'keys compare with IS NOT DISTINCT FROM (NULL matches NULL)', false)
    .option('--null-aware', 'anti join with NOT IN semantics', false)
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .option('--out <file>', 'write the result (.parquet, .arrow or .csv)')
    .option('--json', 'print rows, timing, config and metrics as one JSON object', false)
    .action(async (opts: JoinCommandOptions) => {
      if (!opts.on && !opts.range) throw new UsageError('join needs --on LEFT=RIGHT[,…] or --range "LEFT OP RIGHT"');
      await runJoinCommand({ ...opts, signal: ctx.signal });
    });

  program
    .command('sql')
    .description("run a SELECT over Parquet / Arrow / CSV files on joinlab's operators (DuckDB parses); --compare checks it against DuckDB")
    .argument('<query>', 'the SELECT statement')
    .option('--data <dir>', 'every .parquet / .arrow / .csv file in DIR, as a table named by its stem')
    .option('--table <name=file>', 'one table (repeatable; overrides --data)', collect, [])
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .option('--compare', 'run the same SQL in DuckDB on the same files and compare (exit 1 when they differ)', false)
    .option('--explain', "print the plan that ran as a tree: algorithm, keys and filters per join, filters and pruned containers per scan, rows and time per operator", false)
    .option('--out <file>', 'write the result (.parquet, .arrow or .csv)')
    .option('--json', 'print rows, timing, per-join and per-scan metrics (with --explain, the plan) and the comparison as one JSON object', false)
    .action(async (query: string, opts: SqlCommandOptions) => {
      const ok = await runSqlCommand(query, { ...opts, signal: ctx.signal });
      if (!ok) process.exitCode = 1;
    });

  program
    .command('workload')
    .description('run a standard workload (ssb: Star Schema Benchmark, tpch: TPC-H) on generated data, each query beside DuckDB; --compare checks the answers')
    .argument('<workload>', 'ssb or tpch')
    .option('--sf <n>', 'scale factor (fractional allowed; the data is generated once and cached)', '1')
    .option('--queries <names>', 'only these queries, comma-separated (e.g. q1.1,q2.1 or 1,6,14)')
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .option('--threads <n>', "joinlab's threads and DuckDB's (same as --set threads=N)")
    .option('--compare', "check each answer against DuckDB's (exit 1 when any differs or fails)", false)
    .option('--warmup <n>', 'unmeasured runs of each query first (1: warm, as experiments measure)', '1')
    .option('--repeat <n>', 'measured runs of each query; the median is reported', '1')
    .option('--timeout <seconds>', 'per query run; a query still running is aborted and counted as timeout', '300')
    .option('--json', 'print every query and the summary as one JSON object', false)
    .action(async (workload: string, opts: WorkloadCommandOptions) => {
      const ok = await runWorkloadCommand(workload, { ...opts, signal: ctx.signal });
      if (!ok) process.exitCode = 1;
    });

  program
    .command('sqllogictest')
    .description("run sqllogictest files (DuckDB's dialect): setup in DuckDB, every query through joinlab")
    .argument('<paths...>', '.test files or directories of them')
    .option('--verbose', 'list every skipped record and why', false)
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .action(async (paths: string[], opts: SqllogictestOptions) => {
      const ok = await runSqllogictest(paths, { ...opts, signal: ctx.signal });
      if (!ok) process.exitCode = 1;
    });

  program
    .command('sort')
    .description('sort one file (.parquet, .arrow, .csv) by columns; past memoryLimit sorted runs are spilled to disk and merged')
    .argument('<input>', 'input file (.parquet, .arrow or .csv)', nonEmptyPath('sort'))
    .requiredOption('--by <keys>', 'sort keys: "COLUMN [ASC|DESC] [NULLS FIRST|LAST][, COLUMN2 ...]" (default ASC NULLS LAST)')
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable), e.g. memoryLimit=256MB, batchSize=4096', collect, [])
    .option('--out <file>', 'write the sorted rows (.parquet, .arrow or .csv)')
    .option('--json', 'print rows, timing, config, scan and sort metrics (runs and bytes spilled) as one JSON object', false)
    .action(async (input: string, opts: Omit<SortCommandOptions, 'input'>) => {
      await runSortCommand({ ...opts, input, signal: ctx.signal });
    });

  program
    .command('strategies')
    .description('list every registry slot and the strategies registered in it')
    .option('--config <file>', 'config file (its extensions are loaded too)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .option('--json', 'machine-readable output', false)
    .action(async (opts: { config?: string; set: string[]; json: boolean }) => {
      const config = await loadConfig({ file: opts.config, set: opts.set });
      await runStrategiesCommand(config, opts.json);
    });

  program
    .command('config')
    .description('list every config key with the value a run would use (from --config / --set, else the default) and its default')
    .option('--config <file>', 'config file (JSON or YAML)')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .option('--json', 'machine-readable output', false)
    .option('--list', 'list every key (what the command does anyway; accepted for scripts that say so)', false)
    .action(async (opts: { config?: string; set: string[]; json: boolean }) => {
      await runConfigCommand(opts);
    });

  program
    .command('run')
    .description('run an experiment file: every variant beside DuckDB, a table, results.json and report.html')
    .argument('<file>', 'experiment file (YAML or JSON), e.g. bench/experiments/sparse.yaml', nonEmptyPath('run'))
    .option('--out <dir>', 'report directory', 'joinlab-report')
    .option('--set <key=value>', "override one config key in every variant, after the file's configs (repeatable)", collect, [])
    .option('--repeat <n>', "timed runs per variant, or 'auto' (until the 95% CI is narrow; overrides the file's repeat)")
    .option('--json', 'print a summary (per variant: times, rows, ratios, parity; where the report is) as one JSON object instead of the tables', false)
    .action(async (file: string, opts: { out: string; set: string[]; repeat?: string; json: boolean }) => {
      const repeat = opts.repeat === undefined ? undefined : opts.repeat.trim().toLowerCase() === 'auto' ? ('auto' as const) : integerFlag(opts.repeat, '--repeat', ...LIMITS.repeat);
      const results = await runRunCommand(file, { out: opts.out, set: opts.set, repeat, json: opts.json, signal: ctx.signal });
      if (!results.parityOk) process.exitCode = 1;
    });

  program
    .command('demo')
    .description('the default experiment (star + sparse data, every pushdown policy, DuckDB side by side, parity on)')
    .option('--out <dir>', 'report directory', 'joinlab-report')
    .action(async (opts: { out: string }) => {
      const results = await runDefaultExperiment({ out: opts.out, signal: ctx.signal });
      if (!results.parityOk) process.exitCode = 1;
    });

  program
    .command('parity')
    .description('differential fuzzing against DuckDB across every registered algorithm, strategy and join type')
    .option('--cases <n>', 'random cases to run', '300')
    .option('--seed <n>', 'seed (the same seed gives the same cases)', '11')
    .option('--algorithm <name...>', 'only these join algorithms')
    .option('--config <file>', 'config file (its extensions are fuzzed too)')
    .option('--threads <list>', 'thread counts to draw each case from (comma-separated)', '1,2,4')
    .option('--sql-share <fraction>', 'share of the cases that are random SQL queries through Engine.sql (0..1)', '0.1')
    .option('--sql-features <names>', `SQL features to draw (comma-separated, of ${SQL_FEATURE_NAMES.join(', ')}; default: those the planner claims)`)
    .action(async (opts: { cases: string; seed: string; algorithm?: string[]; config?: string; threads: string; sqlShare: string; sqlFeatures?: string }) => {
      const cases = integerFlag(opts.cases, '--cases', ...LIMITS.cases);
      const threads = opts.threads.split(',').map((t) => integerFlag(t.trim(), '--threads', 1, 64));
      const seed = integerFlag(opts.seed, '--seed', ...LIMITS.seed);
      const sqlShare = Number(opts.sqlShare);
      if (opts.sqlShare.trim() === '' || !(sqlShare >= 0 && sqlShare <= 1)) throw new UsageError(`--sql-share expects a number from 0 to 1, got '${opts.sqlShare}'`);
      let sqlFeatures: Record<string, boolean> | undefined;
      if (opts.sqlFeatures !== undefined) {
        const names = opts.sqlFeatures.split(',').map((n) => n.trim()).filter((n) => n !== '');
        if (names.length === 0) throw new UsageError(`--sql-features expects feature names (${SQL_FEATURE_NAMES.join(', ')}), got '${opts.sqlFeatures}'`);
        const unknown = names.find((n) => !(SQL_FEATURE_NAMES as readonly string[]).includes(n));
        if (unknown !== undefined) throw new UsageError(`--sql-features: unknown feature '${unknown}'; features: ${SQL_FEATURE_NAMES.join(', ')}`);
        sqlFeatures = Object.fromEntries(names.map((n) => [n, true]));
      }
      const config = await loadConfig({ file: opts.config });
      const r = await runParity({
        cases,
        seed,
        threads,
        algorithms: opts.algorithm,
        extensions: config.extensions,
        sqlShare,
        ...(sqlFeatures !== undefined ? { sqlFeatures } : {}),
      });
      if (r.failed > 0) process.exitCode = 1;
    });

  program
    .command('check')
    .description('built-in orders/customers data: every join algorithm x join type (+ filter, NULL = NULL, NOT IN, range) checked against DuckDB')
    .option('--rows <n>', 'left rows (the right side gets a quarter)', '10000')
    .option('--seed <n>', 'data seed', '7')
    .option('--config <file>', 'config file')
    .option('--set <key=value>', 'override one config key (repeatable)', collect, [])
    .action(async (opts: { rows: string; seed: string; config?: string; set: string[] }) => {
      const rows = integerFlag(opts.rows, '--rows', ...LIMITS.rows);
      const seed = integerFlag(opts.seed, '--seed', ...LIMITS.seed);
      const config = await loadConfig({ file: opts.config, set: opts.set });
      const ok = await runDemo(config, { rows, seed });
      if (!ok) process.exitCode = 1;
    });

  program
    .command('clean')
    .description('remove temp files and spill directories left by joinlab runs that were killed (their pid is not running)')
    .argument('[dir...]', 'directories to look in (default: the working directory); the temp directory is always searched for spill directories')
    .option('--dry-run', 'only list what would be removed', false)
    .action(async (dirs: string[], opts: { dryRun: boolean }) => {
      if (dirs.some((d) => d === '')) throw new UsageError('clean needs directory paths, got an empty string');
      await runCleanCommand({ dirs, dryRun: opts.dryRun });
    });

  guardOptions(program);
  return program;
}

export interface MainOptions {
  /** Handle SIGINT/SIGTERM (the real process: bin/joinlab.mjs); see interrupt.ts. */
  readonly signals?: boolean;
}

/** Runs the CLI; returns the process exit code. */
export async function main(argv: readonly string[], options: MainOptions = {}): Promise<number> {
  const interrupts = options.signals ? handleInterrupts() : null;
  // for the process's life: a pipe may break while stdout drains after main has returned
  if (options.signals) handleBrokenPipe();
  const program = buildProgram({ signal: interrupts?.signal });
  try {
    if (argv.length === 0) throw new UsageError(`missing command: one of ${program.commands.map((c) => c.name()).join(', ')} (joinlab --help for more)`);
    await program.parseAsync([...argv], { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (interrupts?.received()) return 1; // the interrupt handler prints the one line and exits
    return reportError(e);
  } finally {
    interrupts?.settled();
    interrupts?.dispose();
  }
}

/**
 * A commander error message as the text of the one error line: without its `error: ` prefix, and
 * with the suggestion commander puts on a line of its own (`unknown option '--jsn'\n(Did you mean
 * --json?)`, which errorLine would print with a literal `\n`) joined to the sentence.
 */
export function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/\s*\n\(Did you mean (.*)\?\)\s*$/s, '; did you mean $1?')
    .replace(/\s*\n\s*/g, '; ');
}

/** Prints a thrown error the CLI way and returns the exit code. */
function reportError(e: unknown): number {
  if (e instanceof CommanderError) {
    if (e.exitCode === 0) return 0; // --help, --version
    process.stderr.write(errorLine(commanderMessage(e.message)));
    return 2;
  }
  if (isJoinlabError(e)) {
    process.stderr.write(errorLine(e.message));
    return e.exitCode;
  }
  process.stderr.write(`joinlab: internal error (please report): ${(e as Error)?.stack ?? String(e)}\n`);
  return 1;
}
