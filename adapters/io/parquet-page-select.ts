/**
 * Pages as containers: which rows of a row group a predicate may keep by the page index
 * (parquet-page-index.ts), which pages of each column hold those rows, and decoding only those
 * pages so that every column comes back with exactly the kept rows, aligned.
 *
 * Kept rows. For each predicate column with page statistics, each page is asked `mayContain` as
 * a container of its own: a `ContainerStats` of the page's rows whose `column()` gives that
 * page's statistics for that column and `undefined` (unknown) for every other column. A page is
 * dropped only when the predicate says no row can pass whatever the other columns hold, so the
 * rows a column keeps are sound on their own, and so is their intersection over the predicate's
 * columns (DataFusion's page_filter.rs intersects its per-column row selections the same way). No
 * column with statistics -> no page pruning (null). Every page dropped -> nothing kept (the row
 * group is pruned). Ranges are [start, end) pairs of rows within the row group, ascending,
 * disjoint and never adjacent.
 *
 * Pages per column. Pages of different columns start at different rows, so each column needs the
 * pages that overlap a kept range; the union of those pages (its *spans*) covers the kept ranges
 * and usually a little more at each end. A column without a trusted page index — or all of whose
 * pages are needed — is read whole (one span: the row group).
 *
 * Decoding (the decoder only reads whole files, parquet-subfile.ts): columns whose spans are the
 * same in every row group of the run are decoded together from one sub-file whose chunks hold the
 * head (dictionary page) and the selected data pages, the row group's `num_rows` being the spans'
 * rows; the decoded rows are the spans' rows in order. A kept range lies inside one span of every
 * column (the pages overlapping it are contiguous), so each kept range is a contiguous slice of
 * every group's decoded rows; the output is those slices side by side (zero copy), cut where a
 * group's decoded batch ends and at `batchSize`. A group decoding to another row count than its
 * spans is a `NeedsFallback` (the caller decodes whole row groups instead: the page index is then
 * ignored, never trusted over the data).
 *
 * Only flat columns (parquet-page-index.ts says which); the caller reads a row group with any
 * other column whole.
 */
import { makeData, RecordBatch, Schema, Struct, type Field } from 'apache-arrow';
import type { ColumnStats, ContainerStats, ScanPredicate } from '../../core/scan/scan.ts';
import type { FileRanges } from './file-ranges.ts';
import { NeedsFallback, type Footer } from './parquet-footer.ts';
import type { ChunkPageIndex, PageLayout } from './parquet-page-index.ts';
import { buildSubFile, type ChunkPart } from './parquet-subfile.ts';

/** Rows of a row group as [start, end) pairs, ascending, disjoint, not adjacent. */
export type RowRanges = readonly number[];

/** One page of one column as a container: its own statistics for that column, nothing else known. */
class PageContainer implements ContainerStats {
  constructor(
    readonly index: number,
    readonly numRows: number,
    readonly bytes: number,
    readonly name: string,
    readonly stats: ColumnStats,
  ) {}
  column(name: string): ColumnStats | undefined {
    return name === this.name ? this.stats : undefined;
  }
}

/** A predicate column's page index and its pages' statistics (null entries: unknown). */
export interface PageColumn {
  readonly name: string;
  readonly index: ChunkPageIndex;
  readonly stats: ReadonlyArray<ColumnStats | undefined>;
}

/** Rows of `ranges`. */
export function rangeRows(ranges: RowRanges): number {
  let n = 0;
  for (let i = 0; i < ranges.length; i += 2) n += ranges[i + 1]! - ranges[i]!;
  return n;
}

/** Appends [a, b) to `out`, merging with the last range when they touch. */
function push(out: number[], a: number, b: number): void {
  if (a >= b) return;
  if (out.length > 0 && out[out.length - 1]! >= a) out[out.length - 1] = Math.max(out[out.length - 1]!, b);
  else out.push(a, b);
}

