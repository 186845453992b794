/**
 * Byte accounting for Arrow data: the bytes a batch's buffers occupy, for memory reservations and
 * the `bytesDecoded` metric. Dictionaries are counted once per Data (shared dictionaries are
 * over-counted when several batches share one, which errs on the safe side for a memory limit), and
 * so are the data buffers of string/binary views (shared between a batch and its slices likewise).
 */
import type { Data, RecordBatch } from 'apache-arrow';

export function dataByteSize(d: Data): number {
  let n = 0;
  for (const b of [d.values, d.valueOffsets, d.nullBitmap, d.typeIds] as (ArrayBufferView | undefined)[]) {
    if (b) n += b.byteLength;
  }
  for (const v of d.variadicBuffers ?? []) n += v.byteLength; // the bytes behind Utf8View/BinaryView views
  for (const c of d.children) n += dataByteSize(c);
  if (d.dictionary) for (const dd of d.dictionary.data) n += dataByteSize(dd);
  return n;
}

export function batchByteSize(b: RecordBatch): number {
  return dataByteSize(b.data);
}
