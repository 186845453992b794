/**
 * The Parquet file handle: open reads the head and the footer (parquet-footer.ts); each decode
 * builds a sub-file of what is asked (parquet-subfile.ts says why) and falls back to whole row
 * groups from the original bytes; statistics are decoded per column on first use
 * (parquet-stats.ts). A decode may ask for some rows of each row group only (`DecodeOptions.rows`,
 * from the page index): those are read by pages (parquet-page-select.ts), and the row groups are
 * decoded whole when the pages cannot be (`pageFallbackDecodes`).
 *
 * Errors: a missing file is `FileNotFoundError`; a truncated file, bad magic, a garbled footer,
 * column chunks pointing outside the file, or a decoder failure/panic is `CorruptFileError` naming
 * the file and what is wrong: the footer length against the bytes that precede the 8-byte trailer,
 * the footer byte where its Thrift stops making sense, or the footer field (`FileMetaData.
 * row_groups[2].columns[0].meta_data.codec`) that is missing, of the wrong Thrift type or out of
 * range — checked against the parquet.thrift structure before hyparquet reads the footer, because
 * hyparquet assumes a well-formed footer and fails with messages about its own internals. (It is
 * handed the footer without column statistics: we decode those ourselves, lazily, and a malformed
 * bound is only "unknown", while hyparquet parses them all at open and throws.) A page cut or
 * shifted inside a column chunk is only noticed if the decoder notices: Parquet pages carry no
 * checksum unless the writer added one; when it does, each column chunk of the failed row groups
 * is decoded alone so the message can name the first that fails (`column 's' of row group 1`).
 * An unknown column is `MissingColumnError`; a row-group
 * index out of range is a `UsageError` (it is a caller bug, and would otherwise panic inside
 * wasm).
 *
 * Types: every type is read and written exactly, or refused with an `UnsupportedTypeError`
 * naming the column — parquet-types.ts has the rules and why. In short: the decoder (arrow-rs 59
 * inside parquet-wasm) drops the months of Parquet INTERVAL, the UUID / JSON logical types and
 * TIME's isAdjustedToUTC, and turns Utf8View/BinaryView columns into plain ones; the sub-file
 * footer therefore describes INTERVAL leaves as their raw 12 bytes, and every decoded batch is
 * conformed to the handle's `schema` (interval bytes -> month-day-nano, views rebuilt, extension
 * and UTC metadata attached) — a batch never carries a type other than the schema's. Writing:
 * parquet-write.ts.
 */
import { readParquet, readSchema, wasmMemory } from 'parquet-wasm';
import { CDataUnsupported, importBatches } from './arrow-c-data.ts';
import type { SchemaElement } from 'hyparquet';
import { makeData, RecordBatch, Schema, Struct, Table, tableFromIPC, type DataType, type Field } from 'apache-arrow';
import { CorruptFileError, FileNotFoundError, MissingColumnError, UnsupportedTypeError, UsageError } from '../../core/errors.ts';
import type { ColumnStats, ScanSortColumn } from '../../core/scan/scan.ts';
import { FileRanges } from './file-ranges.ts';
import { bloomLocation, readBloomFilter, type BloomRead } from './parquet-bloom.ts';
import { footerLength, intervalHints, MAGIC, NeedsFallback, parseFooter, type Footer } from './parquet-footer.ts';
import { parquetSortOrder } from './parquet-sort-order.ts';
import { convertStats } from './parquet-stats.ts';
import { buildSubFile } from './parquet-subfile.ts';
import { chunkPageIndex, type ChunkPageIndex } from './parquet-page-index.ts';
import { decodeKeptRows, rangeRows, type RowRanges } from './parquet-page-select.ts';
import { conformBatch, ConformError, exposedField } from './parquet-types.ts';
import { ThriftError, tlist, tstruct, type TStruct } from './thrift.ts';

export interface ParquetRowGroupInfo {
  readonly index: number;
  readonly numRows: number;
  /** Uncompressed bytes of every column chunk of the row group. */
  readonly uncompressedBytes: number;
  /** Uncompressed bytes of one top-level column's chunks (0 for an unknown column). */
  columnBytes(name: string): number;
  /** Footer min/max/null-count of a top-level column; `undefined` = unknown ("maybe"). */
  columnStats(name: string): ColumnStats | undefined;
}

