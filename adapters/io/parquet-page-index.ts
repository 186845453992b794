/**
 * The Parquet page index of one column chunk: where its data pages are (OffsetIndex) and each
 * page's min/max/null statistics (ColumnIndex), read from the file by their byte ranges and
 * checked before anything trusts them. What the scan prunes pages by (parquet-page-select.ts).
 *
 * The format (apache/parquet-format, `src/main/thrift/parquet.thrift` and `PageIndex.md`):
 * `ColumnChunk` fields 4/5 are `offset_index_offset` / `offset_index_length` and 6/7
 * `column_index_offset` / `column_index_length` (absolute file offsets; writers put the indexes
 * after the last row group, before the footer). `OffsetIndex.page_locations` lists each data page
 * (not the dictionary page) as `{1: offset, 2: compressed_page_size (header included),
 * 3: first_row_index}`, ordered by offset, with strictly increasing first rows. `ColumnIndex` has
 * per page `1: null_pages` (the page is all NULL; its bounds are empty bytes and mean nothing),
 * `2: min_values`, `3: max_values` (bounds in the column's ColumnOrder; they may be shorter,
 * "more compact" values than any on the page — a truncated byte array — but must still be bounds
 * and valid values of the logical type), `4: boundary_order` (informational: only ever used to
 * binary-search, never for correctness here) and `5: null_counts` (optional: absent is unknown,
 * not 0). arrow-rs (parquet/src/file/page_index) and DataFusion
 * (datafusion/datasource-parquet/src/page_filter.rs: per-column page statistics turned into a
 * row selection, intersected over a predicate's columns) read the same structures.
 *
 * Trust, chunk by chunk, and only ever towards "maybe":
 * - an OffsetIndex whose bytes lie outside [4, footer start), does not parse, lists no page, or
 *   whose pages do not start at row 0, do not increase, leave the chunk's byte range, overlap, or
 *   disagree with the chunk's `data_page_offset`, is ignored: the chunk has no page index and is
 *   read whole (row-group granularity). A well-formed OffsetIndex is then checked against the
 *   pages themselves: each page's header (the first bytes at its offset; one read for all pages)
 *   must parse as a data page header whose size plus header length is the page's size and whose
 *   value count (v1) or row count (v2) is the page's rows — a flipped first row or offset would
 *   otherwise shift which rows a page's statistics speak for, and misalign the columns;
 * - a ColumnIndex that is out of range, does not parse, has lists of another length than the
 *   pages, a null count above its page's rows, or a NULL page that claims fewer NULLs than rows
 *   (or a non-NULL page as many as rows), gives no page statistics (every page "maybe");
 * - each page's bounds go through parquet-stats.ts's `convertStats`, exactly as a row group's
 *   footer statistics do (the physical / logical type rules, the column order, NaN, units), so a
 *   bound that cannot be represented safely is "unknown". Two guards are added for the page index
 *   only, because a compact (truncated) bound would change a value's magnitude rather than just
 *   loosen it: a FIXED_LEN_BYTE_ARRAY bound of another length than the type's, and any decimal
 *   stored as a BYTE_ARRAY, are "unknown".
 *
 * What no reader can catch is a well-formed ColumnIndex whose bounds are wrong: it misleads page
 * pruning exactly as wrong footer statistics mislead row-group pruning.
 *
 * Only flat columns get a page index here (a top-level primitive leaf that is not REPEATED, so
 * every row is exactly one value and a page's rows are its values); nested columns are read by
 * whole row groups. Parsed indexes are cached per parsed footer (the footer cache keys files by
 * identity, so an unchanged file reopened — a worker thread's morsel — reuses them); the bytes
 * read count in the reading handle's `bytesRead`.
 */
import type { DataType } from 'apache-arrow';
import type { SchemaElement } from 'hyparquet';
import type { ColumnStats } from '../../core/scan/scan.ts';
import type { FileRanges } from './file-ranges.ts';
import type { Footer } from './parquet-footer.ts';
import { convertStats } from './parquet-stats.ts';
import { T_BINARY, T_I64, tget, ThriftReader, ti64, tlist, tstruct, type TStruct } from './thrift.ts';

