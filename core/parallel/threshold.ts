/**
 * Whether an operator's parallel phase runs on the worker pool: only for work large enough to
 * repay what the workers cost, decided from the rows the phase is estimated to read (a scan's
 * `estimatedRows`: its containers that the static predicates and any published dynamic filter
 * cannot rule out, by their statistics).
 *
 * Two costs, two thresholds (config; docs/threads.md has the measurements behind the defaults):
 * - A pool not started yet must first start its threads: each a thread, an isolate and the
 *   worker code (~0.3 s of CPU a worker from the compiled bundle on the measured VM, more through
 *   tsx) — paid once per process, by the first operator that uses it. That operator needs at least
 *   `parallel.minStartRows` rows for the time the workers save to exceed it.
 * - A pool already started (by an earlier join of the query, an earlier query of the process, a
 *   warm-up run) costs only the hand-over: a session opened on every worker, a message, a decode
 *   and a reply per morsel. Below `parallel.minProbeRows` rows that is more than the work saved.
 * So in a one-off run only large work starts workers, and once started they serve every later
 * join and query of the process (WorkerPool.get returns the same pool).
 *
 * A pool counts as started from the first `ready()`/`open()` on, while its threads are still
 * coming up too: that cost is being paid already.
 */
import type { Config } from '../config/schema.ts';
import type { WorkerPool } from './worker-pool.ts';

export interface WorkerChoice {
  /** The pool to run on, or null: the calling thread. */
  readonly pool: WorkerPool | null;
  /** Why not, when there are workers but they are not used (the `1 (why)` of `details.threads`). */
  readonly why: string | null;
}

/**
 * The workers to use for work reading an estimated `rows` rows (`what` names it in the reason:
 * `probe input`, `streamed input`, `left input`, …), or the reason to stay on the calling thread.
 */
export function chooseWorkers(workers: WorkerPool | null | undefined, rows: number, config: Config, what: string): WorkerChoice {
  if (workers == null) return { pool: null, why: null };
  const warm = config['parallel.minProbeRows'];
  if (rows < warm) return { pool: null, why: `${what} of ${rows} estimated rows, below parallel.minProbeRows=${warm}` };
  const cold = config['parallel.minStartRows'];
  if (!workers.started && rows < cold) {
    return { pool: null, why: `${what} of ${rows} estimated rows, below parallel.minStartRows=${cold} to start the worker pool` };
  }
  return { pool: workers, why: null };
}

/** `details.threads`: the workers' count, `1` without workers, or `1 (why)`. */
export function threadsDetail(workers: WorkerPool | null | undefined, choice: WorkerChoice): string {
  if (choice.pool !== null) return String(choice.pool.size);
  return workers == null || choice.why === null ? '1' : `1 (${choice.why})`;
}

/** `details.workerStart` of the operator that started the pool: what the workers loaded, and how long until all were ready. */
export function startupDetail(pool: WorkerPool): string {
  const s = pool.startup;
  if (s === null) return 'not ready';
  const code = s.code.kind === 'bundle' ? `compiled bundle${s.code.built ? ' (built now)' : ''}` : `TypeScript sources (${s.code.reason})`;
  return `${pool.size} workers from the ${code} in ${Math.round(s.ms)} ms`;
}
