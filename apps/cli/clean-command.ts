/**
 * `joinlab clean [DIR…] [--dry-run]`: remove what killed runs left behind.
 *
 * A run removes its own temporary paths when it ends, fails or gets SIGINT/SIGTERM
 * (core/cleanup.ts). SIGKILL (or a crash of the machine) runs nothing, so its atomic-write temp
 * files (`.<name>.tmp-<pid>-<hex>`, beside the output) and spill directories
 * (`joinlab-spill-<pid>-…`, under the temp directory) stay. Both names carry the pid of the process
 * that made them; a leftover is stale when that pid is not a running process
 * (`process.kill(pid, 0)` fails with ESRCH). Files of running processes — another joinlab writing
 * right now — are never touched; neither is anything whose name does not match exactly.
 *
 * Where it looks: each DIR given (default: the working directory; not recursive) plus the spill
 * parent, `os.tmpdir()`. It lists what it removes (or, with `--dry-run`, would remove) and ends
 * with a count. A DIR that does not exist or is not a directory is a usage error, before anything
 * is removed.
 *
 * Caveat, stated rather than guessed around: a process in another PID namespace (another
 * container sharing the directory) looks dead from here. `--dry-run` shows what would go.
 */
import { lstatSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseLeftoverName, type LeftoverKind } from '../../core/cleanup.ts';
import { UsageError } from '../../core/errors.ts';
import { fileKind, statError } from '../../core/input-file.ts';

export interface Leftover {
  readonly path: string;
  readonly kind: LeftoverKind;
  readonly pid: number;
}

export interface CleanOptions {
  readonly dirs?: readonly string[];
  readonly dryRun?: boolean;
  /** Where spill directories live (default os.tmpdir()). */
  readonly spillParent?: string;
  readonly write?: (line: string) => void;
}

/** True when `pid` is a running process (ours, or one we may not signal: EPERM). */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** `dir` as an absolute path, after checking it is a directory (a symbolic link to one is fine). */
function checkedDirectory(dir: string): string {
  let st;
  try {
    st = statSync(dir);
  } catch (e) {
    throw statError(e, dir, 'directory to clean');
  }
  if (!st.isDirectory()) throw new UsageError(`clean: ${dir} is ${fileKind(st)}, not a directory`);
  return resolve(dir);
}

/** Stale leftovers in `dirs` (temp files and spill directories) and spill directories in `spillParent`. */
export function findLeftovers(dirs: readonly string[], spillParent: string): Leftover[] {
  const found = new Map<string, Leftover>();
  const scan = (dir: string, kinds: readonly LeftoverKind[]) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // the temp directory may not exist or be readable; the DIRs were checked already
    }
    for (const name of names) {
      const parsed = parseLeftoverName(name);
      if (!parsed || !kinds.includes(parsed.kind) || isRunning(parsed.pid)) continue;
      const path = join(dir, name);
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue; // gone meanwhile
      }
      // A temp file is a file; a spill directory a directory. Links and other kinds are left alone.
      if (parsed.kind === 'temp-file' ? !st.isFile() : !st.isDirectory()) continue;
      found.set(path, { path, ...parsed });
    }
  };
  for (const d of dirs) scan(d, ['temp-file', 'spill-dir']);
  scan(spillParent, ['spill-dir']);
  return [...found.values()];
}

/** Runs `joinlab clean`; returns the leftovers removed (or that would be, with dryRun). */
export function runCleanCommand(options: CleanOptions = {}): Leftover[] {
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const dirs = (options.dirs && options.dirs.length > 0 ? options.dirs : ['.']).map(checkedDirectory);
  const spillParent = resolve(options.spillParent ?? tmpdir());
  const leftovers = findLeftovers(dirs, spillParent);
  const verb = options.dryRun ? 'would remove' : 'removed';
  const done: Leftover[] = [];
  for (const l of leftovers) {
    if (!options.dryRun) {
      try {
        rmSync(l.path, { recursive: l.kind === 'spill-dir', force: true });
      } catch (e) {
        write(`could not remove ${l.path}: ${(e as Error).message}\n`);
        continue;
      }
    }
    done.push(l);
    write(`${verb} ${l.path} (${l.kind === 'spill-dir' ? 'spill directory' : 'temp file'} of pid ${l.pid}, not running)\n`);
  }
  const where = [...new Set([...dirs, spillParent])].join(', ');
  const count = `${done.length} leftover${done.length === 1 ? '' : 's'}`;
  if (done.length === 0) write(`no leftovers of stopped joinlab runs in ${where}\n`);
  else write(`${count} ${options.dryRun ? 'would be removed' : 'removed'} (looked in ${where})\n`);
  return done;
}
