/**
 * Reading byte ranges of a file instead of the whole file: what lets a Parquet scan read its footer
 * and then only the column chunks of the row groups it keeps (a 100 MB probe file whose filter
 * keeps 12% of its row groups costs 12 MB of reads, not 100).
 *
 * No file descriptor outlives a call: `open` stats the file and reads what it is asked for, and each
 * later `readRanges` opens, reads and closes — a scan that is abandoned half way, or a handle that
 * is simply dropped, leaks nothing. Every read checks the file still has the size it had at open:
 * a file replaced or truncated under a running scan is reported as such, never decoded as garbage.
 *
 * Errors are typed like the rest of joinlab's I/O: a missing path is FileNotFoundError, a directory
 * or a file that shrank is CorruptFileError (naming the file).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';

/** One range to read: `length` bytes at file `offset`, into the destination at `at`. */
export interface ByteRange {
  readonly offset: number;
  readonly length: number;
  readonly at: number;
}

export class FileRanges {
  /** Bytes read so far (all ranges of all calls). */
  bytesRead = 0;

  private constructor(
    readonly path: string,
    readonly size: number,
    /** Which file this is, as of opening (device, inode, size, modification time): a cache key. */
    readonly identity: string,
  ) {}

  /** Stats the file (it must be a regular file); reads nothing. */
  static open(path: string): FileRanges {
    return withFd(path, null, (fd, size) => {
      const st = fstatSync(fd);
      return new FileRanges(path, size, `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`);
    });
  }

  /** `length` bytes at `offset` (a new array). */
  read(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    this.readRanges(out, [{ offset, length, at: 0 }]);
    return out;
  }

  /** Reads every range into `into` (one open / close for all of them). */
  readRanges(into: Uint8Array, ranges: readonly ByteRange[]): void {
    withFd(this.path, this.size, (fd) => {
      for (const r of ranges) {
        if (r.offset < 0 || r.length < 0 || r.offset + r.length > this.size) {
          throw new CorruptFileError(this.path, `range ${r.offset}+${r.length} lies outside the file (${this.size} bytes)`);
        }
        let done = 0;
        while (done < r.length) {
          const n = readSync(fd, into, r.at + done, r.length - done, r.offset + done);
          if (n === 0) throw new CorruptFileError(this.path, `file ended at byte ${r.offset + done}, expected ${this.size} bytes (truncated while reading?)`);
          done += n;
        }
        this.bytesRead += r.length;
      }
    });
  }

  /** The whole file (the rare path that needs it all: a fallback decode). */
  readAll(): Uint8Array {
    return this.read(0, this.size);
  }
}

/** Runs `f` with an open descriptor of `path`, checking its size is `expectedSize` when given. */
function withFd<T>(path: string, expectedSize: number | null, f: (fd: number, size: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new FileNotFoundError(path);
    if (code === 'EISDIR') throw new CorruptFileError(path, 'is a directory, not a file', { cause: e });
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new CorruptFileError(path, 'is a directory, not a file');
    if (expectedSize !== null && st.size !== expectedSize) {
      throw new CorruptFileError(path, `changed while being read: ${expectedSize} bytes when opened, ${st.size} now`);
    }
    return f(fd, st.size);
  } finally {
    closeSync(fd);
  }
}
