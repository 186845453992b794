/**
 * Writing goes apache-arrow Table -> IPC stream -> wasm Table -> `writeParquet`, atomically.
 * Round-trip findings (parquet.test.ts, parquet-types.test.ts; DuckDB's own types in
 * roundtrip.test.ts): every Arrow type parquet-types.ts accepts comes back from joinlab's own
 * files with the same type, metadata and values, because arrow-rs embeds the Arrow schema
 * (`ARROW:schema`). Other
 * readers do not see that schema: DuckDB reads our timestamp[s] as BIGINT (arrow-rs writes seconds
 * as a bare INT64, no TIMESTAMP annotation; likewise Time32(s) as INTEGER, Duration and Date64 as
 * BIGINT, Float16 as FLOAT, decimals over 38 digits as DOUBLE), timestamp[ms] as TIMESTAMP (us)
 * and dictionary strings as VARCHAR. Files DuckDB writes come back as what DuckDB stored:
 * TIMESTAMP_S as Timestamp(us), HUGEINT/UHUGEINT as Float64 (DuckDB writes them as DOUBLE),
 * ENUM and BIT as Utf8, TIMETZ as its UTC time (DuckDB normalises the offset away), INTERVAL as
 * month-day-nano with millisecond precision (DuckDB writes whole milliseconds).
 *
 * Types on write (parquet-types.ts has the rules and why): `prepareForParquet` checks every column
 * first (nothing is written for a refused table), month-day-nano intervals go out as INTERVAL
 * bytes, and the footer arrow-rs wrote is patched (`patchWrittenFooter`) with INTERVAL, UUID and
 * JSON where they apply.
 *
 * Sort order (`sortedOn`): parquet-rs's writer properties in parquet-wasm 0.8 have no
 * `sorting_columns` setter, and DuckDB's COPY does not write them either, so the same footer patch
 * adds them — the same list in every row group, as the field is per row group. The rows are
 * checked against the declaration as they are written (core/scan/sort-order.ts `SortOrderCheck`,
 * DuckDB's order): a row out of order stops the write with a `UsageError` naming it, and nothing
 * is written, because a reader (ParquetScan.sortedOn) takes the declaration as a claim about the
 * rows. Columns that cannot be sort keys (nested, time, interval, …) are refused up front.
 */
import {
  Compression,
  EnabledStatistics,
  Table as WasmTable,
  transformParquetStream,
  writeParquet,
  WriterPropertiesBuilder,
  type WriterProperties,
} from 'parquet-wasm';
import { open, type FileHandle } from 'node:fs/promises';
import { RecordBatch, Schema, Table, tableToIPC } from 'apache-arrow';
import { conformBatch as conformToSchema } from '../../core/arrow/ipc-chunks.ts';
import { heldBatchBytes } from '../../core/arrow/size.ts';
import { UsageError } from '../../core/errors.ts';
import type { MemoryPool, Reservation } from '../../core/memory/pool.ts';
import type { ScanSortColumn } from '../../core/scan/scan.ts';
import { resolveSortedOn, SortOrderCheck, type SortColumnInput } from '../../core/scan/sort-order.ts';
import { writeFileAtomic } from './atomic.ts';
import { ParquetFileHandle } from './parquet-file.ts';
import { footerTail } from './parquet-footer.ts';
import { parquetPreparer, prepareForParquet, type LeafPatch } from './parquet-types.ts';
import { T_I32, T_I64, T_LIST, T_STRUCT, T_TRUE, tbytes, tget, ThriftReader, ThriftWriter, tlist, tstruct, twith, type TList, type TStruct } from './thrift.ts';

export type ParquetCompression = 'uncompressed' | 'snappy' | 'gzip' | 'brotli' | 'lz4' | 'zstd';

