/**
 * `assertRegularFile`: the one check every input path passes before anything opens it — join
 * inputs (adapters/io/open.ts, adapters/io/atomic.ts `readFileBytes`), config files
 * (core/config/load.ts), experiment files and extension modules.
 *
 * Why a stat before the open: opening a FIFO for reading blocks until a writer appears (Node's
 * `openSync` blocks the whole thread, so not even a signal handler runs), a character device such
 * as /dev/zero never ends, and a directory fails deep inside a reader with an untyped EISDIR. None
 * of them can be a Parquet file, a config or an extension, so they are refused up front, by kind,
 * with the role the path plays (`left input`, `config file`, …) in the message. The check races
 * with a path replaced between the stat and the open; that is a deliberate act, not a mistake to
 * guard against, and the readers still type their own errors.
 *
 * Errors: a missing path (or one through a non-directory) is `FileNotFoundError`; anything that
 * exists but is not a readable regular file is `CorruptFileError` (the existing type for "exists
 * but cannot be read", e.g. a directory); an over-long path or one with a NUL byte (which Node
 * refuses with a TypeError) is a `UsageError`.
 */
import { constants, type Stats } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { CorruptFileError, FileNotFoundError, UsageError } from './errors.ts';

/** What a non-regular file is, in words for a message. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

/** A `FileNotFoundError` whose message also says which input it was. */
export function notFound(path: string, role: string): FileNotFoundError {
  const e = new FileNotFoundError(path);
  e.message = `${e.message} (${role})`;
  return e;
}

/**
 * Resolves when `path` is a readable regular file (symbolic links followed); otherwise throws a
 * typed error naming `path` and its `role` (see the module comment). Opens nothing.
 */
export async function assertRegularFile(path: string, role: string): Promise<void> {
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    throw statError(e, path, role);
  }
  if (!st.isFile()) throw new CorruptFileError(path, `the ${role} is ${fileKind(st)}, not a regular file`);
  try {
    await access(path, constants.R_OK);
  } catch (e) {
    throw statError(e, path, role);
  }
}

/** Maps a stat/access failure of an input path to the typed error the CLI prints. */
export function statError(e: unknown, path: string, role: string): Error {
  switch (errnoCode(e)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return notFound(path, role);
    case 'EACCES':
    case 'EPERM':
      return new CorruptFileError(path, `permission denied (${role})`, { cause: e });
    case 'ELOOP':
      return new CorruptFileError(path, `too many levels of symbolic links (${role})`, { cause: e });
    case 'ENAMETOOLONG':
      return new UsageError(`the ${role} path is too long (${path.length} characters): ${path}`);
    case 'ERR_INVALID_ARG_VALUE':
    case 'ERR_INVALID_ARG_TYPE':
      return new UsageError(`the ${role} path contains a NUL byte, which no file name can: ${path}`);
    default:
      return e instanceof Error ? e : new Error(String(e));
  }
}
