/**
 * Parquet files: open once, read the footer (row-group sizes and min/max statistics) without
 * decoding any data, then read and decode only the row groups and columns a scan asks for. The
 * file is read by byte ranges (file-ranges.ts): the head and tail at open, then the column chunks
 * of each decode — never the whole file, except for the rare fallback decode below.
 *
 * This module is the public entry; the work is split by job:
 * - parquet-footer.ts: the footer model (magic, length, FileMetaData walked into fields and
 *   column-chunk ranges), checked against parquet-footer-check.ts first;
 * - parquet-subfile.ts: the sub-files every decode hands to the decoder, and why;
 * - parquet-stats.ts: footer statistics -> `StatValue` bounds;
 * - parquet-page-index.ts: a chunk's page index (OffsetIndex, ColumnIndex), read and checked;
 * - parquet-page-select.ts: the rows a predicate keeps by pages, and decoding only their pages;
 * - parquet-file.ts: the file handle (open, decode, fallback, errors) and `readParquetFile`;
 * - parquet-write.ts: writing, whole tables and streamed batches, and the footer patches (types,
 *   and the declared sort order `sorting_columns`);
 * - parquet-sort-order.ts: the file-wide row order a scan may claim from `sorting_columns`;
 * - parquet-types.ts: which Arrow types are read and written exactly, and how.
 */
export {
  ParquetFileHandle,
  readParquetFile,
  type DecodedRowGroups,
  type DecodeOptions,
  type ParquetReadOptions,
  type ParquetRowGroupInfo,
} from './parquet-file.ts';
export {
  declareParquetSortOrder,
  encodeParquet,
  writeParquetBatches,
  writeParquetFile,
  type ParquetCompression,
  type ParquetStreamOptions,
  type ParquetWriteOptions,
} from './parquet-write.ts';

export const PARQUET_EXTENSIONS: readonly string[] = ['.parquet', '.pq'];

export function isParquetPath(path: string): boolean {
  const p = path.toLowerCase();
  return PARQUET_EXTENSIONS.some((ext) => p.endsWith(ext));
}
