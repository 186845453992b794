/**
 * Arrow IPC writers whose output is taken as byte chunks after each batch, so a caller can write
 * them to a file handle before pulling the next batch: spill files (stream format) and `--out`
 * files (file format) are written batch by batch and never held whole.
 *
 * Why not the writers as they come: apache-arrow's RecordBatchWriter pushes its bytes into an
 * async byte queue that only drains when someone iterates it; written in a loop, the queue holds
 * the whole output. Overriding `_write` (every byte of schema, batches, footer and magic goes
 * through it) hands the chunks to us instead.
 *
 * Invariants the callers keep (apache-arrow's writer would otherwise misbehave silently):
 * - `reset(undefined, schema)` first, so the schema (and for the file format the magic) is written
 *   even when no batch follows;
 * - every batch carries *this* schema (`conformBatch`): a batch whose schema object differs makes
 *   the writer end the stream and drop what follows.
 */
import { recordBatchOf } from './record-batch.ts';
import { DataType, RecordBatch, RecordBatchFileWriter, RecordBatchStreamWriter, type RecordBatchWriter, type Schema, type Vector, util } from 'apache-arrow';

/** What both chunked writers offer beyond apache-arrow's writer. */
export interface ChunkSource {
  /** The bytes written since the last `take()`, in order. */
  take(): Uint8Array[];
}

// apache-arrow's writer classes, as constructors a mixin can extend (`_write`, `_started` and
// `_position` are their protected members).
type WriterClass = new (...args: any[]) => RecordBatchWriter;

/** `Base` with its output taken as chunks (`take`) instead of queued. */
function chunked<T extends WriterClass>(Base: T) {
  return class extends Base implements ChunkSource {
    #chunks: Uint8Array[] = [];

    protected override _write(chunk: ArrayBufferView): this {
      if (this._started && chunk.byteLength > 0) {
        this.#chunks.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        this._position += chunk.byteLength;
      }
      return this;
    }

    take(): Uint8Array[] {
      const out = this.#chunks;
      this.#chunks = [];
      return out;
    }
  };
}

/**
 * `Base` writing a *replacement* dictionary whenever a batch's dictionary is neither the one
 * written before nor an extension of it (its chunks a prefix). apache-arrow decides "delta" by
 * the first chunk alone: a dictionary that shares its first chunk with the previous one but
 * differs after it (a gather that concatenated the dictionaries of several batches, each output
 * batch a different combination) was written as "nothing new", and the reader then decoded the
 * batch's codes against the previous dictionary — wrong values, silently. Stream format only: a
 * file may not replace dictionaries (its writers go through adapters/io/ipc-dictionaries.ts).
 */
function replacingDictionaries<T extends WriterClass>(Base: T) {
  return class extends Base {
    protected override _writeDictionaries(batch: RecordBatch): this {
      const seen = (this as unknown as { _seenDictionaries: Map<number, Vector> })._seenDictionaries;
      for (const [id, dictionary] of batch.dictionaries) {
        const prev = seen.get(id);
        if (prev === undefined || prev === dictionary || prev.data[0] !== dictionary.data[0]) continue;
        if (!prev.data.every((d, i) => dictionary.data[i] === d)) seen.delete(id); // the base then writes it whole, as a replacement
      }
      return super._writeDictionaries(batch);
    }
  };
}

/** Stream format (continuation-marked messages, end-of-stream marker): spill files. */
export const ChunkedStreamWriter = replacingDictionaries(chunked(RecordBatchStreamWriter as WriterClass)) as unknown as new () => RecordBatchStreamWriter & ChunkSource;

/** File format (`ARROW1` magic, footer with block offsets): `.arrow` outputs. */
export const ChunkedFileWriter = chunked(RecordBatchFileWriter as WriterClass) as unknown as new () => RecordBatchFileWriter & ChunkSource;

/**
 * `batch` under exactly `schema`. Batches built separately carry different dictionary ids, which
 * the IPC writer would take for a schema change (and silently end the stream): re-wrap them.
 * Anything else that differs (names, types) is a caller bug.
 */
export function conformBatch(batch: RecordBatch, schema: Schema): RecordBatch {
  const own: Schema = batch.schema;
  if (own === schema || sameSchema(schema, own)) return batch;
  const compatible =
    own.fields.length === schema.fields.length &&
    schema.fields.every((f, i) => f.name === own.fields[i]!.name && sameType(f.type, own.fields[i]!.type));
  if (!compatible) {
    throw new Error(`IPC write: batch schema [${String(own.fields)}] differs from the stream's schema [${String(schema.fields)}]`);
  }
  return recordBatchOf(schema, batch.data);
}

function sameSchema(a: Schema, b: Schema): boolean {
  return util.compareSchemas(a, b);
}

function sameType(a: DataType, b: DataType): boolean {
  if (DataType.isDictionary(a) && DataType.isDictionary(b)) {
    return sameType(a.dictionary, b.dictionary) && util.compareTypes(a.indices, b.indices);
  }
  // compareTypes is one-way about classes: a type read back from IPC is the generic class (`Int_`
  // with bitWidth 32), which an `Int32` does not accept as its own, though the reverse holds
  return util.compareTypes(a, b) || util.compareTypes(b, a);
}