export interface ParquetWriteOptions {
  /** Maximum rows per row group (default 122880, DuckDB's default, so pruning has containers). */
  readonly rowGroupSize?: number;
  /** Default 'snappy'. */
  readonly compression?: ParquetCompression;
  /**
   * The order the rows are in (flags default to ASC NULLS LAST): written as every row group's
   * `sorting_columns`, after checking each row against it (a row out of order is a `UsageError`
   * and nothing is written). Top-level columns with a key order only.
   */
  readonly sortedOn?: readonly SortColumnInput[];
  /**
   * Statistics written (arrow-rs' `EnabledStatistics`): `page` (the default) writes the footer's
   * chunk statistics and a page index (ColumnIndex + OffsetIndex); `chunk` the footer's statistics
   * and only the OffsetIndex; `none` neither statistics nor ColumnIndex.
   */
  readonly statistics?: 'page' | 'chunk' | 'none';
  /**
   * A data page is closed once it holds this many bytes of encoded values (arrow-rs'
   * `data_page_size_limit`, default 1 MiB; arrow-rs also closes one at 20,000 rows). A plain
   * column's page closes at the value that reaches the limit (`dictionary: false`, int64 and
   * 65536: 8,192-row pages); a dictionary-encoded one's is checked every `writeBatchRows` rows
   * (`dataPageBytes: 1`: pages of exactly `writeBatchRows` rows) — until its dictionary passes
   * 1 MiB and arrow-rs falls back to plain, where a tiny limit makes one-row pages.
   */
  readonly dataPageBytes?: number;
  /** Rows the writer encodes between page size checks (arrow-rs' `write_batch_size`, default 1024). */
  readonly writeBatchRows?: number;
  /** Dictionary-encode columns (default true, as arrow-rs; it falls back to plain past a 1 MiB dictionary). */
  readonly dictionary?: boolean;
}

const STATISTICS = { page: EnabledStatistics.Page, chunk: EnabledStatistics.Chunk, none: EnabledStatistics.None } as const;

/** What the footer arrow-rs wrote needs changed: leaf types, and the declared sort order. */
interface FooterPatches {
  readonly leaves: ReadonlyMap<number, LeafPatch>;
  readonly sorting: readonly ScanSortColumn[] | undefined;
}

function needsPatch(p: FooterPatches): boolean {
  return p.leaves.size > 0 || p.sorting !== undefined;
}

const COMPRESSION: Record<ParquetCompression, Compression> = {
  uncompressed: Compression.UNCOMPRESSED,
  snappy: Compression.SNAPPY,
  gzip: Compression.GZIP,
  brotli: Compression.BROTLI,
  lz4: Compression.LZ4_RAW,
  zstd: Compression.ZSTD,
};

/** Encode a Table as Parquet bytes (parquet-rs via wasm; the Arrow schema is embedded). */
export function encodeParquet(table: Table, options: ParquetWriteOptions = {}): Uint8Array {
  const props = writerProperties(options);
  const sorting = resolveSortedOn(table.schema, options.sortedOn, 'the Parquet output');
  const prepared = prepareForParquet(table); // throws UnsupportedTypeError before anything is written
  if (sorting !== undefined) {
    const check = new SortOrderCheck(table.schema, sorting, 'the Parquet output');
    for (const b of table.batches) check.check(b);
  }
  const wasmTable = WasmTable.fromIPCStream(tableToIPC(prepared.table, 'stream'));
  const bytes = writeParquet(wasmTable, props);
  const patches: FooterPatches = { leaves: prepared.patches, sorting };
  return needsPatch(patches) ? patchWrittenFooter(bytes, patches) : bytes;
}