/** The rows in both `x` and `y`. */
export function intersectRanges(x: RowRanges, y: RowRanges): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const a = Math.max(x[i]!, y[j]!);
    const b = Math.min(x[i + 1]!, y[j + 1]!);
    push(out, a, b);
    if (x[i + 1]! < y[j + 1]!) i += 2;
    else j += 2;
  }
  return out;
}

/** What the pages of a row group's predicate columns said. */
export interface PageVerdict {
  /** The rows the predicate may keep; null when no column has page statistics (no page said anything). */
  readonly ranges: number[] | null;
  /** Pages asked (those with statistics), over all the columns. */
  readonly pages: number;
  /** Of those, the pages ruled out. */
  readonly pruned: number;
}

/** The rows of a row group of `numRows` rows that `predicate` may keep by the pages of `columns`. */
export function keptRowRanges(numRows: number, predicate: ScanPredicate, columns: readonly PageColumn[]): PageVerdict {
  let kept: number[] | null = null;
  let pages = 0;
  let pruned = 0;
  for (const c of columns) {
    const layout = c.index.layout;
    const own: number[] = [];
    for (let i = 0; i < layout.numPages; i++) {
      const s = c.stats[i];
      const rows = layout.firstRow[i + 1]! - layout.firstRow[i]!;
      pages++;
      if (s !== undefined && !predicate.mayContain(new PageContainer(i, rows, layout.size[i]!, c.name, s))) {
        pruned++;
        continue;
      }
      push(own, layout.firstRow[i]!, layout.firstRow[i + 1]!);
    }
    kept = kept === null ? own : intersectRanges(kept, own);
  }
  return { ranges: kept !== null && kept.length === 2 && kept[0] === 0 && kept[1] === numRows ? [0, numRows] : kept, pages, pruned };
}

/** Per page of `layout`: 1 when it holds a row of `ranges`. */
export function selectPages(layout: PageLayout, ranges: RowRanges): Uint8Array {
  const sel = new Uint8Array(layout.numPages);
  let j = 0;
  for (let i = 0; i < layout.numPages && j < ranges.length; i++) {
    const lo = layout.firstRow[i]!;
    const hi = layout.firstRow[i + 1]!;
    while (j < ranges.length && ranges[j + 1]! <= lo) j += 2;
    if (j < ranges.length && ranges[j]! < hi) sel[i] = 1;
  }
  return sel;
}

/** The rows of the selected pages, merged. */
function spansOf(layout: PageLayout, sel: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < layout.numPages; i++) if (sel[i] === 1) push(out, layout.firstRow[i]!, layout.firstRow[i + 1]!);
  return out;
}

/** What reading `ranges` of a chunk costs in pages: all, not read, and the uncompressed bytes not read (estimated). */
export interface PageCounts {
  readonly pages: number;
  readonly skipped: number;
  readonly skippedBytes: number;
}

/**
 * Pages of `layout` a read of `ranges` leaves out. Bytes are the chunk's uncompressed size in
 * proportion to the skipped pages' share of its data page bytes (the footer has no per-page
 * uncompressed size, and reading page headers would read the pages).
 */
export function pageCounts(layout: PageLayout, ranges: RowRanges): PageCounts {
  const sel = selectPages(layout, ranges);
  let skipped = 0;
  let all = 0;
  let out = 0;
  for (let i = 0; i < layout.numPages; i++) {
    all += layout.size[i]!;
    if (sel[i] === 0) {
      skipped++;
      out += layout.size[i]!;
    }
  }
  return { pages: layout.numPages, skipped, skippedBytes: all > 0 ? Math.round((layout.uncompressedBytes * out) / all) : 0 };
}

/** Rows of the pages of `layout` a read of `ranges` decodes (whole pages: a page is decoded or not). */
export function pageRowsRead(layout: PageLayout, ranges: RowRanges): number {
  const sel = selectPages(layout, ranges);
  let rows = 0;
  for (let i = 0; i < layout.numPages; i++) if (sel[i] !== 0) rows += layout.firstRow[i + 1]! - layout.firstRow[i]!;
  return rows;
}

