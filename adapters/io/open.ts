/**
 * `openScan`: one entry point from "what the user gave us" to a Scan.
 *
 * - an Arrow Table -> `MemoryScan` (`memory:<name>`), one container per record batch;
 * - `.parquet`/`.pq` -> `ParquetScan` (row groups, pruned by footer statistics before decoding);
 * - `.arrow`/`.ipc`/`.feather` -> the IPC file read into memory, then a `MemoryScan` whose
 *   `source` is the path (IPC has no footer statistics, so zone maps are computed per batch).
 * - `.csv` -> the file read in chunks into typed record batches (csv-read.ts: header, inferred
 *   types, `options.csv.batchSize` rows a batch), then a `MemoryScan` sourced by the path, as for IPC;
 *   an unchanged file opened again while its table is alive is not parsed again.
 * Anything else is a `UsageError`.
 *
 * Sort order (`Scan.sortedOn`): a Parquet scan claims what its footer's `sorting_columns` and
 * row-group statistics show (parquet-sort-order.ts); a bare Table or an IPC file claims nothing —
 * a caller who knows a table's order passes a Scan instead (`sortedTable` /
 * `new MemoryScan(table, name, { sortedOn })`), which the engine takes without calling this.
 */
import type { Table } from 'apache-arrow';
import { UsageError } from '../../core/errors.ts';
import { assertRegularFile } from '../../core/input-file.ts';
import { isCsvPath } from './csv.ts';
import { readCsvFileShared, type CsvReadOptions } from './csv-read.ts';
import { isIpcPath, readIpcFile } from './ipc.ts';
import { isParquetPath } from './parquet.ts';
import { MemoryScan } from '../../operators/memory-scan/memory-scan.ts';
import { ParquetScan, type ParquetScanOptions } from './parquet-scan.ts';
import type { Scan } from '../../core/scan/scan.ts';

export interface OpenScanOptions {
  readonly parquet?: ParquetScanOptions;
  /** CSV inputs: batch size, header, delimiter, … (csv-read.ts). */
  readonly csv?: CsvReadOptions;
}

export async function openScan(source: string | Table, name?: string, options: OpenScanOptions = {}): Promise<Scan> {
  if (typeof source !== 'string') return new MemoryScan(source, name ?? 'table');
  await assertRegularFile(source, name ? `${name} input` : 'input'); // a FIFO would block the open forever
  if (isParquetPath(source)) return ParquetScan.open(source, options.parquet);
  if (isIpcPath(source)) return new MemoryScan(await readIpcFile(source), name ?? source, { source });
  if (isCsvPath(source)) return new MemoryScan(await readCsvFileShared(source, options.csv), name ?? source, { source });
  throw new UsageError(`cannot scan '${source}': expected an Arrow Table or a .parquet/.pq/.arrow/.ipc/.feather/.csv file`);
}