function writerProperties(options: ParquetWriteOptions): WriterProperties {
  const rowGroupSize = options.rowGroupSize ?? 122_880;
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new UsageError(`rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  const compression = COMPRESSION[options.compression ?? 'snappy'];
  if (compression === undefined) throw new UsageError(`unknown Parquet compression '${options.compression}'`);
  let builder = new WriterPropertiesBuilder().setMaxRowGroupSize(rowGroupSize).setCompression(compression);
  if (options.statistics !== undefined) {
    const st = STATISTICS[options.statistics];
    if (st === undefined) throw new UsageError(`unknown Parquet statistics level '${options.statistics}' (page, chunk or none)`);
    builder = builder.setStatisticsEnabled(st);
  }
  for (const [key, value] of [['dataPageBytes', options.dataPageBytes], ['writeBatchRows', options.writeBatchRows]] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new UsageError(`${key} must be a positive integer, got ${value}`);
  }
  if (options.dataPageBytes !== undefined) builder = builder.setDataPageSizeLimit(options.dataPageBytes);
  if (options.writeBatchRows !== undefined) builder = builder.setWriteBatchSize(options.writeBatchRows);
  if (options.dictionary !== undefined) builder = builder.setDictionaryEnabled(options.dictionary);
  return builder.build();
}

const CONVERTED_JSON = 19;
const CONVERTED_INTERVAL = 21;
const LOGICAL_JSON = 12;
const LOGICAL_UUID = 14;

/**
 * `bytes` (a file arrow-rs just wrote) with the footer changes `patches` names per leaf column
 * (parquet-types.ts says why): INTERVAL on the raw 12-byte interval leaves — whose min/max
 * statistics and column index, computed as plain bytes, are dropped, since INTERVAL has no
 * defined sort order — and the UUID / JSON logical types; and every row group's `sorting_columns`
 * when `sortedOn` was given. Column chunks stay where they are.
 */
function patchWrittenFooter(bytes: Uint8Array, patches: FooterPatches): Uint8Array {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = dv.getUint32(bytes.length - 8, true);
  const footerStart = bytes.length - 8 - len;
  const footer = patchedFooter(bytes.subarray(footerStart, bytes.length - 8), patches);
  const out = new Uint8Array(footerStart + footer.length + 8);
  out.set(bytes.subarray(0, footerStart));
  out.set(footerTail(footer), footerStart);
  return out;
}

/**
 * The same patches applied to a file on disk (the streaming writer's temp file, `size` bytes):
 * the footer is read back from the end, re-encoded and written over the old one.
 */
async function patchFooterInFile(fh: FileHandle, size: number, patches: FooterPatches): Promise<void> {
  const tail = new Uint8Array(8);
  await fh.read(tail, 0, 8, size - 8);
  const len = new DataView(tail.buffer).getUint32(0, true);
  const footerStart = size - 8 - len;
  const old = new Uint8Array(len);
  await fh.read(old, 0, len, footerStart);
  const bytes = footerTail(patchedFooter(old, patches));
  await fh.truncate(footerStart);
  await fh.write(bytes, 0, bytes.length, footerStart);
}

/**
 * Declares `sortedOn` in the footer of the Parquet file at `path` (every row group's
 * `sorting_columns`), rewriting the footer in place; the column chunks are not touched. For a
 * file whose writer cannot declare an order — DuckDB's COPY writes no `sorting_columns` — but
 * whose order is known (`COPY (… ORDER BY k) TO …`). The rows are not checked (a reader's
 * consumer still verifies them). Not atomic on its own: meant for a file not yet published (a
 * temp file before its rename, as `writeFileAtomic` hands out). Columns are checked as for the
 * writer's `sortedOn` (typed errors); an empty `sortedOn` removes any declaration.
 */
export async function declareParquetSortOrder(path: string, sortedOn: readonly SortColumnInput[]): Promise<void> {
  const schema = (await ParquetFileHandle.open(path)).schema; // a typed error for anything that is not Parquet
  const sorting = resolveSortedOn(schema, sortedOn, path);
  const fh = await open(path, 'r+');
  try {
    const { size } = await fh.stat();
    await patchFooterInFile(fh, size, { leaves: new Map(), sorting: sorting ?? [] });
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** A footer (Thrift FileMetaData) with `patches` applied. */
function patchedFooter(footerBytes: Uint8Array, footerPatches: FooterPatches): Uint8Array {
  const patches = footerPatches.leaves;
  const raw = new ThriftReader(footerBytes, 0, footerBytes.length).struct();
  const schema = (tlist(raw, 2)!.items as TStruct[]).slice();
  const sortingColumns = footerPatches.sorting === undefined ? null : sortingColumnsList(schema, footerPatches.sorting);
  let leaf = 0;
  for (let i = 1; i < schema.length; i++) {
    const el = schema[i]!;
    const children = tget(el, 5);
    if (tget(el, 1) === undefined || (typeof children === 'number' && children > 0)) continue;
    const patch = patches.get(leaf++);
    if (patch === 'interval') schema[i] = twith(el, [[6, T_I32, CONVERTED_INTERVAL], [10, T_STRUCT, null]]);
    else if (patch === 'uuid') schema[i] = twith(el, [[10, T_STRUCT, [{ id: LOGICAL_UUID, type: T_STRUCT, value: [] }]]]);
    else if (patch === 'json') schema[i] = twith(el, [[6, T_I32, CONVERTED_JSON], [10, T_STRUCT, [{ id: LOGICAL_JSON, type: T_STRUCT, value: [] }]]]);
  }
  const rgs = tlist(raw, 4)!;
  const rowGroups = (rgs.items as TStruct[]).map((rg) => {
    const cols = tlist(rg, 1)!;
    const items = (cols.items as TStruct[]).map((chunk, c) => {
      if (patches.get(c) !== 'interval') return chunk;
      const md = tstruct(chunk, 3)!;
      return twith(chunk, [
        [3, T_STRUCT, twith(md, [[12, T_STRUCT, null]])],
        [6, T_I64, null],
        [7, T_I32, null],
      ]);
    });
    const updates: [number, number, TList | null][] = [[1, T_LIST, { elemType: cols.elemType, items }]];
    if (sortingColumns !== null) updates.push([4, T_LIST, sortingColumns.items.length > 0 ? sortingColumns : null]);
    return twith(rg, updates);
  });
  const w = new ThriftWriter();
  w.struct(
    twith(raw, [
      [2, T_LIST, { elemType: T_STRUCT, items: schema }],
      [4, T_LIST, { elemType: rgs.elemType, items: rowGroups }],
    ]),
  );
  return w.bytes();
}

/** Write a Table as a Parquet file, atomically. */
export async function writeParquetFile(path: string, table: Table, options: ParquetWriteOptions = {}): Promise<void> {
  await writeParquetBatches(path, table.schema, table.batches, options);
}

export interface ParquetStreamOptions extends ParquetWriteOptions {
  /**
   * The run's memory pool: the writer reserves its pending row group there, and shrinks the
   * row group (down to `MIN_STREAM_ROW_GROUP` rows) to fit.
   */
  readonly pool?: MemoryPool;
}

/** Smallest row group the streaming writer shrinks to before it reports the memory limit. */
const MIN_STREAM_ROW_GROUP = 1024;

/**
 * Write `batches` (all of `schema`) as Parquet, atomically, one row group at a time: parquet-rs's
 * streaming writer (`transformParquetStream`) pulls a batch, encodes it into the open row group
 * and flushes the row group's bytes when it is full, and we write those bytes to the temp file as
 * they come — so the file can be far larger than memory. Returns the rows written.
 *
 * Memory: the open row group is held encoded inside wasm, plus the batch being copied in; the
 * writer reserves twice the row group's Arrow bytes (estimated from the first batch) in `pool`,
 * halving the row group until the reservation fits. An error from the source (a join failing
 * mid-way) is rethrown as itself, not as the wasm stream's wrapper, and the temp file is removed.
 */
export async function writeParquetBatches(
  path: string,
  schema: Schema,
  batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch>,
  options: ParquetStreamOptions = {},
): Promise<number> {
  const source = (Symbol.asyncIterator in batches ? batches[Symbol.asyncIterator]() : toAsyncIterator(batches[Symbol.iterator]())) as AsyncIterator<RecordBatch>;
  const reservation = options.pool?.reservation('parquet writer row group');
  let rows = 0;
  let sourceError: unknown = null;
  try {
    const sorting = resolveSortedOn(schema, options.sortedOn, path); // refused before any row is read
    let first = await source.next();
    while (!first.done && first.value.numRows === 0) first = await source.next();
    if (first.done) {
      await writeFileAtomic(path, encodeParquet(new Table(schema), options));
      return 0;
    }
    const preparer = parquetPreparer(schema); // throws UnsupportedTypeError before anything is written
    const check = sorting === undefined ? null : new SortOrderCheck(schema, sorting, path);
    const patches: FooterPatches = { leaves: preparer.patches, sorting };
    const rowGroupSize = fitRowGroup(options.rowGroupSize ?? 122_880, heldBatchBytes(first.value) / first.value.numRows, reservation);
    const props = writerProperties({ ...options, rowGroupSize });
    let pending: RecordBatch | null = first.value;
    const input = new ReadableStream({
      async pull(ctrl) {
        try {
          let b: RecordBatch | null = pending;
          pending = null;
          while (b === null || b.numRows === 0) {
            const r = await source.next();
            if (r.done) {
              ctrl.close();
              return;
            }
            b = r.value;
          }
          const conformed = conformToSchema(b, schema);
          check?.check(conformed); // a row out of order stops the write (the declaration would lie)
          rows += b.numRows;
          const prepared = preparer.prepare(conformed);
          const wasm = WasmTable.fromIPCStream(tableToIPC(new Table(preparer.schema, [prepared]), 'stream'));
          for (const rb of wasm.recordBatches()) ctrl.enqueue(rb);
        } catch (e) {
          sourceError = e;
          ctrl.error(e);
        }
      },
    });
    await writeFileAtomic(path, async (tmp) => {
      const fh = await open(tmp, 'wx+'); // read too: the footer may be patched in place
      try {
        const reader = (await transformParquetStream(input, props)).getReader();
        let size = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          await fh.write(value as Uint8Array);
          size += (value as Uint8Array).byteLength;
        }
        // parquet-rs ends the file normally when its input stream errors: the source's error wins
        if (sourceError !== null) throw sourceError;
        if (needsPatch(patches)) await patchFooterInFile(fh, size, patches);
        await fh.sync();
      } catch (e) {
        throw sourceError ?? new UsageError(`cannot write ${path}: Parquet encoding failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
      } finally {
        await fh.close();
      }
    });
    return rows;
  } finally {
    reservation?.free();
    await source.return?.();
  }
}

