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
 */
import { rmSync } from 'node:fs';

const tracked = new Set<string>();
let exitHookInstalled = false;

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
