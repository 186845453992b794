/**
 * Side-by-side measurement: each benchmark case runs joinlab's real operator and DuckDB at the
 * same thread count (`--threads`, default 1) on the same data in this one process, through
 * tinybench, and reports both medians and their ratio (joinlab / DuckDB; below 1 means joinlab
 * was faster). A case may add a peer engine measured on its own (Polars, in a child process:
 * its thread count is fixed per process), reported as `peerMs` and `peerRatio`.
 *
 * Timings live here and in `npm run bench` output only — never as assertions in unit tests.
 */
import { Bench } from 'tinybench';

export interface CaseResult {
  name: string;
  joinlabMs: number;
  duckdbMs: number;
  ratio: number;
  /** Output rows of each side, so a benchmark that computes the wrong thing is visible. */
  joinlabRows: number;
  duckdbRows: number;
  /** What the case wants said beside the timing (e.g. containers pruned). */
  notes?: string;
  /** A case that compares two joinlab strategies: the other one's name, median and rows. */
  baselineName?: string;
  baselineMs?: number;
  baselineRows?: number;
  /** baselineMs / joinlabMs: above 1 means the case's strategy beat its baseline. */
  speedup?: number;
  /** A third engine on the same data (`BenchCase.peer`): its name, median, rows, and joinlab / peer. */
  peerName?: string;
  peerMs?: number;
  peerRows?: number;
  peerRatio?: number;
  /** The case's own facts (`BenchCase.facts`: memory, spill, work counters), as extra fields. */
  [fact: string]: number | string | undefined;
}

/** Facts a case reports beside its timings (JSON fields of its result). */
export type CaseFacts = Readonly<Record<string, number | string>>;

export interface BenchCase {
  readonly name: string;
  /** Runs the joinlab operator once; returns its output row count (or aggregate row count). */
  joinlab(): Promise<number>;
  /** Runs the equivalent DuckDB query once; returns its row count. */
  duckdb(): Promise<number>;
  /** Facts about the last joinlab run, reported beside the timing. */
  notes?(): string;
  /**
   * A second joinlab strategy the case's own is measured against (e.g. `smj.existence=materializing`
   * vs `bitwise`, the hash join vs the sort-merge join): timed like the two sides, reported as
   * `baselineMs` and `speedup = baselineMs / joinlabMs`.
   */
  baseline?: { readonly name: string; run(): Promise<number> };
  /** Facts about the last runs (memory, spill, counters), merged into the case's JSON result. */
  facts?(): CaseFacts;
  /**
   * Timed and warm-up iterations for a case too slow for the suite's (e.g. a spilling join): at most
   * these many (`--iterations` still caps them), and no untimed round before the suite's cases.
   */
  iterations?: { readonly timed: number; readonly warmup: number };
  /**
   * Another engine's median on the same question, measured by the suite beforehand (e.g. Polars in a
   * child process, alone on the machine): reported beside DuckDB as `peerMs` and `peerRatio`.
   */
  peer?: { readonly name: string; readonly ms: number; readonly rows: number };
  /** Releases what the case holds beyond the suite's DuckDB session (e.g. a session of its own), once measured. */
  close?(): Promise<void>;
  /** The case cannot run here (the reason): the suite lists it as skipped instead of timing it. */
  skipped?: string;
}

/** What `npm run bench` tells every suite besides the overrides. */
export interface SuiteOptions {
  /** The thread count of this round: DuckDB's (`SET threads`), joinlab's (`threads` in the overrides) and any peer's. */
  readonly threads: number;
  /** `--rows`: the data size of a suite that takes one (h2o), instead of `--scale`. */
  readonly rows?: number;
}

/** The round's thread count, for a suite that opens a DuckDB session of its own. */
export function suiteThreads(overrides: SuiteOverrides): number {
  return Number(overrides['threads'] ?? 1);
}

/** `--set` overrides of joinlab's config (flat keys), applied to every engine a suite creates. */
export type SuiteOverrides = Readonly<Record<string, unknown>>;

/**
 * A case's engine config: the suite's own keys over the user's overrides. Overriding a key the suite
 * varies itself would make its case names lie, so that is refused.
 */
export function caseConfig(own: Readonly<Record<string, unknown>>, overrides: SuiteOverrides): Record<string, unknown> {
  const clash = Object.keys(own).filter((k) => k in overrides);
  if (clash.length > 0) throw new Error(`this suite sets ${clash.map((k) => `'${k}'`).join(', ')} itself: it cannot be overridden with --set`);
  return { ...overrides, ...own };
}

export interface MeasureOptions {
  iterations: number;
  warmupIterations: number;
  /** Time budget per task, in ms. */
  time: number;
}

export async function measureCase(c: BenchCase, o: MeasureOptions): Promise<CaseResult> {
  let joinlabRows = -1;
  let duckdbRows = -1;
  let baselineRows = -1;
  const iterations = c.iterations ? Math.min(o.iterations, c.iterations.timed) : o.iterations;
  const warmupIterations = c.iterations ? Math.min(o.warmupIterations, c.iterations.warmup) : o.warmupIterations;
  const bench = new Bench({ iterations, warmupIterations, warmup: warmupIterations > 0, time: o.time, warmupTime: 0 });
  bench.add('joinlab', async () => {
    joinlabRows = await c.joinlab();
  });
  bench.add('duckdb', async () => {
    duckdbRows = await c.duckdb();
  });
  if (c.baseline) {
    const run = c.baseline.run;
    bench.add('baseline', async () => {
      baselineRows = await run();
    });
  }
  await bench.run();
  const [jl, dd, bl] = bench.tasks.map((t) => {
    const r = t.result;
    if (r.state === 'errored') throw r.error;
    if (r.state !== 'completed') throw new Error(`benchmark task ${t.name} did not complete (${r.state})`);
    return r.latency.p50 ?? r.latency.mean;
  });
  const notes = c.notes?.();
  const result: CaseResult = { name: c.name, joinlabMs: round(jl!), duckdbMs: round(dd!), ratio: round(jl! / dd!), joinlabRows, duckdbRows, ...(notes ? { notes } : {}) };
  if (c.baseline) Object.assign(result, { baselineName: c.baseline.name, baselineMs: round(bl!), baselineRows, speedup: round(bl! / jl!) });
  if (c.peer) Object.assign(result, { peerName: c.peer.name, peerMs: round(c.peer.ms), peerRows: c.peer.rows, peerRatio: round(jl! / c.peer.ms) });
  return { ...result, ...c.facts?.() };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
