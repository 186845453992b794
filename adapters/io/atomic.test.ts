import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';
import { readFileBytes, tempPathFor, writeFileAtomic } from './atomic.ts';

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

  it('a missing output directory is a FileNotFoundError naming it', async () => {
    const missing = join(dir, 'no', 'such');
    const err = await writeFileAtomic(join(missing, 'f.txt'), new Uint8Array([1])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FileNotFoundError);
    expect((err as FileNotFoundError).path).toBe(missing);
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
});
