/**
 * Decoding a Parquet scan's morsels on worker threads (decoder `parquet`, slot `scan-decoder`):
 * the worker opens the file itself (its footer parsed once per worker: `ParquetFileHandle.open`
 * caches parsed footers by path and identity), decodes the run of row groups the main thread
 * kept (only the rows of the pages it kept, when it pruned by the page index), with only the
 * requested columns, and returns them in the requested order — what
 * `ParquetScan.batches` yields for those row groups without a row filter.
 *
 * The file must be the one the main thread pruned by: a descriptor carries its identity (device,
 * inode, size, modification time), and a file replaced or rewritten since is a CorruptFileError
 * naming it, never rows of another file.
 */
import type { RecordBatch } from 'apache-arrow';
import { CorruptFileError } from '../../core/errors.ts';
import type { MorselDecoder } from '../../core/scan/morsel.ts';
import { throwIfAborted } from '../../operators/memory-scan/memory-scan.ts';
import { ParquetFileHandle } from './parquet-file.ts';

export const PARQUET_DECODER = 'parquet';

export interface ParquetMorsel {
  readonly path: string;
  /** `ParquetFileHandle.identity` when the main thread opened the file. */
  readonly identity: string;
  readonly rowGroups: readonly number[];
  readonly columns: readonly string[];
  readonly batchSize: number | null;
  /** Per row group, the rows its pages may hold (`DecodeOptions.rows`); absent: all rows. */
  readonly rows?: readonly (readonly number[] | null)[];
}

export const parquetDecoder: MorselDecoder = {
  name: PARQUET_DECODER,
  description: "decodes runs of a Parquet file's row groups (ParquetScan.morsels) on a worker thread",
  async decode(raw, options) {
    const d = raw as ParquetMorsel;
    throwIfAborted(options.signal, d.path);
    const handle = await ParquetFileHandle.open(d.path);
    if (handle.identity !== d.identity) throw new CorruptFileError(d.path, 'the file changed while the query was reading it (its size, inode or modification time differs)');
    const batches: RecordBatch[] = await handle.readRowGroups(d.rowGroups, d.columns, {
      ...(d.batchSize === null ? {} : { batchSize: d.batchSize }),
      ...(d.rows !== undefined ? { rows: d.rows } : {}),
    });
    return batches.filter((b) => b.numRows > 0);
  },
};
