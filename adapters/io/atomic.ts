/**
 * File primitives with the project's error contract.
 *
 * `writeFileAtomic` never leaves a half-written output behind: it writes
 * `<dir>/.<name>.tmp-<pid>-<rand>` in the *same directory* (so the final `rename` is atomic on
 * POSIX file systems: readers see either the old file or the complete new one) and renames it over
 * the target. On any failure — the writer throws, the callback forgot to create the temp file, the
 * rename fails — the temp file is removed and the error is rethrown; a previous file at `path` is
 * left untouched, and no new one appears. While it exists the temp file is registered in
 * core/cleanup.ts (removed on exit and by the CLI's signal handler); only SIGKILL can leave a
 * `.tmp-<pid>-` file behind (the repository's `.gitignore` ignores `*.tmp-*`).
 *
 * Degenerate cases: a missing output directory is a `FileNotFoundError` naming the directory; a
 * full disk or quota (ENOSPC, EDQUOT, EFBIG) a `UsageError` saying so;
 * zero bytes is a valid (empty) file. Once a signal handler has begun the shutdown
 * (core/cleanup.ts `beginShutdown`), no temp file is created and none is renamed into place: the
 * write fails with `CancelledError` and its temp file is removed.
 *
 * `readFileBytes` is the read-side counterpart: the path must be a regular file
 * (core/input-file.ts: missing -> `FileNotFoundError`; a directory, FIFO, device -> `CorruptFileError`).
 *
 * `assertOutputFile` / `assertOutputDirectory` are the write-side checks a command runs *before*
 * any work, so that a run which cannot write its result fails in milliseconds instead of after
 * the join or the whole experiment: the directory exists (or can be created) and is writable, and
 * the target is not something a rename must not replace (a directory, a FIFO, a device).
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { access, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { isShuttingDown, trackTempPath, untrackTempPath } from '../../core/cleanup.ts';
import { CancelledError, FileNotFoundError, UsageError } from '../../core/errors.ts';
import { assertRegularFile, fileKind } from '../../core/input-file.ts';

/** Either the bytes to write, or a writer that must create `tmpPath` itself (e.g. DuckDB `COPY … TO`). */
export type AtomicContent = Uint8Array | ((tmpPath: string) => Promise<void>);

export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
}

function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}

async function writeAndSync(tmp: string, bytes: Uint8Array): Promise<void> {
  // 'wx': never clobber a file we did not create (the random suffix makes collisions unlikely).
  const fh = await open(tmp, 'wx');
  try {
    let off = 0;
    while (off < bytes.byteLength) {
      const { bytesWritten } = await fh.write(bytes, off, bytes.byteLength - off);
      off += bytesWritten;
    }
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Write `content` to `path` atomically (temp file in the same directory, then rename). */
export async function writeFileAtomic(path: string, content: AtomicContent): Promise<void> {
  if (isShuttingDown()) throw interrupted(path);
  const tmp = tempPathFor(path);
  trackTempPath(tmp);
  try {
    if (typeof content === 'function') {
      await content(tmp);
      const st = await stat(tmp).catch(() => null);
      if (!st || !st.isFile()) throw new Error(`atomic write of ${path}: the writer did not create ${tmp}`);
    } else {
      await writeAndSync(tmp, content);
    }
    if (isShuttingDown()) throw interrupted(path);
    await rename(tmp, path);
    untrackTempPath(tmp);
  } catch (e) {
    await rm(tmp, { force: true, recursive: true }).catch(() => undefined);
    untrackTempPath(tmp);
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // Only map to FileNotFoundError when the directory itself is missing; a callback's own
      // ENOENT (e.g. an input it reads) keeps its original error.
      const dirOk = await stat(dirname(path)).then((s) => s.isDirectory(), () => false);
      if (!dirOk) throw new FileNotFoundError(dirname(path));
    }
    // a full disk or quota is the user's to fix, not a crash (a streamed output can be huge)
    if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') {
      throw new UsageError(`cannot write ${path}: ${DISK_FULL[code]} (the partial temp file was removed)`, { cause: e });
    }
    throw e;
  }
}

