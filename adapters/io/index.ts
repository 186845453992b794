/**
 * File I/O by extension: the one place the CLI and the engine turn a path into a Table, a Scan,
 * or an output file.
 *
 * Formats: `.parquet`/`.pq` (read, scan with row-group pruning, write), `.arrow`/`.ipc`/`.feather`
 * (Arrow IPC: read file or stream format, write file format), `.csv` (read: header and inferred
 * column types, csv-read.ts; write: csv.ts). Matching is case-insensitive.
 *
 * Error choice: an unknown extension is a `UsageError` — the file may be perfectly fine, the
 * request is what cannot be served (`CorruptFileError` would blame the file,
 * `UnsupportedTypeError` is about column types). The message lists the supported extensions.
 * Every write is atomic (temp file + rename, see atomic.ts) and incremental (`writeBatches`).
 * Every writer writes each value it accepts exactly (a string with a leading U+FEFF, NUL, CR,
 * quotes; NULL vs the empty string): DuckDB reads the file back to the same values
 * (roundtrip-exact.test.ts). A string value whose bytes are not valid UTF-8 is refused by all of
 * them alike (`InvalidUtf8Error`, core/arrow/utf8.ts): neither CSV text nor DuckDB's Parquet and
 * Arrow readers could return those bytes.
 */
import type { RecordBatch, Schema, Table } from 'apache-arrow';
import { UsageError } from '../../core/errors.ts';
import { checkBatchUtf8 } from '../../core/arrow/utf8.ts';
import type { MemoryPool } from '../../core/memory/pool.ts';
import { openScan } from './open.ts';
import type { Scan } from '../../core/scan/scan.ts';
import { CSV_EXTENSIONS, isCsvPath, writeCsvBatches } from './csv.ts';
import { readCsvFile } from './csv-read.ts';
import { IPC_EXTENSIONS, isIpcPath, readIpcFile, writeIpcBatches } from './ipc.ts';
import { isParquetPath, PARQUET_EXTENSIONS, readParquetFile, writeParquetBatches, type ParquetWriteOptions } from './parquet.ts';

export type FileFormat = 'parquet' | 'arrow' | 'csv';

const SUPPORTED = `${[...PARQUET_EXTENSIONS, ...IPC_EXTENSIONS, ...CSV_EXTENSIONS].join(', ')} (read/write)`;

/** The format a path's extension names; unknown extensions are a UsageError. */
export function formatOf(path: string): FileFormat {
  if (isParquetPath(path)) return 'parquet';
  if (isIpcPath(path)) return 'arrow';
  if (isCsvPath(path)) return 'csv';
  throw new UsageError(`cannot tell the file format of '${path}' from its extension; supported: ${SUPPORTED}`);
}

/** Read a whole file into a Table. */
export async function readTable(path: string): Promise<Table> {
  switch (formatOf(path)) {
    case 'parquet':
      return readParquetFile(path);
    case 'arrow':
      return readIpcFile(path);
    case 'csv':
      return readCsvFile(path);
  }
}

/** A Scan over a file (Parquet: row groups pruned by footer stats; IPC, CSV: record batches). */
export async function openScanFor(path: string, name?: string): Promise<Scan> {
  formatOf(path); // an unknown extension is a UsageError naming the supported ones
  return openScan(path, name);
}

export interface WriteTableOptions {
  /** Parquet only. */
  readonly parquet?: ParquetWriteOptions;
  /** The memory pool of the run producing the batches (a writer that buffers reserves there). */
  readonly pool?: MemoryPool;
}

/** Write a Table to `path` in the format its extension names, atomically. */
export async function writeTable(path: string, table: Table, options: WriteTableOptions = {}): Promise<void> {
  await writeBatches(path, table.schema, table.batches, options);
}

/**
 * Write `batches` (all of `schema`) to `path` in the format its extension names, atomically and
 * incrementally: Parquet a row group at a time, Arrow IPC and CSV a batch at a time, into the
 * temp file that is renamed over `path` once complete. Returns the rows written. A source that
 * throws (the join failing) leaves no file and no temp file.
 */
export async function writeBatches(path: string, schema: Schema, batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, options: WriteTableOptions = {}): Promise<number> {
  switch (formatOf(path)) {
    case 'parquet':
      return writeParquetBatches(path, schema, utf8Checked(batches, 'Parquet output'), { ...options.parquet, pool: options.pool });
    case 'arrow':
      return writeIpcBatches(path, schema, utf8Checked(batches, 'Arrow IPC output'));
    case 'csv':
      return writeCsvBatches(path, schema, batches); // checks its strings as it decodes them
  }
}

/** `batches`, each checked for string values that are not UTF-8 before the writer sees it. */
async function* utf8Checked(batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>, context: string): AsyncGenerator<RecordBatch> {
  let rows = 0;
  for await (const b of batches) {
    checkBatchUtf8(b, context, rows);
    rows += b.numRows;
    yield b;
  }
}
