/**
 * A pool of worker threads that run registered `WorkerTask`s (task.ts), morsel by morsel.
 *
 * Pools are process-wide and kept warm: starting a worker costs a thread, an isolate and loading
 * the code (docs/threads.md has the figures: ~0.1–0.2 s a worker from the compiled bundle,
 * worker-code.ts; 1–2 s through tsx), which a query of a few hundred milliseconds cannot pay each
 * time. `WorkerPool.get(size, extensions, baseDir)` returns the pool of that shape and starts
 * nothing: the threads start on the first `ready()` or `open()`, which an operator calls only for
 * work large enough to repay them (core/parallel/threshold.ts) — so a query whose joins are all
 * small never starts a thread, and every later join and query of the process reuses the pool the
 * first one started. Idle workers are `unref`'d, so a pool never keeps the process alive, and are
 * `ref`'d while they owe an answer (a pending promise alone does not keep Node's event loop
 * running).
 *
 * Scheduling is morsel-driven, the way DuckDB's and Velox's task queues are: a session is opened
 * on every worker, and each submitted input goes to the worker with the fewest unanswered
 * requests — so a worker that finishes early takes the next morsel, and the caller bounds the
 * work in flight (`PoolSession.map`). Answers come back in completion order.
 *
 * Failure: a task's error comes back as the same typed error (errors.ts) and rejects its submit.
 * A worker that dies (an uncaught error, an out-of-memory abort, `terminate`) rejects everything it
 * owed and is replaced on the next `open`. Cancellation is the caller's: it stops submitting,
 * closes the session (each worker finishes at most the morsel it is on, then drops the session's
 * state), and the pool stays warm for the next query.
 */
import { Worker } from 'node:worker_threads';
import { CancelledError } from '../errors.ts';
import { decodeError } from './errors.ts';
import type { InitMessage, Request, Response } from './protocol.ts';
import { workerCode, type WorkerCode, type WorkerCodeMode } from './worker-code.ts';

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** One worker thread and what it owes. */
class PoolWorker {
  readonly thread: Worker;
  readonly ready: Promise<void>;
  readonly #pending = new Map<number, Pending>();
  #dead: Error | null = null;

