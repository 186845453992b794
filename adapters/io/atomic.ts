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
 * Degenerate cases: a missing output directory is a `FileNotFoundError` naming the directory;
 * zero bytes is a valid (empty) file.
 *
 * `readFileBytes` is the read-side counterpart: ENOENT/ENOTDIR become `FileNotFoundError`, a
 * directory becomes `CorruptFileError` (it exists but is not a decodable file).
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { trackTempPath, untrackTempPath } from '../../core/cleanup.ts';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';

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
    throw e;
  }
}

/** Read a whole file; missing -> FileNotFoundError, a directory -> CorruptFileError. */
export async function readFileBytes(path: string): Promise<Uint8Array> {
  try {
    const buf = await readFile(path);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileNotFoundError(path);
    if (code === 'EISDIR') throw new CorruptFileError(path, 'is a directory, not a file', { cause: e });
    throw e;
  }
}