/** The largest row group of at most `rows` rows whose estimated bytes `reservation` can hold. */
function fitRowGroup(rows: number, bytesPerRow: number, reservation: Reservation | undefined): number {
  if (reservation === undefined) return rows;
  let n = rows;
  while (!reservation.tryGrow(Math.ceil(2 * n * bytesPerRow))) {
    if (n <= MIN_STREAM_ROW_GROUP) reservation.grow(Math.ceil(2 * n * bytesPerRow)); // throws MemoryLimitError
    n = Math.max(MIN_STREAM_ROW_GROUP, n >> 1);
  }
  return n;
}

async function* toAsyncIterator<T>(it: Iterator<T>): AsyncGenerator<T> {
  for (let r = it.next(); !r.done; r = it.next()) yield r.value;
}

/**
 * `RowGroup.sorting_columns` for `sorting` (top-level primitive columns, by name) over the footer's
 * flat schema list: each column's leaf index, direction and NULL placement.
 */
function sortingColumnsList(schema: readonly TStruct[], sorting: readonly ScanSortColumn[]): TList {
  const leafOf = new Map<string, number>();
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let idx = 1;
  let leaf = 0;
  const walk = (): void => {
    const el = schema[idx++]!;
    const children = tget(el, 5);
    const n = typeof children === 'number' ? children : 0;
    if (tget(el, 1) !== undefined && n === 0) leaf++;
    for (let c = 0; c < n; c++) walk();
  };
  const rootChildren = tget(schema[0], 5);
  for (let c = 0; c < (typeof rootChildren === 'number' ? rootChildren : 0); c++) {
    const start = idx;
    const leafStart = leaf;
    walk();
    const name = tbytes(schema[start], 4);
    if (name !== undefined && idx === start + 1 && leaf === leafStart + 1 && !leafOf.has(decoder.decode(name))) leafOf.set(decoder.decode(name), leafStart);
  }
  const items = sorting.map((c): TStruct => {
    const column = leafOf.get(c.column);
    // resolveSortedOn admits only columns with a key order, which are one primitive leaf each
    if (column === undefined) throw new Error(`sortedOn column '${c.column}' is not a top-level primitive column of the written file`);
    return [
      { id: 1, type: T_I32, value: column },
      { id: 2, type: T_TRUE, value: c.descending },
      { id: 3, type: T_TRUE, value: c.nullsFirst },
    ];
  });
  return { elemType: T_STRUCT, items };
}
