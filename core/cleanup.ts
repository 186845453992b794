/**
 * Temporary paths a run must not leave behind: spill directories and the `.tmp-` files of atomic
 * output writes. Whoever creates one registers it here and unregisters it once it has been removed
 * or renamed into place; `removeTrackedPathsSync` removes whatever is still registered.
 *
 * Why one registry: a process can end in three ways besides returning normally — an error
 * (handled where the path was made: every creator removes its own path in a `finally`), a normal
 * exit with work still pending (the 'exit' hook below), and a signal (SIGINT/SIGTERM: the CLI's
 * handler calls `removeTrackedPathsSync` before exiting). All three need the same list. SIGKILL
 * runs nothing: such leftovers carry the pid in their names (`joinlab-spill-<pid>-…`,
 * `.<name>.tmp-<pid>-…`) so a later run can tell a dead process's files from a live one's.
 *
 * Removal is synchronous on purpose: 'exit' handlers and a signal handler about to exit cannot
 * await.
 *
 * Shutting down: once a signal handler calls `beginShutdown`, a write that is still running must
 * not finish by renaming its temp file into place (the user asked for the run to stop; an output
 * appearing after "interrupted" would be a lie). adapters/io/atomic.ts asks `isShuttingDown()`
 * before it creates a temp file and again before the rename.
 *
 * Leftover names: `parseLeftoverName` recognises the two names above and returns the pid in them;
 * it is what `joinlab clean` uses to find the files of processes that no longer run. It lives here,
 * beside the registry, so the producers (atomic.ts `tempPathFor`, memory/spill.ts) and the
 * cleaner agree on one definition.
 */
import { rmSync } from 'node:fs';

const tracked = new Set<string>();
let exitHookInstalled = false;
let shuttingDown = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => removeTrackedPathsSync());
}

/** Registers a file or directory to remove if the process ends before `untrackTempPath`. */
export function trackTempPath(path: string): void {
  installExitHook();
  tracked.add(path);
}

/** The path was removed or renamed into place by its owner: nothing to clean up any more. */
export function untrackTempPath(path: string): void {
  tracked.delete(path);
}

/** The paths currently registered (for tests and diagnostics). */
export function trackedTempPaths(): readonly string[] {
  return [...tracked];
}

/** Removes every registered path (recursively, ignoring ones already gone); returns how many. */
export function removeTrackedPathsSync(): number {
  let n = 0;
  for (const p of tracked) {
    try {
      rmSync(p, { recursive: true, force: true });
      n++;
    } catch {
      // best effort: the process is ending
    }
  }
  tracked.clear();
  return n;
}

/** The process is stopping on a signal: no temp file may be created or renamed into place. */
export function beginShutdown(): void {
  shuttingDown = true;
}

export function isShuttingDown(): boolean {
  return shuttingDown;
}

/** Undoes `beginShutdown` (tests only: a real shutdown ends with the process). */
export function cancelShutdownForTests(): void {
  shuttingDown = false;
}

/** What a leftover is: an atomic write's temp file, or a spill directory. */
export type LeftoverKind = 'temp-file' | 'spill-dir';

/** `.<name>.tmp-<pid>-<hex>` (adapters/io/atomic.ts `tempPathFor`). */
const TEMP_FILE = /^\..+\.tmp-(\d+)-[0-9a-f]+$/;
/** `joinlab-spill-<pid>-<random>` (core/memory/spill.ts, made by mkdtemp). */
const SPILL_DIR = /^joinlab-spill-(\d+)-[A-Za-z0-9]+$/;

/** The kind and pid a leftover's file name carries, or null for any other name. */
export function parseLeftoverName(name: string): { kind: LeftoverKind; pid: number } | null {
  const t = TEMP_FILE.exec(name);
  if (t) return { kind: 'temp-file', pid: Number(t[1]) };
  const s = SPILL_DIR.exec(name);
  if (s) return { kind: 'spill-dir', pid: Number(s[1]) };
  return null;
}
