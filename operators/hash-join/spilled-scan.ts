/**
 * A spilled partition read back as a Scan, so the in-memory hash join (in-memory.ts) can probe
 * with it exactly as with a table or a file: one container, no statistics, no morsels (the grace
 * hash join runs its partition pairs on the calling thread). A filter in the options is ignored —
 * the probe rows were filtered by the dynamic filter as they were partitioned, and a partition's
 * join publishes none (a filter only ever says "maybe", so not applying one is sound).
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { SpillFile, SpillManager } from '../../core/memory/spill.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { Scan, ScanOptions } from '../../core/scan/scan.ts';

export class SpilledScan implements Scan {
  readonly source: string;
  readonly numRows: number;
  readonly numContainers = 1;
  readonly metrics: ScanMetrics = newScanMetrics();
  readonly #spill: SpillManager;
  readonly #file: SpillFile | null;

  /** `file` null: a partition that got no rows. */
  constructor(spill: SpillManager, file: SpillFile | null, readonly schema: Schema) {
    this.#spill = spill;
    this.#file = file;
    this.source = file === null ? 'spill:empty' : `spill:${file.path}`;
    this.numRows = file?.rows ?? 0;
  }

  async *batches(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    if (this.#file === null) return;
    for await (const b of this.#spill.read(this.#file)) {
      options.signal?.throwIfAborted();
      this.metrics.rowsDecoded += b.numRows;
      this.metrics.rowsAfterFilter += b.numRows;
      if (b.numRows > 0) yield b;
    }
  }
}
