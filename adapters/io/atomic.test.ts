import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginShutdown, cancelShutdownForTests, parseLeftoverName } from '../../core/cleanup.ts';
import { CancelledError, CorruptFileError, FileNotFoundError, UsageError } from '../../core/errors.ts';
import { assertOutputDirectory, assertOutputFile, readFileBytes, tempPathFor, writeFileAtomic } from './atomic.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('writes bytes and replaces an existing file', async () => {
    const p = join(dir, 'out.bin');
    await writeFileAtomic(p, new Uint8Array([1, 2, 3]));
    expect([...(await readFile(p))]).toEqual([1, 2, 3]);
    await writeFileAtomic(p, new Uint8Array([9]));
    expect([...(await readFile(p))]).toEqual([9]);
    await writeFileAtomic(p, new Uint8Array(0));
    expect((await readFile(p)).length).toBe(0);
    expect(await readdir(dir)).toEqual(['out.bin']);
  });

  it('temp files live beside the target as .<name>.tmp-<pid>-<rand>', () => {
    const t = tempPathFor(join(dir, 'x.parquet'));
    expect(t.startsWith(join(dir, `.x.parquet.tmp-${process.pid}-`))).toBe(true);
    expect(tempPathFor(join(dir, 'x.parquet'))).not.toBe(t);
  });

  it('a writer callback writes the temp file, which is then renamed', async () => {
    const p = join(dir, 'cb.txt');
    let seen = '';
    await writeFileAtomic(p, async (tmp) => {
      seen = tmp;
      await writeFile(tmp, 'hello');
    });
    expect(seen).not.toBe(p);
    expect(await readFile(p, 'utf8')).toBe('hello');
    expect(await readdir(dir)).toEqual(['cb.txt']);
  });

  it('a failing writer leaves no output file and no temp file; the previous file survives', async () => {
    const fresh = join(dir, 'fresh.txt');
    await expect(
      writeFileAtomic(fresh, async (tmp) => {
        await writeFile(tmp, 'partial');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);

    const old = join(dir, 'old.txt');
    await writeFile(old, 'previous');
    await expect(
      writeFileAtomic(old, async (tmp) => {
        await writeFile(tmp, 'half');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await readFile(old, 'utf8')).toBe('previous');
    expect(await readdir(dir)).toEqual(['old.txt']);
  });

  it('a writer that never creates the temp file is an error, with no output', async () => {
    const p = join(dir, 'none.txt');
    await expect(writeFileAtomic(p, async () => {})).rejects.toThrow(/did not create/);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a failing rename (target is a non-empty directory) cleans up the temp file', async () => {
    const p = join(dir, 'taken');
    await mkdir(p);
    await writeFile(join(p, 'inside'), 'x');
    await expect(writeFileAtomic(p, new Uint8Array([1]))).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
  });

  it('a full disk (ENOSPC, EDQUOT, EFBIG) is a UsageError saying so, and the temp file is gone', async () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EFBIG']) {
      const target = join(dir, `full-${code}.bin`);
      const err = await writeFileAtomic(target, async (tmp) => {
        await writeFile(tmp, 'partial');
        throw Object.assign(new Error(`${code}: simulated, write`), { code });
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(new RegExp(`^cannot write .*full-${code}\\.bin: .*\\(the partial temp file was removed\\)$`));
    }
    expect((await readdir(dir)).filter((f) => f.includes('full-'))).toEqual([]);
  });

  it('a missing output directory is a FileNotFoundError naming it', async () => {
    const missing = join(dir, 'no', 'such');
    const err = await writeFileAtomic(join(missing, 'f.txt'), new Uint8Array([1])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileNotFoundError);
    expect((err as FileNotFoundError).path).toBe(missing);
  });
});

describe('tempPathFor', () => {
  it('names temp files the way `joinlab clean` recognises them, with this pid', () => {
    for (const name of ['out.parquet', 'x.csv', '.hidden.arrow', 'with space.parquet']) {
      expect(parseLeftoverName(basename(tempPathFor(join(dir, name))))).toEqual({ kind: 'temp-file', pid: process.pid });
    }
  });
});

describe('writeFileAtomic during a shutdown (a signal arrived)', () => {
  afterEach(() => cancelShutdownForTests());

  it('creates nothing once the shutdown has begun', async () => {
    beginShutdown();
    await expect(writeFileAtomic(join(dir, 'late.bin'), new Uint8Array([1]))).rejects.toBeInstanceOf(CancelledError);
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not rename into place when the shutdown begins while it writes', async () => {
    const p = join(dir, 'mid.bin');
    await expect(
      writeFileAtomic(p, async (tmp) => {
        await writeFile(tmp, 'partial');
        beginShutdown();
      }),
    ).rejects.toBeInstanceOf(CancelledError);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('assertOutputFile / assertOutputDirectory (before any work)', () => {
  it('accept a new file in an existing directory, an existing regular file, a new or existing directory', async () => {
    await writeFile(join(dir, 'old.parquet'), 'x');
    await expect(assertOutputFile(join(dir, 'new.parquet'))).resolves.toBeUndefined();
    await expect(assertOutputFile(join(dir, 'old.parquet'))).resolves.toBeUndefined();
    await expect(assertOutputDirectory(dir)).resolves.toBeUndefined();
    await expect(assertOutputDirectory(join(dir, 'a', 'b', 'c'))).resolves.toBeUndefined();
    expect(await readdir(dir)).toEqual(['old.parquet']); // checked, nothing created
  });

  it('refuse a missing directory, an existing directory or FIFO as the file, a file as the directory', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await mkdir(join(dir, 'taken.parquet'));
    execFileSync('mkfifo', [join(dir, 'fifo.parquet')]);
    const cases: [() => Promise<void>, RegExp][] = [
      [() => assertOutputFile(join(dir, 'no', 'x.parquet'), '--out no/x.parquet'), /^--out no\/x\.parquet: directory .*no does not exist$/],
      [() => assertOutputFile(join(dir, 'taken.parquet')), /is an existing directory; name a file inside it/],
      [() => assertOutputFile(join(dir, 'fifo.parquet')), /exists and is a FIFO \(named pipe\), not a regular file/],
      [() => assertOutputFile(join(dir, 'file', 'x.parquet')), /file is a regular file, not a directory/],
      [() => assertOutputDirectory(join(dir, 'file')), /file exists and is a regular file, not a directory/],
      [() => assertOutputDirectory(join(dir, 'file', 'sub')), /file is a regular file, not a directory/],
      [() => assertOutputDirectory(join(dir, 'fifo.parquet')), /is a FIFO \(named pipe\), not a directory/],
    ];
    for (const [p, message] of cases) {
      const err = await p().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('readFileBytes', () => {
  it('reads bytes, and maps missing files and directories to typed errors', async () => {
    const p = join(dir, 'a.bin');
    await writeFile(p, new Uint8Array([5, 6]));
    expect([...(await readFileBytes(p))]).toEqual([5, 6]);
    await expect(readFileBytes(join(dir, 'nope'))).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(readFileBytes(join(p, 'child'))).rejects.toBeInstanceOf(FileNotFoundError);
    await expect(readFileBytes(dir)).rejects.toBeInstanceOf(CorruptFileError);
  });

  it('refuses a FIFO instead of blocking on it', async () => {
    const fifo = join(dir, 'in.arrow');
    execFileSync('mkfifo', [fifo]);
    await expect(readFileBytes(fifo, 'left input')).rejects.toThrow(/the left input is a FIFO \(named pipe\), not a regular file/);
  });
});
