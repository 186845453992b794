import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  List,
  makeData,
  makeVector,
  RecordBatchStreamWriter,
  Struct,
  Table,
  tableToIPC,
  Utf8,
  vectorFromArray,
} from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptFileError, FileNotFoundError } from '../../core/errors.ts';
import { decodeIpc, isIpcPath, readIpcFile, writeIpcFile } from './ipc.ts';

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

/** Two batches of every shape the checks walk: ints, strings, a dictionary, a list, a struct. */
function shapes(): Table {
  const one = new Table({
    k: makeVector(makeData({ type: new Int64(), length: 3, nullCount: 0, data: BigInt64Array.from([1n, 2n, 3n]) })),
    s: vectorFromArray(['a', null, 'bcd'], new Utf8()),
    d: vectorFromArray(['x', 'y', 'x'], new Dictionary(new Utf8(), new Int32())),
    l: vectorFromArray([[1, 2], null, [3]], new List(new Field('item', new Int32()))),
    st: vectorFromArray([{ a: 1, b: 'q' }, null, { a: 2, b: null }], new Struct([new Field('a', new Float64()), new Field('b', new Utf8())])),
  });
  return new Table([...one.batches, ...one.batches]);
}

/** The error decoding `bytes` throws (null when it decodes). */
function failure(bytes: Uint8Array): unknown {
  try {
    decodeIpc(bytes, 'cut.arrow');
    return null;
  } catch (e) {
    return e;
  }
}

/** Messages that leak decoder internals instead of saying what is wrong with the file. */
const INTERNALS = /Cannot (read|destructure) propert|is not a function|undefined|\(reading '/;

describe('truncated and corrupt Arrow IPC', () => {
  const table = shapes();
  const encode = (format: 'file' | 'stream' | 'legacy stream'): Uint8Array =>
    format === 'legacy stream'
      ? RecordBatchStreamWriter.writeAll(table, { writeLegacyIpcFormat: true }).toUint8Array(true) // no 0xFFFFFFFF markers
      : tableToIPC(table, format);
  it.each(['file', 'stream', 'legacy stream'] as const)('%s format cut at every offset -> CorruptFileError that says it is cut short', (format) => {
    const good = encode(format);
    expect(decodeIpc(good, 'x').numRows).toBe(6);
    for (let n = 0; n < good.length; n++) {
      const e = failure(good.subarray(0, n));
      expect(e, `cut at ${n} of ${good.length}`).toBeInstanceOf(CorruptFileError);
      const m = (e as Error).message;
      expect(m, `cut at ${n}`).toContain('cut.arrow');
      expect(m, `cut at ${n}`).not.toMatch(INTERNALS);
      expect(m, `cut at ${n}`).toMatch(/too short|truncated|cut off|only \d+ follow|magic at the end is missing|end-of-stream/);
    }
  });

  it.each(['file', 'stream'] as const)('%s format with any one byte flipped -> decodes or CorruptFileError, never a crash', (format) => {
    const good = tableToIPC(table, format);
    for (let n = 0; n < good.length; n++) {
      const b = good.slice();
      b[n]! ^= 0xff;
      const e = failure(b);
      if (e === null) continue; // a flipped value or validity bit is still a well-formed file
      expect(e, `flip at ${n}`).toBeInstanceOf(CorruptFileError);
      expect((e as Error).message, `flip at ${n}`).not.toMatch(INTERNALS);
    }
  });

  it('a stream cut at a message boundary (no end-of-stream marker) is truncated, not fewer rows', () => {
    const good = tableToIPC(table, 'stream');
    const cut = good.subarray(0, good.length - 8); // drop only the end-of-stream marker
    expect((failure(cut) as Error).message).toMatch(/without the end-of-stream marker: truncated/);
  });

  it('a Parquet file given as IPC is named as such', () => {
    expect((failure(new TextEncoder().encode('PAR1xxxxxxxxxxxxPAR1')) as Error).message).toMatch(/this is a Parquet file \(PAR1 magic\), not Arrow IPC/);
  });

  it('a footer length that does not fit names both sizes', () => {
    const b = tableToIPC(table, 'file').slice();
    const dv = new DataView(b.buffer);
    dv.setInt32(b.length - 10, b.length, true);
    expect((failure(b) as Error).message).toMatch(new RegExp(`footer length field claims ${b.length} bytes, but only ${b.length - 18} lie between`));
  });

  it('a buffer region outside the body names the buffer and the column', () => {
    const good = tableToIPC(table, 'stream');
    // the first record batch's values buffer of column k: find it by flipping bytes until one lands there
    const messages = new Set<string>();
    for (let n = 0; n < good.length; n++) {
      const b = good.slice();
      b[n] = 0x7f;
      const e = failure(b);
      if (e instanceof CorruptFileError) messages.add(e.message.replace(/\d+/g, 'N'));
    }
    expect([...messages].some((m) => /buffer N \(values of column N\) \[N, \+N\) lies outside the N-byte body/.test(m))).toBe(true);
    expect([...messages].some((m) => /column 'l' \(List<IntN>\): offsets/.test(m))).toBe(true);
    expect([...messages].some((m) => /column 'd' .*dictionary code/.test(m))).toBe(true);
  });
});