/** The chunk part holding the selected pages (and the head before the first data page). */
function chunkPart(layout: PageLayout, sel: Uint8Array): ChunkPart {
  const copies: number[] = [];
  const head = layout.offset[0]! - layout.chunkStart;
  if (head > 0) copies.push(layout.chunkStart, head);
  let rows = 0;
  let bytes = 0;
  let all = 0;
  for (let i = 0; i < layout.numPages; i++) {
    all += layout.size[i]!;
    if (sel[i] === 0) continue;
    rows += layout.firstRow[i + 1]! - layout.firstRow[i]!;
    bytes += layout.size[i]!;
    const last = copies.length - 2;
    if (last >= 0 && copies[last]! + copies[last + 1]! === layout.offset[i]!) copies[last + 1] = copies[last + 1]! + layout.size[i]!;
    else copies.push(layout.offset[i]!, layout.size[i]!);
  }
  return {
    copies,
    rows,
    dataPageAt: layout.dataPageAt < head ? layout.dataPageAt : head,
    uncompressedBytes: all > 0 ? Math.round((layout.uncompressedBytes * bytes) / all) : layout.uncompressedBytes,
  };
}

/** What decoding kept rows needs from the file handle. */
export interface PageDecodeContext {
  readonly source: FileRanges;
  readonly footer: Footer;
  /** The page layout of top-level column `top` in row group `rowGroup` (null: read the chunk whole). */
  layout(rowGroup: number, top: number): PageLayout | null;
  /** A sub-file decoded into batches of the top-level columns `names` (file order), as the handle's schema says them. */
  decode(subFile: Uint8Array, names: readonly string[], batchSize: number): RecordBatch[];
}

/** Columns decoded from one sub-file: their rows per row group are `spans[k]`. */
interface Group {
  readonly tops: number[];
  readonly spans: readonly (readonly number[])[];
  readonly parts: Map<number, ChunkPart>;
  batches: RecordBatch[];
  /** Row at which each decoded batch starts, then the total. */
  starts: number[];
}

/**
 * The rows `rows[k]` of row group `rowGroups[k]` (null: all of them) of the top-level columns
 * `tops` (ascending), decoded page-selectively (see the module doc) into batches of at most
 * `batchSize` rows, columns in file order. Throws `NeedsFallback` when the pages cannot be decoded
 * this way (the caller decodes the row groups whole).
 */
export function decodeKeptRows(
  ctx: PageDecodeContext,
  rowGroups: readonly number[],
  tops: readonly number[],
  rows: readonly (RowRanges | null)[],
  batchSize: number,
): RecordBatch[] {
  const f = ctx.footer;
  const numRows = rowGroups.map((r) => Number(f.meta.row_groups[r]!.num_rows));
  const wanted = rowGroups.map((_, k) => rows[k] ?? [0, numRows[k]!]);
  const live = rowGroups.map((_, k) => k).filter((k) => wanted[k]!.length > 0);
  if (live.length === 0) return [];
  const groups = new Map<string, Group>();
  for (const t of tops) {
    const top = f.tops[t]!;
    if (top.leafEnd !== top.leafStart + 1) throw new NeedsFallback(`column '${top.name}' is not flat`);
    const spans: (readonly number[])[] = [];
    const parts: Array<[number, ChunkPart]> = [];
    for (const k of live) {
      const r = rowGroups[k]!;
      const layout = ctx.layout(r, t);
      const sel = layout === null ? null : selectPages(layout, wanted[k]!);
      if (layout === null || sel === null || sel.every((s) => s === 1)) {
        spans.push([0, numRows[k]!]);
        continue;
      }
      spans.push(spansOf(layout, sel));
      parts.push([r * f.numLeaves + top.leafStart, chunkPart(layout, sel)]);
    }
    const key = spans.map((s) => s.join(',')).join(';');
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = { tops: [], spans, parts: new Map(), batches: [], starts: [] }));
    g.tops.push(t);
    for (const [at, p] of parts) g.parts.set(at, p);
  }
  const liveRowGroups = live.map((k) => rowGroups[k]!);
  for (const g of groups.values()) {
    let total = 0;
    for (const s of g.spans) total += rangeRows(s);
    const sub = buildSubFile(ctx.source, f, liveRowGroups, g.tops, (r, leaf) => g.parts.get(r * f.numLeaves + leaf) ?? null);
    g.batches = ctx.decode(sub, g.tops.map((t) => f.tops[t]!.name), Math.max(1, Math.min(total, 1 << 20)));
    let at = 0;
    for (const b of g.batches) {
      g.starts.push(at);
      at += b.numRows;
    }
    g.starts.push(at);
    if (at !== total) throw new NeedsFallback(`the selected pages of columns ${g.tops.map((t) => f.tops[t]!.name).join(', ')} decoded to ${at} rows, the page index says ${total}`);
  }
  return align([...groups.values()], live.map((k) => wanted[k]!), tops, f, Math.max(1, batchSize));
}

