/**
 * The contract of work that runs on worker threads (slot `worker-task`).
 *
 * A worker thread is a second registry: it loads the same extensions as the engine that started
 * it (built-ins first, then the configured ones), so a task — and every strategy a task resolves
 * (a user's hash-map layout, a policy) — is found by name there exactly as on the main thread.
 * An operator that has a parallel phase registers a `WorkerTask` in its extension; the main
 * thread opens a *session* of it on every worker of the pool (`WorkerPool.open`) with an init
 * message — typically shared memory: a built hash table, the build rows — then submits inputs
 * (morsels), each run by whichever worker is free, and finally closes the session, collecting one
 * close reply per worker (e.g. its share of the build rows' match bits).
 *
 * Replies carry plain data and typed arrays; `transfer` lists the `ArrayBuffer`s to move rather
 * than copy (the worker must not touch them afterwards). A thrown error reaches the caller as the
 * same typed error (core/parallel/errors.ts).
 */
import type { Registry, Strategy } from '../registry/registry.ts';

export interface TaskReply {
  readonly value: unknown;
  readonly transfer?: readonly ArrayBuffer[];
}

/** What a worker offers the tasks it runs. */
export interface WorkerEnv {
  /** The worker's registry: the engine's extensions, loaded in this thread. */
  readonly registry: Registry;
  /** 0 .. pool size - 1. */
  readonly workerIndex: number;
}

/** One task's state on one worker, from `open` to `close`. */
export interface WorkerSession {
  run(input: unknown): TaskReply | Promise<TaskReply>;
  /** The session ends on this worker: release what it holds and report (once). */
  close(): TaskReply | Promise<TaskReply>;
}

export interface WorkerTask extends Strategy {
  open(init: unknown, env: WorkerEnv): WorkerSession | Promise<WorkerSession>;
}

/** A reply with nothing to transfer. */
export function reply(value: unknown, transfer?: readonly ArrayBuffer[]): TaskReply {
  return transfer === undefined ? { value } : { value, transfer };
}
