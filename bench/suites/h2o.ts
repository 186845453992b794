/**
 * `h2o` suite: the h2o.ai db-benchmark join task (issue 15), joinlab beside DuckDB and Polars.
 *
 * Data: the `h2o` generator (apps/experiments/generators.ts: the rules of the benchmark's
 * `_data/join-datagen.R`), `--rows` N (default 1e7: x and big 10M rows, medium 10K, small 10),
 * written once by DuckDB as Parquet and cached under `os.tmpdir()/joinlab-data/h2o-<hash>/` (with
 * joinlab's decoded Arrow copy of each file beside it, so later runs start in seconds).
 *
 * Each question (h2o-questions.ts), at each `--threads` count (default 1 and 2):
 * - DuckDB, `SET threads = t`, on tables loaded into its memory from the files: the benchmark's
 *   `CREATE TEMP TABLE ans AS …`, then `SELECT count(*), SUM(v1), SUM(v2) FROM ans`;
 * - joinlab, config `threads = t` and otherwise the defaults (as a new user would run it), on the
 *   files read into Arrow tables in memory: `engine.join(…)` into an Arrow table, then the same
 *   count and sums over it;
 * - Polars (`nodejs-polars`, `POLARS_MAX_THREADS = t`, in a child process of its own since the
 *   thread count is fixed when Polars starts: bench/peers/polars-h2o.ts), on the same files read
 *   into memory: `x.join(rhs, { on, how })` and the same sums. It runs before the other two, alone.
 * Every answer (row count, both sums to 1e-9 relative) is checked against DuckDB's, computed once
 * at setup: a wrong answer stops the suite. Facts: joinlab's peak reserved memory and the
 * thread count its join ran with (`details.threads`: `1 (reason)` when it stayed serial) and how
 * it gathered the build side (`details.payloadLayout`). `H2O_QUESTIONS=q1,q5` picks questions.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Table } from 'apache-arrow';
import { Engine } from '../../composition.ts';
import type { DuckDBSession } from '../../adapters/duckdb/session.ts';
import { generateTables } from '../../apps/experiments/generators.ts';
import type { GeneratedDataSpec } from '../../apps/experiments/schema.ts';
import { readTable, writeTable } from '../../adapters/io/index.ts';
import { caseConfig, type BenchCase, type SuiteOptions, type SuiteOverrides } from '../harness.ts';
import { H2O_QUESTIONS, type H2oQuestion } from './h2o-questions.ts';

const TABLES = ['x', 'small', 'medium', 'big'] as const;
type TableName = (typeof TABLES)[number];
const ITERATIONS = { timed: 3, warmup: 1 } as const;
const RESULT = '__h2o_ans';

export interface H2oAnswer {
  readonly rows: number;
  readonly v1: number;
  readonly v2: number;
}

/** The files, written or found in the cache (seed 108, as the R generator's `set.seed(108)`). */
export async function h2oFiles(duck: DuckDBSession, rows: number, root?: string): Promise<Record<TableName, string>> {
  const spec = { kind: 'generator', generator: 'h2o', params: { rows }, seed: 108, rowGroupSize: 122_880 } as GeneratedDataSpec;
  const g = await generateTables(duck, spec, root === undefined ? {} : { root });
  return Object.fromEntries(TABLES.map((t) => [t, g.tables[t]!.path])) as Record<TableName, string>;
}

/** Count and the sums of `v1` and `v2` over an Arrow table (NULLs skipped, as SQL's SUM does). */
export function checkSums(table: Table): H2oAnswer {
  return { rows: table.numRows, v1: sumColumn(table, 'v1'), v2: sumColumn(table, 'v2') };
}

function sumColumn(table: Table, name: string): number {
  const column = table.getChild(name);
  if (!column) throw new Error(`h2o: the answer has no column '${name}'`);
  let sum = 0;
  for (const d of column.data) {
    const values = d.values as Float64Array;
    const valid = d.nullCount > 0 ? d.nullBitmap : null;
    const offset = d.offset;
    for (let i = 0; i < d.length; i++) {
      if (valid !== null && ((valid[(offset + i) >> 3]! >> ((offset + i) & 7)) & 1) === 0) continue;
      sum += values[i]!;
    }
  }
  return sum;
}

/** DuckDB's answer to a question, on the tables it holds. */
export async function duckdbAnswer(duck: DuckDBSession, q: H2oQuestion): Promise<H2oAnswer> {
  const [row] = await duck.queryRows(`SELECT count(*), SUM(v1), SUM(v2) FROM (${q.sql})`);
  return { rows: Number(row![0]), v1: Number(row![1]), v2: Number(row![2]) };
}

/** Throws when `got` is not `want` (rows exactly, sums to 1e-9 relative: the summation order differs). */
export function checkAnswer(engine: string, q: H2oQuestion, got: H2oAnswer, want: H2oAnswer): void {
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (got.rows === want.rows && close(got.v1, want.v1) && close(got.v2, want.v2)) return;
  throw new Error(`h2o ${q.name}: ${engine} answered ${JSON.stringify(got)}, DuckDB ${JSON.stringify(want)}`);
}

/** The joinlab join of a question, as a user of the library writes it. */
export function joinlabSpec(q: H2oQuestion) {
  return { type: q.type, on: `${q.key}=${q.key}`, select: q.select };
}

interface PeerTiming extends H2oAnswer {
  readonly question: string;
  readonly ms: number;
}

