/**
 * The worker-side half of `Scan.morsels` (core/scan/scan.ts): a `MorselDecoder` turns a
 * `DecodeMorsel`'s descriptor into record batches on the worker thread that runs it. A file format
 * registers its decoder in slot `scan-decoder` from its extension, so every worker — which loads
 * the engine's extensions — can decode what that format's scan hands out.
 *
 * A decoder must give exactly the batches the scan's own `batches` would have given for those
 * containers under the row test it is given (`DecodeOptions.rowTest`; none: every row): same
 * columns, in the requested order, same types. Its errors are the scan's (a corrupt file is a
 * `CorruptFileError` naming the path).
 *
 * Metrics: the scan's `ScanMetrics` live on the main thread, which only prunes when workers decode.
 * The decoder counts what it did — rows and bytes decoded, the file bytes it read for them, rows
 * after the row test, late materialization, its time — into `DecodeOptions.metrics` exactly as the
 * scan's `batches` counts them, and the operator posts that delta back with its reply and adds it
 * into the scan's metrics (core/metrics.ts `addScanMetrics`). The scan's `morsels` counts only
 * what the main thread does (containers visited and pruned, pages asked, Bloom filters, the
 * footer), so each quantity is counted once, at every thread count.
 */
import type { RecordBatch } from 'apache-arrow';
import type { ScanMetrics } from '../metrics.ts';
import type { Strategy } from '../registry/registry.ts';

/** A dynamic filter's row test on a worker: its columns and `selectRows` (core/scan/shared-row-test.ts restores it). */
export interface MorselRowTest {
  /** Columns the test reads; a batch without all of them keeps every row (as `ScanPredicate.columns`). */
  readonly columns: readonly string[];
  /** Ascending indices of the rows that may pass, or null to keep every row. */
  selectRows(batch: RecordBatch): Int32Array | null;
}

export interface DecodeOptions {
  readonly signal?: AbortSignal;
  /**
   * Applied to the decoded rows (and, by a decoder that can, before the other columns are decoded:
   * late materialization); absent or null: every row is kept.
   */
  readonly rowTest?: MorselRowTest | null;
  /** Where the decoder adds what it did (a fresh object per morsel or reply: a delta). */
  readonly metrics?: ScanMetrics;
}

export interface MorselDecoder extends Strategy {
  decode(descriptor: unknown, options: DecodeOptions): Promise<readonly RecordBatch[]>;
}