/** Where a chunk's data pages are: page `i` holds rows [firstRow[i], firstRow[i + 1]). */
export interface PageLayout {
  readonly numPages: number;
  /** First row of each page, then the row group's row count (numPages + 1 entries). */
  readonly firstRow: Float64Array;
  /** File offset of each page (its header included). */
  readonly offset: Float64Array;
  /** Bytes of each page, header included (`compressed_page_size`). */
  readonly size: Float64Array;
  /** Start of the chunk in the file: the bytes before the first data page are its dictionary page, if any. */
  readonly chunkStart: number;
  /** Where the chunk's `data_page_offset` points, relative to `chunkStart`. */
  readonly dataPageAt: number;
  /** The chunk's `total_uncompressed_size`, for estimating the bytes of pages not read. */
  readonly uncompressedBytes: number;
}

/** The decoded ColumnIndex of a chunk, checked against its layout. */
export interface CheckedColumnIndex {
  readonly nullPages: Uint8Array;
  readonly mins: readonly Uint8Array[];
  readonly maxs: readonly Uint8Array[];
  readonly nullCounts: Float64Array | null;
}

/** One column chunk's page index: its layout and (lazily) its pages' statistics. */
export class ChunkPageIndex {
  #stats: ReadonlyArray<ColumnStats | undefined> | null | undefined;
  constructor(
    readonly layout: PageLayout,
    /** The chunk's ColumnIndex bytes (null: none), parsed on first use. */
    readonly columnIndexBytes: Uint8Array | null,
    readonly element: SchemaElement,
    readonly arrowType: DataType,
    readonly typeDefinedOrder: boolean,
  ) {}

  /** Rows of page `i`. */
  pageRows(i: number): number {
    return this.layout.firstRow[i + 1]! - this.layout.firstRow[i]!;
  }

