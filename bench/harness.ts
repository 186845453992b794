/**
 * Side-by-side measurement: each benchmark case runs joinlab's real operator and DuckDB
 * (`threads=1`) on the same data in this one process, through tinybench, and reports both
 * medians and their ratio (joinlab / DuckDB; below 1 means joinlab was faster).
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
}

export interface BenchCase {
  readonly name: string;
  /** Runs the joinlab operator once; returns its output row count (or aggregate row count). */
  joinlab(): Promise<number>;
  /** Runs the equivalent DuckDB query once; returns its row count. */
  duckdb(): Promise<number>;
  /** Facts about the last joinlab run, reported beside the timing. */
  notes?(): string;
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
  const bench = new Bench({ iterations: o.iterations, warmupIterations: o.warmupIterations, time: o.time, warmupTime: 0 });
  bench.add('joinlab', async () => {
    joinlabRows = await c.joinlab();
  });
  bench.add('duckdb', async () => {
    duckdbRows = await c.duckdb();
  });
  await bench.run();
  const [jl, dd] = bench.tasks.map((t) => {
    const r = t.result;
    if (r.state === 'errored') throw r.error;
    if (r.state !== 'completed') throw new Error(`benchmark task ${t.name} did not complete (${r.state})`);
    return r.latency.p50 ?? r.latency.mean;
  });
  const notes = c.notes?.();
  return { name: c.name, joinlabMs: round(jl!), duckdbMs: round(dd!), ratio: round(jl! / dd!), joinlabRows, duckdbRows, ...(notes ? { notes } : {}) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
