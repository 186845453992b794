/**
 * The messages between the main thread and a worker (core/parallel/worker-pool.ts,
 * worker-main.ts). Every request that expects an answer carries an `id` the answer repeats; a
 * session id names one task's state on the worker from `open` to `close`.
 */
import type { ErrorWire } from './errors.ts';

export interface InitMessage {
  readonly op: 'init';
  /** Extension specifiers, in load order (the engine's runtime's, then the configured ones). */
  readonly extensions: readonly string[];
  readonly baseDir: string;
  readonly workerIndex: number;
}

export type Request =
  | { readonly op: 'open'; readonly id: number; readonly session: number; readonly task: string; readonly init: unknown }
  | { readonly op: 'run'; readonly id: number; readonly session: number; readonly input: unknown }
  | { readonly op: 'close'; readonly id: number; readonly session: number };

export type Response =
  | { readonly op: 'ready' }
  | { readonly op: 'init-failed'; readonly error: ErrorWire }
  | { readonly op: 'done'; readonly id: number; readonly value: unknown }
  | { readonly op: 'failed'; readonly id: number; readonly error: ErrorWire };