  /** Per page: its statistics, `undefined` where unknown; null when the chunk has no usable ColumnIndex. */
  stats(): ReadonlyArray<ColumnStats | undefined> | null {
    if (this.#stats !== undefined) return this.#stats;
    const ci = this.columnIndexBytes === null ? null : parseColumnIndex(this.columnIndexBytes, this.layout);
    if (ci === null) return (this.#stats = null);
    const out: (ColumnStats | undefined)[] = [];
    for (let i = 0; i < this.layout.numPages; i++) out.push(this.#pageStats(ci, i));
    return (this.#stats = out);
  }

  #pageStats(ci: CheckedColumnIndex, i: number): ColumnStats | undefined {
    const rows = this.pageRows(i);
    if (ci.nullPages[i] === 1) return { min: null, max: null, nullCount: rows };
    const el = this.element;
    const min = ci.mins[i]!;
    const max = ci.maxs[i]!;
    if (el.type === 'FIXED_LEN_BYTE_ARRAY' && (min.length !== el.type_length || max.length !== el.type_length)) return undefined;
    if (el.type === 'BYTE_ARRAY' && (el.logical_type?.type === 'DECIMAL' || el.converted_type === 'DECIMAL')) return undefined;
    const synthetic: TStruct = [];
    const nc = ci.nullCounts?.[i];
    if (nc !== undefined) synthetic.push({ id: 3, type: T_I64, value: BigInt(nc) });
    synthetic.push({ id: 5, type: T_BINARY, value: max }, { id: 6, type: T_BINARY, value: min });
    return convertStats(synthetic, el, this.arrowType, rows, this.typeDefinedOrder);
  }
}

/** A [offset, length] in the file, or null when absent or outside [4, footerStart). */
function location(chunk: TStruct, offsetId: number, lengthId: number, footerStart: number): [number, number] | null {
  const off = ti64(chunk, offsetId);
  const len = ti64(chunk, lengthId);
  if (off === undefined || len === undefined || len <= 0n || off < 4n || off + len > BigInt(footerStart)) return null;
  return [Number(off), Number(len)];
}

function parse(bytes: Uint8Array): TStruct | null {
  try {
    return new ThriftReader(bytes, 0, bytes.length).struct();
  } catch {
    return null;
  }
}

function asNumber(v: unknown): number | null {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : null;
  return typeof v === 'number' && Number.isInteger(v) ? v : null;
}

/**
 * The OffsetIndex in `bytes`, checked against the chunk ([chunkStart, chunkStart + chunkLength),
 * its `data_page_offset`) and the row group's `numRows`; null when it cannot be trusted.
 */
export function parseOffsetIndex(bytes: Uint8Array, numRows: number, chunkStart: number, chunkLength: number, dataPageOffset: number, uncompressedBytes: number): PageLayout | null {
  const oi = parse(bytes);
  const locs = tlist(oi ?? undefined, 1)?.items;
  if (locs === undefined || locs.length === 0 || numRows <= 0) return null;
  const n = locs.length;
  const firstRow = new Float64Array(n + 1);
  const offset = new Float64Array(n);
  const size = new Float64Array(n);
  const chunkEnd = chunkStart + chunkLength;
  for (let i = 0; i < n; i++) {
    const loc = locs[i];
    if (!Array.isArray(loc)) return null;
    const off = asNumber(tget(loc, 1));
    const len = asNumber(tget(loc, 2));
    const first = asNumber(tget(loc, 3));
    if (off === null || len === null || first === null || len <= 0) return null;
    if (i === 0 ? first !== 0 : first <= firstRow[i - 1]!) return null;
    if (first >= numRows) return null;
    if (off < (i === 0 ? chunkStart : offset[i - 1]! + size[i - 1]!) || off + len > chunkEnd) return null;
    firstRow[i] = first;
    offset[i] = off;
    size[i] = len;
  }
  firstRow[n] = numRows;
  // data_page_offset is the first data page, or (some writers) a dictionary page before it
  if (dataPageOffset > offset[0]! || dataPageOffset < chunkStart) return null;
  return { numPages: n, firstRow, offset, size, chunkStart, dataPageAt: dataPageOffset - chunkStart, uncompressedBytes };
}

/** Bytes read at first for each page header (a header with long statistics is read again whole). */
const HEADER_PROBE = 64;
const MAX_HEADER = 1 << 16;
const DATA_PAGE = 0;
const DATA_PAGE_V2 = 3;

/** Whether the page header in `bytes` (at its start) matches a page of `size` bytes holding `rows` rows; null: cut short. */
function headerMatches(bytes: Uint8Array, size: number, rows: number): boolean | null {
  const r = new ThriftReader(bytes, 0, bytes.length);
  let h: TStruct;
  try {
    h = r.struct();
  } catch {
    return bytes.length < Math.min(size, MAX_HEADER) ? null : false;
  }
  const type = tget(h, 1);
  const compressed = asNumber(tget(h, 3));
  if (compressed === null || r.pos + compressed !== size) return false;
  if (type === DATA_PAGE) return asNumber(tget(tstruct(h, 5), 1)) === rows;
  if (type === DATA_PAGE_V2) return asNumber(tget(tstruct(h, 8), 3)) === rows;
  return false;
}

/** Whether every page of `layout` starts with a data page header that agrees with it (see the module doc). */
export function pagesMatch(source: FileRanges, layout: PageLayout): boolean {
  const n = layout.numPages;
  const probe = new Uint8Array(n * HEADER_PROBE);
  const ranges = [];
  for (let i = 0; i < n; i++) ranges.push({ offset: layout.offset[i]!, length: Math.min(HEADER_PROBE, layout.size[i]!), at: i * HEADER_PROBE });
  source.readRanges(probe, ranges);
  for (let i = 0; i < n; i++) {
    const rows = layout.firstRow[i + 1]! - layout.firstRow[i]!;
    let ok = headerMatches(probe.subarray(i * HEADER_PROBE, i * HEADER_PROBE + ranges[i]!.length), layout.size[i]!, rows);
    if (ok === null) ok = headerMatches(source.read(layout.offset[i]!, Math.min(layout.size[i]!, MAX_HEADER)), layout.size[i]!, rows) === true;
    if (!ok) return false;
  }
  return true;
}

/** The ColumnIndex in `bytes`, checked against `layout`; null when it cannot be trusted. */
export function parseColumnIndex(bytes: Uint8Array, layout: PageLayout): CheckedColumnIndex | null {
  const ci = parse(bytes);
  if (ci === null) return null;
  const n = layout.numPages;
  const nulls = tlist(ci, 1)?.items;
  const mins = tlist(ci, 2)?.items;
  const maxs = tlist(ci, 3)?.items;
  if (nulls?.length !== n || mins?.length !== n || maxs?.length !== n) return null;
  const nullPages = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = nulls[i];
    // a bool in a compact-protocol list is one byte: 1 true (2, or 0 from some writers, false)
    nullPages[i] = v === 1 || v === true ? 1 : 0;
    if (!(mins[i] instanceof Uint8Array) || !(maxs[i] instanceof Uint8Array)) return null;
  }
  let nullCounts: Float64Array | null = null;
  const counts = tlist(ci, 5)?.items;
  if (counts !== undefined) {
    if (counts.length !== n) return null;
    nullCounts = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const c = asNumber(counts[i]);
      const rows = layout.firstRow[i + 1]! - layout.firstRow[i]!;
      if (c === null || c < 0 || c > rows) return null;
      if (nullPages[i] === 1 ? c !== rows : c === rows) return null;
      nullCounts[i] = c;
    }
  }
  return { nullPages, mins: mins as Uint8Array[], maxs: maxs as Uint8Array[], nullCounts };
}

/** Parsed page indexes per footer (so per unchanged file): `rowGroup * numLeaves + leaf` -> index or null. */
const CACHE = new WeakMap<Footer, Map<number, ChunkPageIndex | null>>();

/**
 * The page index of top-level column `top`'s chunk in row group `rowGroup`, read from `source` on
 * first use; null when the column is not flat, the file is encrypted, or the chunk has no
 * (trustworthy) OffsetIndex.
 */
export function chunkPageIndex(source: FileRanges, f: Footer, rowGroup: number, top: number, arrowType: DataType): ChunkPageIndex | null {
  const t = f.tops[top]!;
  const el = t.leafElement;
  if (el === undefined || el.repetition_type === 'REPEATED' || f.encrypted) return null;
  const leaf = t.leafStart;
  let cache = CACHE.get(f);
  if (cache === undefined) CACHE.set(f, (cache = new Map()));
  const key = rowGroup * f.numLeaves + leaf;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const rg = (tlist(f.raw, 4)!.items as TStruct[])[rowGroup]!;
  const chunk = (tlist(rg, 1)!.items as TStruct[])[leaf]!;
  const md = tstruct(chunk, 3);
  const oiAt = location(chunk, 4, 5, f.footerStart);
  let index: ChunkPageIndex | null = null;
  if (md !== undefined && oiAt !== null && tget(chunk, 1) === undefined) {
    const numRows = Number(f.meta.row_groups[rowGroup]!.num_rows);
    const start = f.chunkRanges[rowGroup]![leaf * 2]!;
    const length = f.chunkRanges[rowGroup]![leaf * 2 + 1]!;
    const dataOff = asNumber(ti64(md, 9)) ?? -1;
    const uncompressed = asNumber(ti64(md, 6)) ?? 0;
    // both indexes in one read (the ColumnIndex is small: a few bytes per page)
    const ciAt = location(chunk, 6, 7, f.footerStart);
    const bytes = new Uint8Array(oiAt[1] + (ciAt?.[1] ?? 0));
    source.readRanges(bytes, ciAt === null ? [{ offset: oiAt[0], length: oiAt[1], at: 0 }] : [{ offset: oiAt[0], length: oiAt[1], at: 0 }, { offset: ciAt[0], length: ciAt[1], at: oiAt[1] }]);
    const layout = parseOffsetIndex(bytes.subarray(0, oiAt[1]), numRows, start, length, dataOff, uncompressed);
    if (layout !== null && pagesMatch(source, layout)) {
      index = new ChunkPageIndex(layout, ciAt === null ? null : bytes.subarray(oiAt[1]), el, arrowType, f.typeDefinedOrder[leaf]!);
    }
  }
  cache.set(key, index);
  return index;
}