const DISK_FULL: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is larger than the file system allows',
};

function interrupted(path: string): CancelledError {
  return new CancelledError(`interrupted: ${path} was not written`);
}

/**
 * Read a whole regular file; missing -> FileNotFoundError, a directory, FIFO, … -> CorruptFileError.
 * `shared`: into a `SharedArrayBuffer` (at offset 0), read there directly — no extra copy — so
 * that what is decoded as views of it (Arrow IPC) reaches worker threads without one.
 */
export async function readFileBytes(path: string, role = 'input', options: { readonly shared?: boolean } = {}): Promise<Uint8Array> {
  await assertRegularFile(path, role);
  try {
    if (options.shared === true) return await readIntoShared(path);
    const buf = await readFile(path);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileNotFoundError(path);
    throw e;
  }
}

/** The file's bytes in shared memory; a file that changes size while read is read as it was stat'ed, up to EOF. */
async function readIntoShared(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const bytes = new Uint8Array(new SharedArrayBuffer(size));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await fh.read(bytes, at, Math.min(size - at, 1 << 30), at);
      if (bytesRead === 0) return bytes.subarray(0, at); // truncated meanwhile: what is there
      at += bytesRead;
    }
    return bytes;
  } finally {
    await fh.close();
  }
}

async function statOrNull(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ENAMETOOLONG') throw new UsageError(`path too long (${path.length} characters): ${path}`);
    if (code === 'ERR_INVALID_ARG_VALUE' || code === 'ERR_INVALID_ARG_TYPE') throw new UsageError(`the path contains a NUL byte, which no file name can: ${path}`);
    if (code === 'ELOOP') throw new UsageError(`${path}: too many levels of symbolic links`);
    throw e;
  }
}

async function assertWritableDirectory(dir: string, what: string): Promise<void> {
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new UsageError(`${what}: directory ${dir} is not writable`);
  }
}

/**
 * `path` can be written by `writeFileAtomic`: its directory exists and is writable, and the path
 * is either free or a regular file (which the rename replaces). `role` starts the message
 * (e.g. `--out x.parquet`). Writes nothing.
 */
export async function assertOutputFile(path: string, role = `output ${path}`): Promise<void> {
  const st = await statOrNull(path);
  if (st?.isDirectory()) throw new UsageError(`${role}: ${path} is an existing directory; name a file inside it`);
  if (st && !st.isFile()) throw new UsageError(`${role}: ${path} exists and is ${fileKind(st)}, not a regular file`);
  const dir = dirname(resolve(path));
  const d = await statOrNull(dir);
  if (!d) throw new UsageError(`${role}: directory ${dirname(path)} does not exist`);
  if (!d.isDirectory()) throw new UsageError(`${role}: ${dirname(path)} is ${fileKind(d)}, not a directory`);
  await assertWritableDirectory(dir, role);
}

/**
 * `dir` can hold a run's outputs: an existing writable directory, or a path whose nearest
 * existing ancestor is a writable directory (the writer creates the rest with `mkdir -p`).
 * Creates nothing, so a run that fails later leaves no empty directory behind.
 */
export async function assertOutputDirectory(dir: string, role = `output directory ${dir}`): Promise<void> {
  const st = await statOrNull(dir);
  if (st) {
    if (!st.isDirectory()) throw new UsageError(`${role}: ${dir} exists and is ${fileKind(st)}, not a directory`);
    await assertWritableDirectory(dir, role);
    return;
  }
  let parent = dirname(resolve(dir));
  for (;;) {
    const p = await statOrNull(parent);
    if (p) {
      if (!p.isDirectory()) throw new UsageError(`${role}: ${parent} is ${fileKind(p)}, not a directory`);
      await assertWritableDirectory(parent, role);
      return;
    }
    const up = dirname(parent);
    if (up === parent) throw new UsageError(`${role}: no existing directory above ${dir}`);
    parent = up;
  }
}