  constructor(
    readonly index: number,
    init: Omit<InitMessage, 'op' | 'workerIndex'>,
    code: WorkerCode,
  ) {
    this.thread = new Worker(ENTRY, { workerData: { code: code.kind === 'bundle' ? code.url : null } });
    this.thread.unref();
    let settle: Pending;
    this.ready = new Promise<void>((resolve, reject) => (settle = { resolve: () => resolve(), reject }));
    // a rejected `ready` that nobody awaits yet must not become an unhandled rejection
    this.ready.catch(() => {});
    this.thread.ref(); // until it is ready
    this.thread.on('message', (m: Response) => {
      if (m.op === 'ready') {
        this.#idle();
        settle.resolve(undefined);
      } else if (m.op === 'init-failed') {
        this.#kill(decodeError(m.error));
        settle.reject(decodeError(m.error));
      } else {
        const p = this.#pending.get(m.id);
        if (p === undefined) return;
        this.#pending.delete(m.id);
        this.#idle();
        if (m.op === 'done') p.resolve(m.value);
        else p.reject(decodeError(m.error));
      }
    });
    this.thread.on('error', (e) => {
      this.#kill(new Error(`worker thread ${index} failed: ${e.message}`, { cause: e }));
      settle.reject(this.#dead);
    });
    this.thread.on('exit', (code) => {
      this.#kill(new Error(`worker thread ${index} exited (code ${code})`));
      settle.reject(this.#dead);
    });
    const msg: InitMessage = { op: 'init', workerIndex: index, ...init };
    this.thread.postMessage(msg);
  }

  get alive(): boolean {
    return this.#dead === null;
  }

  get load(): number {
    return this.#pending.size;
  }

  request(r: Request, transfer?: readonly ArrayBuffer[]): Promise<unknown> {
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise((resolve, reject) => {
      this.#pending.set(r.id, { resolve, reject });
      if (this.#pending.size === 1) this.thread.ref();
      this.thread.postMessage(r, transfer as ArrayBuffer[] | undefined);
    });
  }

  #idle(): void {
    if (this.#pending.size === 0) this.thread.unref();
  }

  #kill(e: Error): void {
    if (this.#dead) return;
    this.#dead = e;
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
    this.thread.unref();
  }

  terminate(): Promise<number> {
    this.#kill(new CancelledError('worker pool closed'));
    return this.thread.terminate();
  }
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/** How a pool's workers came up: the code they load and how long until all were ready. */
export interface PoolStartup {
  readonly code: WorkerCode;
  /** From the first `ready()` to every worker ready (the code's cache check or build included). */
  readonly ms: number;
}

let nextId = 1;
let nextSession = 1;
const POOLS = new Map<string, WorkerPool>();

export class WorkerPool {
  #workers: PoolWorker[] = [];
  readonly #init: Omit<InitMessage, 'op' | 'workerIndex'>;
  readonly #mode: WorkerCodeMode;
  #started: Promise<void> | null = null;
  #code: WorkerCode | null = null;
  #startup: PoolStartup | null = null;
  #closed = false;
  /** The engines that use this pool (`hold`); the last one's `release` closes it. */
  readonly #holders = new Set<object>();

  private constructor(
    readonly size: number,
    init: Omit<InitMessage, 'op' | 'workerIndex'>,
    mode: WorkerCodeMode,
  ) {
    this.#init = init;
    this.#mode = mode;
  }

  /**
   * The process's pool of `size` workers loading `extensions` (nothing starts until `ready` or
   * `open`). `code`: what the workers load (worker-code.ts; `bundle` unless asked otherwise).
   */
  static get(size: number, extensions: readonly string[], baseDir: string, code: WorkerCodeMode = 'bundle'): WorkerPool {
    const key = JSON.stringify([size, extensions, baseDir, code]);
    let pool = POOLS.get(key);
    if (pool === undefined || pool.#closed) POOLS.set(key, (pool = new WorkerPool(size, { extensions, baseDir }, code)));
    return pool;
  }

  /** Marks `owner` (an engine) as a user of this pool; idempotent. */
  hold(owner: object): this {
    this.#holders.add(owner);
    return this;
  }

  /**
   * `owner` no longer uses this pool: when no holder is left, the pool closes (its threads end).
   * So an engine's `close()` never ends a parallel query another engine of the same shape — which
   * shares this pool — has running.
   */
  async release(owner: object): Promise<void> {
    if (!this.#holders.delete(owner) || this.#holders.size > 0) return;
    await this.close();
  }

  /** Terminates every pool of the process (tests; a long-running host that wants its threads back). */
  static async closeAll(): Promise<void> {
    const pools = [...POOLS.values()];
    POOLS.clear();
    await Promise.all(pools.map((p) => p.close()));
  }

  /** Whether the threads were started (by a `ready` or an `open`). */
  get started(): boolean {
    return this.#started !== null;
  }

  /** Once every worker first came up: the code they load and how long it took; else null. */
  get startup(): PoolStartup | null {
    return this.#startup;
  }

  /** Starts the threads on the first call; resolves once every worker has its extensions loaded (the first failure otherwise). */
  async ready(): Promise<void> {
    if (this.#closed) throw new CancelledError('worker pool closed');
    if (this.#started === null) {
      const t = performance.now();
      this.#started = this.#start();
      await this.#started;
      await Promise.all(this.#workers.map((w) => w.ready));
      this.#startup = { code: this.#code!, ms: performance.now() - t };
      return;
    }
    await this.#started;
    this.#replaceDead();
    await Promise.all(this.#workers.map((w) => w.ready));
  }

  async #start(): Promise<void> {
    const code = await workerCode(this.#init.extensions, this.#init.baseDir, { mode: this.#mode });
    this.#code = code;
    if (this.#closed) throw new CancelledError('worker pool closed');
    this.#workers = Array.from({ length: this.size }, (_, i) => new PoolWorker(i, this.#init, code));
  }

  /**
   * Opens a session of `task` on every worker with the same `init` (shared memory crosses as
   * is; other arrays are copied per worker). Resolves once every worker has opened it.
   */
  async open(task: string, init: unknown): Promise<PoolSession> {
    if (this.#closed) throw new CancelledError('worker pool closed');
    await this.ready();
    const session = nextSession++;
    const workers = [...this.#workers];
    const opened = await Promise.allSettled(workers.map((w) => w.request({ op: 'open', id: nextId++, session, task, init })));
    const failed = opened.find((r) => r.status === 'rejected');
    const s = new PoolSession(session, workers);
    if (failed) {
      await s.close().catch(() => {});
      throw failed.reason;
    }
    return s;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#started?.catch(() => {});
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  #replaceDead(): void {
    for (let i = 0; i < this.#workers.length; i++) if (!this.#workers[i]!.alive) this.#workers[i] = new PoolWorker(i, this.#init, this.#code!);
  }
}

/** One task's session across the pool's workers. */
export class PoolSession {
  #closed: Promise<unknown[]> | null = null;

  constructor(
    readonly id: number,
    readonly workers: readonly PoolWorker[],
  ) {}

  /** Runs `input` on the least-loaded worker (or on worker `to`); resolves to its reply's value. */
  submit(input: unknown, transfer?: readonly ArrayBuffer[], to?: number): Promise<unknown> {
    if (this.#closed) return Promise.reject(new CancelledError('session closed'));
    let w = this.workers[0]!;
    if (to !== undefined) w = this.workers[to]!;
    else for (const x of this.workers) if (x.alive && (x.load < w.load || !w.alive)) w = x;
    return w.request({ op: 'run', id: nextId++, session: this.id, input }, transfer);
  }

  /**
   * Runs every input, at most `inFlight` per worker at a time, yielding values in completion
   * order. Stops submitting on the first error (rethrown once the inputs already submitted have
   * settled, so no worker still works for a consumer that is gone) or when `signal` aborts.
   */
  async *map<T>(
    inputs: AsyncIterable<{ input: unknown; transfer?: readonly ArrayBuffer[] }>,
    options: {
      inFlight?: number;
      signal?: AbortSignal;
      /** A follow-up request a reply asks for (the rest of its output), run by the worker named. */
      followUp?: (value: T) => { readonly worker: number; readonly input: unknown } | null;
    } = {},
  ): AsyncGenerator<T> {
    const limit = (options.inFlight ?? 2) * this.workers.length;
    const running = new Map<number, Promise<{ k: number; ok: boolean; value: unknown }>>();
    let k = 0;
    let failure: { error: unknown } | null = null;
    const iterator = inputs[Symbol.asyncIterator]();
    let exhausted = false;
    try {
      while (true) {
        while (!exhausted && failure === null && running.size < limit) {
          if (options.signal?.aborted) throw options.signal.reason ?? new CancelledError('cancelled');
          const next = await iterator.next();
          if (next.done) {
            exhausted = true;
            break;
          }
          const id = k++;
          running.set(
            id,
            this.submit(next.value.input, next.value.transfer).then(
              (value) => ({ k: id, ok: true, value }),
              (error) => ({ k: id, ok: false, value: error }),
            ),
          );
        }
        if (running.size === 0) break;
        const done = await Promise.race(running.values());
        running.delete(done.k);
        if (!done.ok) failure ??= { error: done.value };
        else if (failure === null) {
          const follow = options.followUp?.(done.value as T) ?? null;
          if (follow !== null) {
            const id = k++;
            running.set(
              id,
              this.submit(follow.input, undefined, follow.worker).then(
                (value) => ({ k: id, ok: true, value }),
                (error) => ({ k: id, ok: false, value: error }),
              ),
            );
          }
          yield done.value as T;
        }
        if (failure !== null && running.size === 0) throw failure.error;
      }
    } finally {
      // a consumer that stopped early (or an error): let what is running settle, drop the inputs
      await Promise.allSettled(running.values());
      if (!exhausted) await iterator.return?.();
    }
  }

  /** Closes the session on every worker; their close replies, by worker (once). */
  close(): Promise<unknown[]> {
    this.#closed ??= Promise.all(this.workers.map((w) => (w.alive ? w.request({ op: 'close', id: nextId++, session: this.id }) : Promise.resolve(null))));
    return this.#closed;
  }
}
