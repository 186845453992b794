/**
 * Dictionary columns of merged batches, kept small.
 *
 * Why: a gather from batches that carry different dictionaries concatenates them
 * (core/arrow/gather.ts), and every sorted run read back from its spill file carries its own
 * dictionary objects. A k-way merge's output batch would carry k dictionaries; a run written
 * from it carries them on, and the next merge pass multiplies them again — dictionaries growing
 * by the fan-in per pass, far past the rows that use them. Cutting a dictionary down to the
 * entries its batch's rows use bounds it by the batch's rows, whatever came before.
 *
 * Invariants: the values of every row are unchanged (only codes and dictionary positions
 * change; the new dictionary lists the used entries in first-use order, which readers never
 * rely on); NULL rows keep their validity bits and get code 0. A column is rewritten only when
 * its dictionary has more entries than the batch has rows; 64-bit codes and nested
 * dictionaries are left alone. A batch with nothing to rewrite is returned as it is.
 */
import { Field, makeData, makeVector, RecordBatch, Schema, Struct, type Data, type Dictionary } from 'apache-arrow';
import { DataType } from 'apache-arrow';
import { gatherColumns, RowSource } from '../../core/arrow/gather.ts';

/** `batch` with its oversized dictionaries cut to the entries its rows use (see the module doc). */
export function compactDictionaries(batch: RecordBatch): RecordBatch {
  const children = batch.data.children;
  let changed = false;
  const out = children.map((d) => {
    if (!DataType.isDictionary(d.type) || d.dictionary === undefined || d.dictionary.length <= d.length) return d;
    const c = compactDictionary(d as Data<Dictionary>);
    if (c !== d) changed = true;
    return c;
  });
  if (!changed) return batch;
  return new RecordBatch(batch.schema, makeData({ type: new Struct(batch.schema.fields), length: batch.numRows, nullCount: 0, children: out }));
}

type Codes = Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;

function compactDictionary(d: Data<Dictionary>): Data {
  const type = d.type;
  if ((type.indices.bitWidth as number) === 64) return d;
  const dict = d.dictionary!;
  const n = d.length;
  const codes = d.values as unknown as Codes;
  const bm = d.nullBitmap;
  const off = d.offset;
  const nullCount = d.nullCount;
  const hasNulls = nullCount > 0 && bm !== undefined && bm.length > 0;
  const remap = new Int32Array(dict.length).fill(-1);
  const used = new Int32Array(n);
  const out = new (codes.constructor as new (n: number) => Codes)(n);
  let u = 0;
  for (let i = 0; i < n; i++) {
    if (hasNulls) {
      const p = off + i;
      if (((bm![p >> 3]! >> (p & 7)) & 1) === 0) continue;
    }
    const c = codes[i]!;
    let r = remap[c]!;
    if (r < 0) {
      r = remap[c] = u;
      used[u++] = c;
    }
    out[i] = r;
  }
  const schema = new Schema([new Field('entry', type.dictionary, true)]);
  const parts = dict.data.map((chunk) => new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: chunk.length, nullCount: 0, children: [chunk] })));
  const [values] = gatherColumns(new RowSource(parts, schema), used.subarray(0, u), 0, u);
  return makeData({ type, length: n, nullCount: hasNulls ? nullCount : 0, nullBitmap: hasNulls ? bitsFrom(bm!, off, n) : null, data: out, dictionary: makeVector(values!) } as never);
}

/** Bits [off, off + n) of `bm` starting at bit 0. */
function bitsFrom(bm: Uint8Array, off: number, n: number): Uint8Array {
  const bytes = (n + 7) >> 3;
  if ((off & 7) === 0) return bm.subarray(off >> 3, (off >> 3) + bytes);
  const out = new Uint8Array(bytes);
  for (let i = 0; i < n; i++) {
    const p = off + i;
    if ((bm[p >> 3]! >> (p & 7)) & 1) out[i >> 3]! |= 1 << (i & 7);
  }
  return out;
}
