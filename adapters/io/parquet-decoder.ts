/**
 * Decoding a Parquet scan's morsels on worker threads (decoder `parquet`, slot `scan-decoder`):
 * the worker opens the file itself (its footer parsed once per worker: `ParquetFileHandle.open`
 * caches parsed footers by path and identity) and decodes the run of row groups the main thread
 * kept through the same code as `ParquetScan.batches` (`ParquetScan.decodeMorsel`): only the rows
 * of the pages it kept, when it pruned by the page index; the row test's columns first and the
 * others only where rows survive (late materialization), when it was given a row test; the
 * requested columns, in the requested order.
 *
 * Metrics: what the decode did — rows and bytes decoded, the file bytes it read, rows after the
 * row test, late materialization, its time — is added to `options.metrics` (core/scan/morsel.ts),
 * counted exactly as `ParquetScan.batches` counts it on the main thread at `threads=1`.
 *
 * The file must be the one the main thread pruned by: a descriptor carries its identity (device,
 * inode, size, modification time), and a file replaced or rewritten since is a CorruptFileError
 * naming it, never rows of another file.
 */
import { CorruptFileError } from '../../core/errors.ts';
import { addScanMetrics } from '../../core/metrics.ts';
import type { MorselDecoder } from '../../core/scan/morsel.ts';
import { throwIfAborted } from '../../core/scan/abort.ts';
import { ParquetFileHandle } from './parquet-file.ts';
import { PARQUET_DECODER, ParquetScan, type ParquetMorsel } from './parquet-scan.ts';

export { PARQUET_DECODER, type ParquetMorsel };

export const parquetDecoder: MorselDecoder = {
  name: PARQUET_DECODER,
  description: "decodes runs of a Parquet file's row groups (ParquetScan.morsels) on a worker thread",
  async decode(raw, options) {
    const d = raw as ParquetMorsel;
    throwIfAborted(options.signal, d.path);
    const handle = await ParquetFileHandle.open(d.path);
    if (handle.identity !== d.identity) throw new CorruptFileError(d.path, 'the file changed while the query was reading it (its size, inode or modification time differs)');
    const scan = new ParquetScan(handle, d.batchSize === null ? {} : { batchSize: d.batchSize });
    try {
      return await scan.decodeMorsel(d, options.rowTest ?? null, options.signal);
    } finally {
      if (options.metrics !== undefined) addScanMetrics(options.metrics, scan.metrics);
    }
  },
};
