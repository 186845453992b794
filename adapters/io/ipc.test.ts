import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Int64, makeData, makeVector, Table, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';
import { isIpcPath, readIpcFile, writeIpcFile } from './ipc.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'joinlab-ipc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function sample(): Table {
  return new Table({
    k: makeVector(makeData({ type: new Int64(), length: 3, nullCount: 0, data: BigInt64Array.from([-(2n ** 63n), 0n, 7n]) })),
    s: vectorFromArray(['a', null, '😀'], new Utf8()),
  });
}

describe('Arrow IPC files', () => {
  it('recognises .arrow/.ipc/.feather', () => {
    expect(isIpcPath('x.ARROW')).toBe(true);
    expect(isIpcPath('x.feather')).toBe(true);
    expect(isIpcPath('x.ipc')).toBe(true);
    expect(isIpcPath('x.parquet')).toBe(false);
  });

  it('writes the file format and reads it back', async () => {
    const p = join(dir, 't.arrow');
    await writeIpcFile(p, sample());
    const back = await readIpcFile(p);
    expect(back.schema.fields.map(String)).toEqual(['k: Int64', 's: Utf8']);
    expect([...back.getChild('k')!]).toEqual([-(2n ** 63n), 0n, 7n]);
    expect([...back.getChild('s')!]).toEqual(['a', null, '😀']);
    expect(await readdir(dir)).toEqual(['t.arrow']);
  });

  it('reads the stream format too', async () => {
    const p = join(dir, 's.arrows.ipc');
    await writeFile(p, tableToIPC(sample(), 'stream'));
    expect((await readIpcFile(p)).numRows).toBe(3);
    const q = join(dir, 's2.ipc');
    await writeIpcFile(q, sample(), { format: 'stream' });
    expect((await readIpcFile(q)).numRows).toBe(3);
  });

  it('missing file -> FileNotFoundError', async () => {
    await expect(readIpcFile(join(dir, 'nope.arrow'))).rejects.toBeInstanceOf(FileNotFoundError);
  });

  const good = tableToIPC(sample(), 'file');
  const goodStream = tableToIPC(sample(), 'stream');
  it.each([
    ['empty', new Uint8Array(0)],
    ['zeros', new Uint8Array(64)],
    ['garbage', Uint8Array.from({ length: 300 }, (_, i) => (i * 7919) & 255)],
    ['csv', new TextEncoder().encode('k,s\n1,a\n')],
    ['parquet magic', new TextEncoder().encode('PAR1xxxxxxxxPAR1')],
    ['truncated file', good.subarray(0, good.length - 20)],
    ['truncated stream', goodStream.subarray(0, goodStream.length - 40)],
  ])('%s -> CorruptFileError naming the file', async (name, bytes) => {
    const p = join(dir, `bad-${name.replace(/\W+/g, '-')}.arrow`);
    await writeFile(p, bytes);
    const err = await readIpcFile(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptFileError);
    expect((err as Error).message).toContain(p);
  });
});
