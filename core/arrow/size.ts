/**
 * Byte accounting for Arrow data: the bytes a batch's buffers occupy, for memory reservations and
 * the `bytesDecoded` metric. Dictionaries are counted once per Data (shared dictionaries are
 * over-counted when several batches share one, which errs on the safe side for a memory limit).
 * `heldBatchBytes` adds an estimate of the JS objects (RecordBatch, Data, Vector per column) a
 * held batch keeps on the V8 heap: a result of many tiny batches is mostly those objects.
 * The data buffers of string/binary views are over-counted the same way (shared between a batch
 * and its slices).
 */
import type { Data, RecordBatch } from 'apache-arrow';

export function dataByteSize(d: Data): number {
  let n = 0;
  for (const b of [d.values, d.valueOffsets, d.nullBitmap, d.typeIds] as (ArrayBufferView | undefined)[]) {
    if (b) n += b.byteLength;
  }
  for (const v of d.variadicBuffers ?? []) n += v.byteLength; // the bytes behind Utf8View/BinaryView views
  for (const c of d.children ?? []) n += dataByteSize(c);
  if (d.dictionary) for (const dd of d.dictionary.data) n += dataByteSize(dd);
  return n;
}

export function batchByteSize(b: RecordBatch): number {
  return dataByteSize(b.data);
}

/** Estimated V8 heap bytes per held batch and per column of it (measured: ~0.4 KB per column). */
const BATCH_OBJECT_BYTES = 256;
const COLUMN_OBJECT_BYTES = 512;

/** What holding `b` costs: its buffers plus its JS objects. */
export function heldBatchBytes(b: RecordBatch): number {
  return batchByteSize(b) + BATCH_OBJECT_BYTES + COLUMN_OBJECT_BYTES * b.data.children.length;
}
