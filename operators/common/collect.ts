/**
 * Draining a scan into memory under the memory pool: the operators that must see a whole side
 * (the nested-loop join both, a hash join its build) reserve each batch's bytes before keeping it,
 * so a too-large input fails with a `MemoryLimitError` naming the operator instead of exhausting
 * the process. Under a signal, a turn of the event loop and a check every `CANCEL_CHECK_MS` (a
 * long collection is cancellable whatever the scan does between batches).
 */
import type { RecordBatch } from 'apache-arrow';
import { batchByteSize } from '../../core/arrow/size.ts';
import type { Reservation } from '../../core/memory/pool.ts';
import { Pacer } from '../../core/next-turn.ts';
import type { Scan, ScanOptions } from '../../core/scan/scan.ts';

export async function collectScan(scan: Scan, reservation: Reservation, options?: ScanOptions): Promise<RecordBatch[]> {
  const out: RecordBatch[] = [];
  const pacer = new Pacer(options?.signal);
  for await (const b of scan.batches(options)) {
    if (pacer.due()) await pacer.turn();
    if (b.numRows === 0) continue;
    reservation.grow(batchByteSize(b));
    out.push(b);
  }
  return out;
}
