/**
 * assertRegularFile: the check every input path passes before it is opened. A FIFO used to block
 * the open forever (so these tests would hang on the old code), a directory to escape as EISDIR.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from './errors.ts';
import { assertRegularFile } from './input-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('assertRegularFile', () => {
  it('accepts a regular file and a symbolic link to one', async () => {
    const f = join(dir, 'f.parquet');
    writeFileSync(f, 'x');
    symlinkSync(f, join(dir, 'link.parquet'));
    await expect(assertRegularFile(f, 'left input')).resolves.toBeUndefined();
    await expect(assertRegularFile(join(dir, 'link.parquet'), 'left input')).resolves.toBeUndefined();
  });

  it('a missing path is FileNotFoundError naming the role', async () => {
    const err = await assertRegularFile(join(dir, 'nope.parquet'), 'right input').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileNotFoundError);
    expect((err as Error).message).toMatch(/file not found: .*nope\.parquet \(right input\)/);
  });

  it('a directory, a FIFO, a character device are refused by kind', async () => {
    const d = join(dir, 'd.parquet');
    mkdirSync(d);
    const fifo = join(dir, 'p.parquet');
    execFileSync('mkfifo', [fifo]);
    for (const [path, kind] of [
      [d, 'a directory'],
      [fifo, 'a FIFO \\(named pipe\\)'],
      ['/dev/null', 'a character device'],
    ] as const) {
      const err = await assertRegularFile(path, 'config file').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CorruptFileError);
      expect((err as Error).message).toMatch(new RegExp(`the config file is ${kind}, not a regular file`));
    }
  });

  it.skipIf(process.getuid?.() === 0)('an unreadable file is refused (not as root, who reads anyway)', async () => {
    const f = join(dir, 'locked.parquet');
    writeFileSync(f, 'x');
    chmodSync(f, 0o000);
    await expect(assertRegularFile(f, 'left input')).rejects.toThrow(/permission denied \(left input\)/);
  });
});