export interface DecodeOptions {
  /** Rows per decoded RecordBatch (default: all rows of the requested row groups, max 1M). */
  readonly batchSize?: number;
  /**
   * Decode into shared memory: the decoded Arrow bytes are copied out of the WebAssembly heap into
   * a `SharedArrayBuffer` instead of an `ArrayBuffer` (the same one copy), so the batches reach
   * worker threads without another (`readParquetFile` does this: a table read whole is a table a
   * parallel join probes).
   */
  readonly shared?: boolean;
  /**
   * How decoded batches leave the WebAssembly heap: `c-data` (default) through the Arrow C data
   * interface, copied once (arrow-c-data.ts); `ipc` serialised to an Arrow IPC stream and parsed
   * again — the older path, kept as the fallback and to measure the difference.
   */
  readonly transfer?: 'c-data' | 'ipc';
  /**
   * Per requested row group, the rows to decode ([start, end) pairs, parquet-page-select.ts), or
   * null for all of them: only those rows' pages are read, by the page index. Columns that cannot
   * be read by pages (not flat, no page index) are read whole and sliced; when the pages cannot be
   * decoded at all, the row groups are decoded whole (`DecodedRowGroups.paged` is then false).
   */
  readonly rows?: readonly (RowRanges | null)[];
}

export interface DecodedRowGroups {
  /** Batches with the decoded columns in file order (a fallback may decode more than asked). */
  readonly batches: RecordBatch[];
  /** Names of the columns actually decoded (what `bytesDecoded` should charge for). */
  readonly columns: readonly string[];
  /** True when `DecodeOptions.rows` was honoured (only those rows came back), else absent. */
  readonly paged?: boolean;
}

function errMessage(e: unknown): string {
  return e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
}

function projectBatch(batch: RecordBatch, names: readonly string[]): RecordBatch {
  const fields: Field[] = [];
  const children = [];
  for (const name of names) {
    const i = batch.schema.fields.findIndex((f) => f.name === name);
    fields.push(batch.schema.fields[i]!);
    children.push(batch.data.children[i]!);
  }
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }));
}

class RowGroupInfo implements ParquetRowGroupInfo {
  readonly #handle: ParquetFileHandle;
  readonly #stats = new Map<string, ColumnStats | undefined>();
  constructor(
    handle: ParquetFileHandle,
    readonly index: number,
    readonly numRows: number,
    readonly uncompressedBytes: number,
  ) {
    this.#handle = handle;
  }
  columnBytes(name: string): number {
    return this.#handle.columnChunkBytes(this.index, name);
  }
  columnStats(name: string): ColumnStats | undefined {
    if (this.#stats.has(name)) return this.#stats.get(name);
    const s = this.#handle.computeColumnStats(this.index, name);
    this.#stats.set(name, s);
    return s;
  }
}

/** Parsed footers of the files opened last, by path and file identity (see `ParquetFileHandle.open`). */
const FOOTERS = new Map<string, { readonly footer: Footer; readonly schema: Schema }>();
const FOOTER_CACHE_SIZE = 32;

export class ParquetFileHandle {
  readonly path: string;
  readonly schema: Schema;
  readonly numRows: number;
  readonly rowGroups: readonly ParquetRowGroupInfo[];
  readonly columnNames: readonly string[];
  /** The file, read by ranges: the footer at open, then only the column chunks decoded. */
  readonly #source: FileRanges;
  /** The whole file, read only if a decode has to fall back to the original bytes. */
  #whole: Uint8Array | null = null;
  readonly #footer: Footer;
  readonly #topIndex = new Map<string, number>();
  #fallbacks = 0;
  #ipcDecodes = 0;
  #pageFallbacks = 0;
  #sortedOn: readonly ScanSortColumn[] | undefined | null = null;

