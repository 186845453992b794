/**
 * A worker's output for one morsel, sent back in chunks: a morsel of a many-to-many join can yield
 * far more than a worker should hold at once, so a reply takes the morsel's next output batches
 * until about `limit` bytes are held (plus one batch), and says whether more is to come — the
 * caller then asks the same worker for the rest (`PoolSession.map`'s `followUp`). The bytes are
 * reserved while the chunk is gathered and released once it is handed over (its buffers move to
 * the caller with the reply).
 */
import type { RecordBatch } from 'apache-arrow';
import { heldBatchBytes } from '../arrow/size.ts';
import type { Reservation } from '../memory/pool.ts';

export interface ReplyChunk {
  readonly batches: RecordBatch[];
  /** The morsel has more output after these batches. */
  readonly more: boolean;
}

/**
 * The next chunk of `output`, reserving each batch's bytes on `held` (freed on return or throw).
 * An error from `output` propagates after `held` is freed.
 */
export function nextReplyChunk(output: Iterator<RecordBatch>, held: Reservation, limit: number): ReplyChunk {
  const batches: RecordBatch[] = [];
  try {
    for (let r = output.next(); !r.done; r = output.next()) {
      held.grow(heldBatchBytes(r.value));
      batches.push(r.value);
      if (held.size >= limit) return { batches, more: true };
    }
    return { batches, more: false };
  } finally {
    held.free();
  }
}
