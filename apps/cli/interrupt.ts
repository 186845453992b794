/**
 * SIGINT / SIGTERM for the `joinlab` process: stop the work, remove its temporary files, say so in
 * one line, exit 130 / 143 (128 + the signal number, what a shell reports for a killed command).
 *
 * Why not Node's default: it exits at once and runs no JavaScript, so a `.x.parquet.tmp-<pid>-…`
 * being written or a spill directory would stay behind. Why not only an 'exit' hook: a signal
 * does not fire 'exit'.
 *
 * First signal: the shutdown begins (core/cleanup.ts `beginShutdown`: no temp file is created or
 * renamed into place from now on), every tracked temp path is removed, and the AbortController
 * whose signal the commands pass down (`Engine.join(…, { signal })`, `Engine.sql`, an experiment's
 * runs) is aborted. The command then unwinds; when it has (`settled`), or after `graceMs` if it does
 * not listen to the signal (a DuckDB query outside an experiment, data being generated), the tracked
 * paths are removed again (anything created meanwhile), one line `joinlab: interrupted (SIGINT),
 * temporary files removed` goes to stderr and the process exits. A second signal skips the wait:
 * clean, print, exit.
 *
 * A handler only runs when the event loop gets a turn: under a signal every operator gives it one
 * at most every 20 ms (docs/cancellation.md), so a long in-memory join does not hold a signal off
 * until it ends — which is why every command must pass `signal` on (without one nothing paces).
 *
 * Only the real process installs this (bin/joinlab.mjs through `main(argv, { signals: true })`);
 * in-process callers of `main` (tests) keep their own signal handling.
 */
import { beginShutdown, removeTrackedPathsSync } from '../../core/cleanup.ts';
import { CancelledError } from '../../core/errors.ts';

/** Exit code per handled signal: 128 + signal number. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
export type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;

export interface InterruptOptions {
  /** How long the first signal waits for the command to unwind (default 2000 ms). */
  readonly graceMs?: number;
  readonly exit?: (code: number) => void;
  readonly write?: (line: string) => void;
}

export interface Interrupts {
  /** Aborted (reason: CancelledError) on the first signal. */
  readonly signal: AbortSignal;
  /** The signal received, or null. */
  received(): HandledSignal | null;
  /** The command has finished or failed: after a signal, finish the shutdown now. */
  settled(): void;
  /** Removes the handlers (a run that ended without a signal). */
  dispose(): void;
}

export function handleInterrupts(options: InterruptOptions = {}): Interrupts {
  const graceMs = options.graceMs ?? 2000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const controller = new AbortController();
  let received: HandledSignal | null = null;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;

  const finish = () => {
    if (finished || received === null) return;
    finished = true;
    clearTimeout(timer);
    removeTrackedPathsSync();
    write(`joinlab: interrupted (${received}), temporary files removed\n`);
    exit(SIGNAL_EXIT_CODES[received]);
  };

  const onSignal = (sig: HandledSignal) => {
    if (received !== null) return finish(); // the second signal: no more waiting
    received = sig;
    beginShutdown();
    removeTrackedPathsSync();
    controller.abort(new CancelledError(`interrupted (${sig})`));
    timer = setTimeout(finish, graceMs);
  };
  const onInt = () => onSignal('SIGINT');
  const onTerm = () => onSignal('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);

  return {
    signal: controller.signal,
    received: () => received,
    settled: () => {
      if (received !== null) finish();
    },
    dispose: () => {
      if (received !== null) return; // a shutdown in progress keeps its handlers until it exits
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/**
 * A reader that went away (`joinlab join … | head -1` closes the pipe after one line): Node then
 * raises EPIPE as an unhandled 'error' event on stdout, a crash with a stack trace. The reader has
 * what it wanted, so this stops the run the quiet way: temporary files removed, exit 0 — what a
 * Unix tool killed by SIGPIPE looks like to a pipeline without `pipefail`. Any other stdout error
 * is reported in the usual one line (exit 2).
 */
export function handleBrokenPipe(stream: NodeJS.WriteStream = process.stdout, exit: (code: number) => void = (c) => process.exit(c)): () => void {
  const onError = (e: NodeJS.ErrnoException) => {
    beginShutdown();
    removeTrackedPathsSync();
    if (e.code !== 'EPIPE') process.stderr.write(`joinlab: cannot write to stdout: ${e.message}\n`);
    exit(e.code === 'EPIPE' ? 0 : 2);
  };
  stream.on('error', onError);
  return () => stream.off('error', onError);
}