/** Position of row `row` in the concatenation of `spans` (it lies in one of them). */
function positionIn(spans: readonly number[], row: number): number {
  let before = 0;
  for (let i = 0; i < spans.length; i += 2) {
    if (row < spans[i + 1]!) return before + (row - spans[i]!);
    before += spans[i + 1]! - spans[i]!;
  }
  throw new NeedsFallback(`row ${row} lies in no selected page`);
}

/** Index of the batch holding decoded row `pos` (`starts` ascending, last = total). */
function batchAt(starts: readonly number[], pos: number): number {
  let lo = 0;
  let hi = starts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The kept ranges of every row group as batches: each group's decoded rows sliced to them, side by side. */
function align(groups: readonly Group[], wanted: readonly RowRanges[], tops: readonly number[], f: Footer, batchSize: number): RecordBatch[] {
  // where each output column comes from: group, child index
  const from = tops.map((t) => {
    for (let g = 0; g < groups.length; g++) {
      const i = groups[g]!.tops.indexOf(t);
      if (i >= 0) return [g, i] as const;
    }
    throw new Error(`column ${f.tops[t]!.name} in no group`);
  });
  const fields: Field[] = from.map(([g, i]) => groups[g]!.batches[0]!.schema.fields[i]!);
  const schema = new Schema(fields);
  const type = new Struct(fields);
  const out: RecordBatch[] = [];
  const base = groups.map(() => 0); // first decoded row of the current row group, per group
  const pos = groups.map(() => 0);
  for (let k = 0; k < wanted.length; k++) {
    const ranges = wanted[k]!;
    for (let j = 0; j < ranges.length; j += 2) {
      for (let g = 0; g < groups.length; g++) pos[g] = base[g]! + positionIn(groups[g]!.spans[k]!, ranges[j]!);
      let left = ranges[j + 1]! - ranges[j]!;
      while (left > 0) {
        let take = Math.min(left, batchSize);
        const at = groups.map((grp, g) => {
          const b = batchAt(grp.starts, pos[g]!);
          take = Math.min(take, grp.starts[b + 1]! - pos[g]!);
          return b;
        });
        if (!(take > 0)) throw new NeedsFallback('a kept range runs past the decoded pages');
        const children = from.map(([g, i]) => {
          const grp = groups[g]!;
          const b = at[g]!;
          return grp.batches[b]!.data.children[i]!.slice(pos[g]! - grp.starts[b]!, take);
        });
        out.push(new RecordBatch(schema, makeData({ type, length: take, nullCount: 0, children })));
        for (let g = 0; g < groups.length; g++) pos[g] = pos[g]! + take;
        left -= take;
      }
    }
    for (let g = 0; g < groups.length; g++) base[g] = base[g]! + rangeRows(groups[g]!.spans[k]!);
  }
  return out;
}