  private constructor(path: string, source: FileRanges, footer: Footer, schema: Schema) {
    this.path = path;
    this.#source = source;
    this.#footer = footer;
    this.schema = schema;
    this.numRows = Number(footer.meta.num_rows);
    this.columnNames = footer.tops.map((t) => t.name);
    footer.tops.forEach((t, i) => {
      if (!this.#topIndex.has(t.name)) this.#topIndex.set(t.name, i);
    });
    this.rowGroups = footer.meta.row_groups.map((rg, r) => {
      let bytesAll = 0;
      for (const c of rg.columns) bytesAll += Number(c.meta_data?.total_uncompressed_size ?? 0);
      return new RowGroupInfo(this, r, Number(rg.num_rows), bytesAll);
    });
  }

  /**
   * Read the file's footer (its head and tail bytes only); no data page is read or decoded. A
   * file opened again unchanged (same device, inode, size and modification time) reuses its parsed
   * footer and schema (`FOOTERS`): a 2,000-row-group footer costs ~0.2 s to parse, which a SQL
   * query over the same files would otherwise pay on every run.
   */
  /** The file's identity when opened (device, inode, size, modification time: FileRanges.identity). */
  get identity(): string {
    return this.#source.identity;
  }

  static async open(path: string): Promise<ParquetFileHandle> {
    const source = FileRanges.open(path);
    const key = `${path}\u0000${source.identity}`;
    const cached = FOOTERS.get(key);
    if (cached !== undefined) {
      FOOTERS.delete(key); // most recently used last
      FOOTERS.set(key, cached);
      return new ParquetFileHandle(path, source, cached.footer, cached.schema);
    }
    const handle = await ParquetFileHandle.#parse(path, source);
    FOOTERS.set(key, { footer: handle.#footer, schema: handle.schema });
    if (FOOTERS.size > FOOTER_CACHE_SIZE) FOOTERS.delete(FOOTERS.keys().next().value!);
    return handle;
  }

  static async #parse(path: string, source: FileRanges): Promise<ParquetFileHandle> {
    let footer: Footer;
    try {
      if (source.size < 12) throw new ThriftError(`file is too short (${source.size} bytes) to be Parquet (at least 12: PAR1, footer length, PAR1)`);
      const head = source.read(0, 4);
      const metaLen = footerLength(source.read(source.size - 8, 8), source.size);
      if (new DataView(head.buffer).getUint32(0, true) !== MAGIC) throw new ThriftError('missing PAR1 magic at the start');
      footer = parseFooter(source.read(source.size - 8 - metaLen, metaLen + 8), source.size);
    } catch (e) {
      if (e instanceof ThriftError) throw new CorruptFileError(path, e.message, { cause: e });
      if (e instanceof CorruptFileError || e instanceof FileNotFoundError) throw e;
      throw new CorruptFileError(path, `footer does not parse: ${errMessage(e)}`, { cause: e });
    }
    let schema: Schema;
    try {
      let footerOnly: Uint8Array;
      try {
        footerOnly = buildSubFile(source, footer, [], null);
      } catch (e) {
        if (!(e instanceof NeedsFallback)) throw e;
        footerOnly = source.readAll();
      }
      schema = tableFromIPC(readSchema(footerOnly).intoIPCStream()).schema;
      if (schema.fields.length === footer.tops.length && footer.fixes.size > 0) {
        const hinted = intervalHints(footer);
        schema = new Schema(
          schema.fields.map((field, t) => exposedField(field, footer.fixes, footer.tops[t]!.leafStart, hinted)),
          schema.metadata,
        );
      }
    } catch (e) {
      throw new CorruptFileError(path, `no Arrow schema can be derived from the footer: ${errMessage(e)}`, { cause: e });
    }
    if (schema.fields.length !== footer.tops.length) {
      throw new CorruptFileError(path, `the Arrow schema derived from the footer has ${schema.fields.length} fields, the Parquet schema ${footer.tops.length} top-level fields`);
    }
    return new ParquetFileHandle(path, source, footer, schema);
  }

  /** File bytes read so far: the footer, then the column chunks of decoded row groups. */
  get bytesRead(): number {
    return this.#source.bytesRead;
  }

  /**
   * The order the file's rows follow across all row groups, as far as the footer shows it:
   * `sorting_columns` every row group declares, cut to what the row groups' min/max statistics
   * prove about their boundaries (parquet-sort-order.ts says why and how). Computed on first use
   * from the footer only.
   */
  get sortedOn(): readonly ScanSortColumn[] | undefined {
    if (this.#sortedOn === null) this.#sortedOn = parquetSortOrder(this.#footer, this.schema, this.rowGroups);
    return this.#sortedOn;
  }

  /** How many decodes fell back to whole-row-group decoding (0 for well-formed files). */
  get fallbackDecodes(): number {
    return this.#fallbacks;
  }

  /** How many page-selective decodes (`DecodeOptions.rows`) fell back to whole row groups (0 for a sound page index). */
  get pageFallbackDecodes(): number {
    return this.#pageFallbacks;
  }

  /**
   * @internal used by ParquetScan: the page index of column `name`'s chunk in row group
   * `rowGroup` (parquet-page-index.ts), read on first use; null when there is none that can be
   * trusted or the column is not flat.
   */
  pageIndex(rowGroup: number, name: string): ChunkPageIndex | null {
    const t = this.#topIndex.get(name);
    return t === undefined ? null : chunkPageIndex(this.#source, this.#footer, rowGroup, t, this.schema.fields[t]!.type);
  }

  /** @internal used by ParquetScan: whether column `name` is one flat leaf (page-selective reads can slice it). */
  flatColumn(name: string): boolean {
    const t = this.#topIndex.get(name);
    const el = t === undefined ? undefined : this.#footer.tops[t]!.leafElement;
    return el !== undefined && el.repetition_type !== 'REPEATED';
  }

  /**
   * Rows `rows` of row groups `indices`, columns `tops`, read by pages (parquet-page-select.ts);
   * null when the pages cannot be decoded that way (the caller decodes whole row groups). Kept out
   * of `#decodeBytes` on purpose: it only calls it.
   */
  #decodePages(indices: readonly number[], tops: readonly number[], rows: readonly (RowRanges | null)[], batchSize: number, shared: boolean, transfer: 'c-data' | 'ipc'): RecordBatch[] | null {
    try {
      const ctx = {
        source: this.#source,
        footer: this.#footer,
        layout: (r: number, t: number) => chunkPageIndex(this.#source, this.#footer, r, t, this.schema.fields[t]!.type)?.layout ?? null,
        decode: (bytes: Uint8Array, names: readonly string[], size: number) => this.#conform(this.#decodeBytes(bytes, undefined, size, shared, transfer), names),
      };
      return decodeKeptRows(ctx, indices, tops, rows, batchSize);
    } catch {
      // whatever went wrong (a page index that lies, a file changed under the scan), the whole
      // row group decode reports it if it is not the page index's fault
      this.#pageFallbacks++;
      return null;
    }
  }

  /**
   * Which column chunk of row groups `indices` does not decode, found by decoding each alone (only
   * after a decode failed, so the message can name it): ` (column 'x' of row group 3)`, or ''.
   */
  #whereCorrupt(indices: readonly number[]): string {
    let tries = 0;
    for (const r of indices) {
      for (let t = 0; t < this.#footer.tops.length; t++) {
        if (++tries > 256) return '';
        try {
          this.#decodeBytes(buildSubFile(this.#source, this.#footer, [r], [t]), undefined, 1 << 20, false, 'c-data');
        } catch (e) {
          if (e instanceof NeedsFallback) continue;
          if (e instanceof CorruptFileError || e instanceof FileNotFoundError) return ''; // the file itself changed
          return ` (column '${this.#footer.tops[t]!.name}' of row group ${r})`;
        }
      }
    }
    return '';
  }

  /** @internal used by ParquetRowGroupInfo */
  columnChunkBytes(rowGroup: number, name: string): number {
    const t = this.#topIndex.get(name);
    if (t === undefined) return 0;
    const top = this.#footer.tops[t]!;
    const cols = this.#footer.meta.row_groups[rowGroup]!.columns;
    let bytes = 0;
    for (let l = top.leafStart; l < top.leafEnd; l++) bytes += Number(cols[l]?.meta_data?.total_uncompressed_size ?? 0);
    return bytes;
  }

  /** @internal used by ParquetRowGroupInfo (cached there) */
  computeColumnStats(rowGroup: number, name: string): ColumnStats | undefined {
    const t = this.#topIndex.get(name);
    if (t === undefined) return undefined;
    const top = this.#footer.tops[t]!;
    if (!top.leafElement) return undefined;
    const rg = (tlist(this.#footer.raw, 4)!.items as TStruct[])[rowGroup]!;
    const chunk = (tlist(rg, 1)!.items as TStruct[])[top.leafStart]!;
    const stats = tstruct(tstruct(chunk, 3), 12);
    return convertStats(
      stats,
      top.leafElement,
      this.schema.fields[t]!.type,
      this.rowGroups[rowGroup]!.numRows,
      this.#footer.typeDefinedOrder[top.leafStart]!,
    );
  }

  /**
   * @internal used by ParquetScan's Bloom pruning: the Parquet leaf and the Arrow type of a
   * top-level column that is one primitive leaf (null for a nested or unknown column).
   */
  bloomColumn(name: string): { readonly element: SchemaElement; readonly type: DataType } | null {
    const t = this.#topIndex.get(name);
    if (t === undefined) return null;
    const el = this.#footer.tops[t]!.leafElement;
    return el === undefined ? null : { element: el, type: this.schema.fields[t]!.type };
  }

  /**
   * @internal used by ParquetScan: the Bloom filter of column `name`'s chunk in row group
   * `rowGroup`, read from the file (parquet-bloom.ts); `undefined` when the chunk has none (or the
   * file is encrypted: its filters may be too). Its bytes count in `bytesRead`.
   */
  readBloomFilter(rowGroup: number, name: string): BloomRead | undefined {
    const t = this.#topIndex.get(name);
    if (t === undefined || this.#footer.encrypted) return undefined;
    const top = this.#footer.tops[t]!;
    if (top.leafElement === undefined) return undefined;
    const rg = (tlist(this.#footer.raw, 4)!.items as TStruct[])[rowGroup];
    const chunk = (tlist(rg, 1)?.items as TStruct[] | undefined)?.[top.leafStart];
    const loc = bloomLocation(tstruct(chunk, 3));
    if (loc === null) return undefined;
    return readBloomFilter(this.#source, loc, this.#footer.footerStart);
  }

  #checkRowGroups(indices: readonly number[]): void {
    for (const r of indices) {
      if (!Number.isInteger(r) || r < 0 || r >= this.rowGroups.length) {
        throw new UsageError(`row group ${r} out of range: ${this.path} has ${this.rowGroups.length} row groups`);
      }
    }
  }

  #topsFor(columns: readonly string[] | undefined): number[] | null {
    if (columns === undefined) return null;
    const tops = new Set<number>();
    for (const c of columns) {
      const t = this.#topIndex.get(c);
      if (t === undefined) throw new MissingColumnError(c, this.path, this.columnNames);
      tops.add(t);
    }
    return [...tops].sort((a, b) => a - b);
  }

  /**
   * Decoded batches of `bytes` (a sub-file, or the original file with `rowGroups`): exported by
   * the decoder through the Arrow C data interface and copied once (arrow-c-data.ts); decoded again
   * and handed over as IPC when the export holds something that module does not read.
   */
  #decodeBytes(bytes: Uint8Array, rowGroups: number[] | undefined, batchSize: number, shared: boolean, transfer: 'c-data' | 'ipc'): RecordBatch[] {
    const options = rowGroups ? { rowGroups, batchSize } : { batchSize };
    if (transfer === 'c-data') {
      const ffi = readParquet(bytes, options).intoFFI();
      try {
        return importBatches(wasmMemory().buffer, ffi.schemaAddr(), ffi.arrayAddrs(), shared);
      } catch (e) {
        if (!(e instanceof CDataUnsupported)) throw e;
        this.#ipcDecodes++;
      } finally {
        ffi.free();
      }
    }
    const wasm = readParquet(bytes, options);
    const table = tableFromIPC(shared ? wasmIpcShared(wasm) : wasm.intoIPCStream());
    return table.batches.filter((b) => b.numRows > 0);
  }

  /** How many decodes went through IPC because the C data export held something unread (0 for flat files). */
  get ipcDecodes(): number {
    return this.#ipcDecodes;
  }

  /** Decoded batches of the columns `names` (file order) as the handle's schema says them. */
  #conform(batches: RecordBatch[], names: readonly string[]): RecordBatch[] {
    const fields = names.map((n) => this.schema.fields[this.#topIndex.get(n)!]!);
    try {
      return batches.map((b) => conformBatch(b, fields));
    } catch (e) {
      if (e instanceof ConformError) throw new CorruptFileError(this.path, e.message, { cause: e });
      throw e;
    }
  }

  /**
   * Decode row groups `indices` (in that order), columns `columns` (default all). Synchronous
   * work behind a Promise so a future worker-based decoder can keep the signature.
   */
  async decodeRowGroups(
    indices: readonly number[],
    columns?: readonly string[],
    options: DecodeOptions = {},
  ): Promise<DecodedRowGroups> {
    this.#checkRowGroups(indices);
    const keep = this.#topsFor(columns);
    const names = (keep ?? this.#footer.tops.map((_, i) => i)).map((t) => this.#footer.tops[t]!.name);
    if (indices.length === 0) return { batches: [], columns: names };
    const rowsWanted = options.rows?.some((r) => r !== null) === true ? options.rows : undefined;
    if (keep !== null && keep.length === 0) {
      // Nothing to decode: row counts come from the footer.
      const schema = new Schema([]);
      const batches = indices
        .map((r, k) => (rowsWanted?.[k] != null ? rangeRows(rowsWanted[k]!) : this.rowGroups[r]!.numRows))
        .filter((n) => n > 0)
        .map((n) => new RecordBatch(schema, makeData({ type: new Struct([]), length: n, nullCount: 0, children: [] })));
      return { batches, columns: [], ...(rowsWanted !== undefined ? { paged: true } : {}) };
    }
    let rows = 0;
    for (const r of indices) rows += this.rowGroups[r]!.numRows;
    const batchSize = Math.max(1, Math.min(options.batchSize ?? rows, 1 << 20));
    if (rowsWanted !== undefined) {
      const tops = keep ?? this.#footer.tops.map((_, i) => i);
      const batches = this.#decodePages(indices, tops, rowsWanted, batchSize, options.shared === true, options.transfer ?? 'c-data');
      if (batches !== null) return { batches, columns: names, paged: true };
    }
    let sub: Uint8Array | null = null;
    let decoded = names;
    try {
      sub = buildSubFile(this.#source, this.#footer, indices, keep);
    } catch (e) {
      if (!(e instanceof NeedsFallback)) throw e;
      try {
        sub = buildSubFile(this.#source, this.#footer, indices, null);
        decoded = this.columnNames.slice();
      } catch (e2) {
        if (!(e2 instanceof NeedsFallback)) throw e2;
      }
    }
    if (sub !== null) {
      try {
        const batches = this.#decodeBytes(sub, undefined, batchSize, options.shared === true, options.transfer ?? 'c-data');
        return { batches: this.#conform(batches, decoded), columns: decoded };
      } catch (e) {
        if (e instanceof UnsupportedTypeError || e instanceof CorruptFileError) throw e;
        // fall through: retry on the original bytes, so a sub-file problem can never be
        // misreported as a corrupt file
      }
    }
    this.#fallbacks++;
    try {
      const batches = this.#decodeBytes((this.#whole ??= this.#source.readAll()), [...indices], batchSize, options.shared === true, options.transfer ?? 'c-data');
      return { batches: this.#conform(batches, this.columnNames), columns: this.columnNames.slice() };
    } catch (e) {
      if (e instanceof CorruptFileError || e instanceof FileNotFoundError || e instanceof UnsupportedTypeError) throw e;
      throw new CorruptFileError(this.path, `row groups [${indices.join(', ')}] do not decode${this.#whereCorrupt(indices)}: ${errMessage(e)}`, {
        cause: e,
      });
    }
  }

  /** Decode row groups `indices` and return batches with exactly `columns`, in that order. */
  async readRowGroups(indices: readonly number[], columns?: readonly string[], options?: DecodeOptions): Promise<RecordBatch[]> {
    const { batches } = await this.decodeRowGroups(indices, columns, options);
    const want = columns ?? this.columnNames;
    return batches.map((b) => projectBatch(b, want));
  }

  /** The Arrow schema restricted to `columns` (in that order). */
  schemaFor(columns?: readonly string[]): Schema {
    if (!columns) return this.schema;
    this.#topsFor(columns);
    return new Schema(
      columns.map((c) => this.schema.fields[this.#topIndex.get(c)!]!),
      this.schema.metadata,
    );
  }
}

export interface ParquetReadOptions {
  readonly columns?: readonly string[];
  readonly rowGroups?: readonly number[];
}

/**
 * parquet-wasm's decoded table as IPC bytes in a `SharedArrayBuffer` (its binding returns a fresh
 * `ArrayBuffer` copy of the WebAssembly heap; this copies that once more, a memcpy beside the decode).
 */
function wasmIpcShared(wasm: ReturnType<typeof readParquet>): Uint8Array {
  const ipc = wasm.intoIPCStream();
  const shared = new Uint8Array(new SharedArrayBuffer(ipc.byteLength));
  shared.set(ipc);
  return shared;
}

/** Read (part of) a Parquet file into an Arrow Table; columns come back in the requested order, their buffers in shared memory (`DecodeOptions.shared`). */
export async function readParquetFile(path: string, options: ParquetReadOptions = {}): Promise<Table> {
  const h = await ParquetFileHandle.open(path);
  const rgs = options.rowGroups ?? h.rowGroups.map((_, i) => i);
  const batches = await h.readRowGroups(rgs, options.columns, { batchSize: 1 << 16, shared: true });
  return batches.length > 0 ? new Table(batches) : new Table(h.schemaFor(options.columns));
}
