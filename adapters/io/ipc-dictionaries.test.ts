/**
 * Arrow IPC file output of dictionary columns whose batches carry different dictionaries (every
 * Parquet row group decodes its own): written as one dictionary plus deltas, read back to the same
 * values; a shared dictionary is written once; sliced batches with NULLs keep their NULLs; codes
 * too narrow for the combined dictionary are a typed error, not wrapped values.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dictionary, Int32, Int8, Table, Utf8, vectorFromArray, type RecordBatch } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsupportedTypeError } from '../../core/errors.ts';
import { readIpcFile, writeIpcBatches } from './ipc.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-dict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dictBatch = (values: (string | null)[], indices: Int32 | Int8 = new Int32()): RecordBatch =>
  new Table({ s: vectorFromArray(values, new Dictionary(new Utf8(), indices)) }).batches[0]!;

describe('FileDictionaries via writeIpcBatches', () => {
  it('different dictionaries per batch become deltas and read back to the same values', async () => {
    const batches = [dictBatch(['x', 'y', null]), dictBatch(['z', 'w', 'x']), dictBatch([null, 'q'])];
    const path = join(dir, 'deltas.arrow');
    await writeIpcBatches(path, batches[0]!.schema, batches);
    expect((await readIpcFile(path)).getChild('s')!.toArray()).toEqual(['x', 'y', null, 'z', 'w', 'x', null, 'q']);
  });

  it('batches sharing one dictionary write it once; slices keep their NULLs', async () => {
    const whole = dictBatch(['a', null, 'b', 'a', null, 'c', 'b', 'a']);
    const parts = [whole.slice(0, 3), whole.slice(3, 6), whole.slice(6, 8)];
    const path = join(dir, 'shared.arrow');
    await writeIpcBatches(path, whole.schema, parts);
    expect((await readIpcFile(path)).getChild('s')!.toArray()).toEqual(['a', null, 'b', 'a', null, 'c', 'b', 'a']);
    const once = join(dir, 'once.arrow');
    await writeIpcBatches(once, whole.schema, [whole]);
    expect(statSync(path).size - statSync(once).size).toBeLessThan(1024); // no repeated dictionary
  });

  it('Int8 codes cannot address a combined dictionary past 127 entries: UnsupportedTypeError', async () => {
    const many = (p: string) => dictBatch(Array.from({ length: 100 }, (_, i) => `${p}${i}`), new Int8());
    const b = many('a');
    await expect(writeIpcBatches(join(dir, 'narrow.arrow'), b.schema, [b, many('b')])).rejects.toThrow(UnsupportedTypeError);
  });
});
