/**
 * Dictionary columns in an Arrow IPC *file*: the file format allows one dictionary per column,
 * extended by deltas, never replaced — but a join's output batches carry whatever dictionary
 * their source batch had (every Parquet row group decodes its own). apache-arrow then refuses the
 * second batch ("does not support replacement dictionaries").
 *
 * `FileDictionaries` keeps, per top-level dictionary column, the dictionary written so far as a
 * chunked vector and appends each new dictionary as a chunk, which the writer emits as a delta
 * (it writes the chunks past the ones it has seen). The batch's codes are rebased by the chunk's
 * offset in one typed-array pass. A dictionary seen before (the same Data objects, as consecutive
 * batches of one row group share) costs nothing. Values may repeat across chunks: dictionaries
 * need not be unique, readers decode by position.
 *
 * Degenerate cases: batches without dictionary columns pass through untouched; nested
 * dictionaries (inside a struct or list) are not rebased and still fail in the writer.
 */
import { Data, DataType, makeData, RecordBatch, Vector, type Dictionary, type Schema } from 'apache-arrow';
import { UnsupportedTypeError } from '../../core/errors.ts';

interface ColumnDictionary {
  readonly name: string;
  chunks: Data[];
  /** Start of each chunk in the concatenated dictionary, keyed by the chunk itself. */
  base: Map<Data, number>;
  length: number;
  vector: Vector | null;
}

export class FileDictionaries {
  readonly #columns: (ColumnDictionary | null)[];

  constructor(readonly schema: Schema) {
    this.#columns = schema.fields.map((f) => (DataType.isDictionary(f.type) ? { name: f.name, chunks: [], base: new Map(), length: 0, vector: null } : null));
  }

  /** `batch` with every dictionary column pointing at the file's dictionary, codes rebased. */
  conform(batch: RecordBatch): RecordBatch {
    if (this.#columns.every((c) => c === null)) return batch;
    const children = batch.data.children.map((d, i) => {
      const col = this.#columns[i];
      return col ? this.#rebase(col, d as Data<Dictionary>) : d;
    });
    return new RecordBatch(this.schema, makeData({ type: batch.data.type, length: batch.numRows, nullCount: 0, children }));
  }

  #rebase(col: ColumnDictionary, d: Data<Dictionary>): Data {
    const chunks = d.dictionary?.data ?? [];
    let base = chunks.length > 0 ? col.base.get(chunks[0]!) : undefined;
    // known only if the whole run of chunks sits where the codes expect it
    if (base !== undefined) {
      for (let k = 1, at = base + chunks[0]!.length; k < chunks.length; at += chunks[k]!.length, k++) {
        if (col.base.get(chunks[k]!) !== at) {
          base = undefined;
          break;
        }
      }
    }
    if (base === undefined) {
      base = col.length;
      for (const c of chunks) {
        col.base.set(c, col.length);
        col.chunks.push(c);
        col.length += c.length;
      }
      col.vector = null;
    }
    const indices = d.type.indices;
    const maxCode = indices.isSigned ? 2 ** (indices.bitWidth - 1) - 1 : 2 ** indices.bitWidth - 1;
    if (col.length - 1 > maxCode) {
      throw new UnsupportedTypeError(col.name, String(d.type), `in an Arrow IPC file: its batches' dictionaries add up to ${col.length} entries, more than ${indices} codes can address (write .parquet, or cast the codes to Int32)`);
    }
    col.vector ??= new Vector(col.chunks);
    const codes = d.values;
    let rebased = codes;
    if (base !== 0) {
      rebased = new (codes.constructor as { new (n: number): typeof codes })(d.length);
      for (let r = 0; r < d.length; r++) rebased[r] = codes[r]! + base;
    }
    return makeData({ type: d.type, offset: 0, length: d.length, nullCount: d.nullCount, nullBitmap: sliceBitmap(d), data: rebased, dictionary: col.vector });
  }
}

/** The validity bits of `d` starting at bit 0 (a sliced Data's bitmap starts at `offset`). */
function sliceBitmap(d: Data): Uint8Array | undefined {
  if (d.nullCount === 0 || !d.nullBitmap || d.nullBitmap.length === 0) return undefined;
  if (d.offset === 0) return d.nullBitmap;
  const out = new Uint8Array((d.length + 7) >> 3);
  for (let r = 0; r < d.length; r++) {
    const b = d.offset + r;
    if ((d.nullBitmap[b >> 3]! >> (b & 7)) & 1) out[r >> 3]! |= 1 << (r & 7);
  }
  return out;
}