/** Runs the Polars peer at `threads` in a child process; null (with the reason) when it cannot run here. */
async function polarsTimings(files: Record<TableName, string>, threads: number): Promise<{ timings: Map<string, PeerTiming> } | { skipped: string }> {
  const here = dirname(fileURLToPath(import.meta.url));
  const runner = join(here, '..', '..', 'bin', 'run-ts.mjs');
  const script = join(here, '..', 'peers', 'polars-h2o.ts');
  const input = JSON.stringify({ files, iterations: ITERATIONS.timed, warmup: ITERATIONS.warmup });
  const child = spawn(process.execPath, [runner, script, input], { env: { ...process.env, POLARS_MAX_THREADS: String(threads) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) return { skipped: `the Polars peer failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' ')}` };
  const timings = new Map<string, PeerTiming>();
  for (const line of out.trim().split('\n')) {
    const t = JSON.parse(line) as PeerTiming;
    timings.set(t.question, t);
  }
  return { timings };
}

/**
 * The Parquet file as an Arrow table for joinlab: decoding 10M rows of strings takes minutes, so
 * the decoded table is kept beside the file as Arrow IPC (`<file>.arrow`, written atomically) and
 * read from there on later runs — buffers, no decoding.
 */
async function arrowTable(parquet: string, say: (text: string) => void): Promise<Table> {
  const ipc = `${parquet}.arrow`;
  if (existsSync(ipc)) return readTable(ipc);
  say(`decoding ${basename(parquet)} into Arrow for joinlab (once: kept as ${basename(ipc)})…`);
  const table = await readTable(parquet);
  await writeTable(ipc, table);
  return table;
}

/** Arrow tables per file, read once per process (both thread counts use the same tables). */
const arrowCache = new Map<string, Table>();
/** The DuckDB sessions (by identity) that already hold the tables of a data set (by x's path). */
const loaded = new WeakMap<DuckDBSession, string>();

export async function h2oCases(duck: DuckDBSession, _scale: number, overrides: SuiteOverrides, options: SuiteOptions): Promise<BenchCase[]> {
  const rows = options.rows ?? 10_000_000;
  const threads = options.threads;
  const say = (text: string) => process.stderr.write(`  h2o: ${text}\n`);
  const started = performance.now();
  say(`data for ${rows} rows (generated once, then cached)…`);
  const files = await h2oFiles(duck, rows);
  if (loaded.get(duck) !== files.x) {
    say('loading the files into DuckDB…');
    for (const t of TABLES) await duck.loadParquet(t, files[t]);
    loaded.set(duck, files.x);
  }
  const arrow = {} as Record<TableName, Table>;
  for (const t of TABLES) {
    if (!arrowCache.has(files[t])) arrowCache.set(files[t], await arrowTable(files[t], say));
    arrow[t] = arrowCache.get(files[t])!;
  }
  const expected = new Map<string, H2oAnswer>();
  say("DuckDB's answers (the check every run must pass)…");
  for (const q of H2O_QUESTIONS) expected.set(q.name, await duckdbAnswer(duck, q));

  say(`Polars at POLARS_MAX_THREADS=${threads}, in a child process (${ITERATIONS.warmup} warm-up + ${ITERATIONS.timed} timed runs per question)…`);
  const polars = await polarsTimings(files, threads);
  say(`ready in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const engine = await Engine.create(caseConfig({}, overrides));
  const size = rows >= 1e6 ? `${rows / 1e6}M` : `${rows}`;
  // `H2O_QUESTIONS=q1,q5` runs only those (Polars above still ran all five)
  const only = (process.env['H2O_QUESTIONS'] ?? '').split(',').map((w) => w.trim()).filter(Boolean);
  return H2O_QUESTIONS.filter((q) => only.length === 0 || only.includes(q.name)).map((q): BenchCase => {
    const want = expected.get(q.name)!;
    let peak = 0;
    let ranWith = '';
    let gathered = '';
    const peer = 'timings' in polars ? polars.timings.get(q.name) : undefined;
    if (peer) checkAnswer('Polars', q, peer, want);
    return {
      name: `${q.name} ${q.label} (x ${size} rows), threads=${threads}`,
      iterations: ITERATIONS,
      joinlab: async () => {
        const r = await engine.join(joinlabSpec(q), arrow.x, arrow[q.rhs]);
        const got = checkSums(r.table);
        checkAnswer('joinlab', q, got, want);
        peak = r.metrics.memory.peakReservedBytes;
        ranWith = String(r.metrics.operators.join?.details.threads ?? '1');
        gathered = String(r.metrics.operators.join?.details.payloadLayout ?? '');
        return got.rows;
      },
      duckdb: async () => {
        await duck.run(`CREATE OR REPLACE TEMP TABLE ${RESULT} AS ${q.sql}`);
        const [row] = await duck.queryRows(`SELECT count(*), SUM(v1), SUM(v2) FROM ${RESULT}`);
        return Number(row![0]);
      },
      ...(peer ? { peer: { name: 'polars', ms: peer.ms, rows: peer.rows } } : {}),
      ...('skipped' in polars ? { notes: () => `polars: ${polars.skipped}` } : {}),
      facts: () => ({ joinlabPeakMiB: Math.round(peak / 2 ** 20), joinlabThreads: ranWith, payloadLayout: gathered }),
      close: async () => {
        await duck.run(`DROP TABLE IF EXISTS ${RESULT}`);
      },
    };
  });
}
