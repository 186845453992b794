/**
 * The chunked IPC stream writer and dictionaries: a batch whose dictionary shares its first chunk
 * with the previous batch's but differs after it (what a gather over batches with different
 * dictionaries produces, e.g. a k-way merge of spilled runs) must be written as a replacement;
 * apache-arrow alone takes it for "nothing new" and the reader then decodes the codes against
 * the previous dictionary. A real extension (the previous chunks as a prefix) stays a delta.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dictionary, Field, Int32, RecordBatch, Schema, Struct, Utf8, Vector, makeData, vectorFromArray, type Data } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { SpillManager } from '../memory/spill.ts';

const dir = mkdtempSync(join(tmpdir(), 'joinlab-ipc-chunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const type = new Dictionary(new Utf8(), new Int32(), 7);
const schema = new Schema([new Field('s', type, true)]);
const chunk = (values: string[]): Data => vectorFromArray(values, new Utf8()).data[0]!;

/** A batch of `codes` over the dictionary made of `chunks`. */
function batch(chunks: Data[], codes: number[]): RecordBatch {
  const data = makeData({ type, length: codes.length, nullCount: 0, data: Int32Array.from(codes), dictionary: new Vector(chunks) } as never);
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: codes.length, nullCount: 0, children: [data] }));
}

describe('ChunkedStreamWriter dictionaries', () => {
  it('a dictionary sharing only its first chunk with the previous one is written as a replacement', async () => {
    const a = chunk(['a0', 'a1']);
    const b = chunk(['b0']);
    const c = chunk(['c0', 'c1']);
    const spill = new SpillManager({ parentDir: dir });
    const written = [batch([a, b], [2, 0]), batch([a, c], [3, 2, 1]), batch([a, c, b], [4, 0]), batch([c], [1])];
    const file = await spill.spill(written, schema);
    const read: string[][] = [];
    for await (const r of spill.read(file)) read.push(Array.from({ length: r.numRows }, (_, i) => String(r.getChildAt(0)!.get(i))));
    expect(read).toEqual([
      ['b0', 'a0'],
      ['c1', 'c0', 'a1'],
      ['b0', 'a0'], // [a, c] then [a, c, b]: an extension, written as a delta
      ['c1'],
    ]);
    await spill.close();
  });
});
