/**
 * `ParquetScan`: the Scan contract over a Parquet file. Containers are row groups; each is
 * checked against the current dynamic filter with the footer's statistics *before* anything is
 * decoded, and only kept row groups and only the needed columns (requested ∪ predicate columns)
 * are decoded.
 *
 * Kept row groups are decoded in small *runs* of consecutive row groups (at most `runRows` rows /
 * `runBytes` uncompressed bytes, always at least one row group) — one wasm call per run, so
 * memory stays bounded by a run, not the file. A run is only assembled after the previous one
 * has been fully consumed, so a filter published mid-scan prunes every row group not yet in a
 * run; the row-level filter is re-read for every decoded batch, so even rows of the current run
 * see it (when the columns it reads were decoded — otherwise rows are kept, which is always safe).
 *
 * Metrics: `bytesDecoded` charges the footer's uncompressed sizes of the column chunks actually
 * decoded (a fallback decode of whole row groups charges every column); `bytesSkipped` the same
 * sizes of the needed columns of pruned row groups; `containersTotal = pruned + kept` for the
 * row groups visited; `bytesRead` the file bytes read so far (footer + decoded column chunks:
 * the file is read by ranges, so pruned row groups are never read at all). Runs handed to worker
 * threads (`morsels`) are decoded there by `decodeMorsel`, the same code as `batches`, which counts
 * into a fresh `ScanMetrics` the worker hands back with its reply; the calling thread adds it into
 * this scan's `metrics` (core/scan/morsel.ts), so every figure counts the same work at any thread
 * count (`elapsedMs`: CPU time summed over the threads).
 *
 * Bloom filters (parquet-bloom.ts has the format, the writers and the encoding rules): when the
 * published predicate offers an exact value set (`exactSet()`, an IN list) and min/max kept a row
 * group, the set's column chunk's Bloom filter, if it has one, is read by its byte range and the
 * row group is pruned when no value of the set may be in it (`containersPrunedByBloom`, counted in
 * `containersPruned` too; bytes skipped as for a min/max prune). The set is hashed once per
 * published predicate (cached by its identity), not per row group; a filter is read at most once
 * per row group and scan, and its bytes count in `bytesRead` and `bloomBytesRead`. Off with
 * `ScanOptions.bloomFilters: false` (config `pushdown.parquetBloom`). A column whose type the
 * encoding rules do not cover, or a corrupt filter, is "maybe".
 *
 * Pages (parquet-page-index.ts, parquet-page-select.ts): where the file has a page index, a row
 * group the footer statistics keep is looked at page by page — each page of each predicate column
 * is a container of its own, asked `mayContain` with that page's statistics — and only the rows
 * of the pages kept (intersected over the predicate's columns) are decoded, reading only their
 * pages' byte ranges: DataFusion's page pruning, a granularity DuckDB does not have. Every page
 * ruled out -> the row group is pruned (counted in `containersPruned`). `pagesTotal` /
 * `pagesPruned` count the predicate columns' pages asked and ruled out; the bytes of the pages
 * not read (every decoded column's, estimated from the compressed page sizes) count in
 * `bytesSkipped` and not in `bytesDecoded`; `rowsDecoded` counts the kept rows. A row group with
 * a nested column to decode is read whole (only its full pruning uses pages). Off with
 * `ParquetScanOptions.pageIndex: 'off'` or `ScanOptions.pageIndex: false` (config
 * `scan.pageIndex`); files without a page index read exactly as before.
 *
 * Late materialization (late-materialization.ts, `ScanOptions.lateMaterialization`, config
 * `scan.lateMaterialization`): when the filter reads fewer columns than a run decodes, its columns
 * are decoded first (over the same pages), the row test runs, and the other columns are decoded
 * only if a row survived; a run it empties counts in `rowsNotDecoded` / `bytesNotDecoded`.
 *
 * Order: `sortedOn` is the footer's `sorting_columns` where the row groups prove them file-wide
 * (parquet-sort-order.ts: a declaration is per row group, so consecutive row groups must not
 * overlap by their statistics). The scan reads row groups in file order, so the claim holds for
 * what it yields. One file per scan: there is no multi-file scan to claim an order across.
 */
import { Schema, type RecordBatch } from 'apache-arrow';
import { MissingColumnError } from '../../core/errors.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { ParquetFileHandle, type ParquetRowGroupInfo } from './parquet.ts';
import { filterAndProject, neededColumns } from '../../core/scan/filter-project.ts';
import { projectBatch, takeRows } from '../../core/scan/batch-shape.ts';
import { throwIfAborted } from '../../core/scan/abort.ts';
import { timedScan } from '../../core/scan/timed.ts';
import { keptPositions, positionsIn, rowsToRanges, splitColumns, SURVIVOR_GAP, survivorRows, zipBatches } from './late-materialization.ts';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { DynamicFilter, type ColumnStats, type ContainerStats, type DecodeMorsel, type Scan, type ScanOptions, type ScanPredicate, type ScanSortColumn } from '../../core/scan/scan.ts';
import type { MorselRowTest } from '../../core/scan/morsel.ts';
import { bloomHashes, mayContainAnyHash } from './parquet-bloom.ts';
import { keptRowRanges, pageCounts, pageRowsRead, rangeRows, type PageColumn, type RowRanges } from './parquet-page-select.ts';

/** The decoder name of a Parquet scan's morsels (slot `scan-decoder`, parquet-decoder.ts). */
export const PARQUET_DECODER = 'parquet';

/** A Parquet scan's morsel (`ParquetScan.morsels`): a run of row groups for a worker to decode. */
export interface ParquetMorsel {
  readonly path: string;
  /** `ParquetFileHandle.identity` when the main thread opened the file. */
  readonly identity: string;
  readonly rowGroups: readonly number[];
  readonly columns: readonly string[];
  readonly batchSize: number | null;
  /** Per row group, the rows its pages may hold (`DecodeOptions.rows`); absent: all rows. */
  readonly rows?: readonly (readonly number[] | null)[];
  /** Columns whose page index the main thread read (and counted) to prune these row groups. */
  readonly pageIndexColumns?: readonly string[];
  /** Whether the decode may read by pages (`ScanOptions.pageIndex`), e.g. late materialization's survivors. */
  readonly pageIndex?: boolean;
  readonly lateMaterialization?: 'auto' | 'on' | 'off';
}

async function* oneRun<T>(run: T): AsyncGenerator<T> {
  yield run;
}

/** A published set, hashed for one column's Bloom filters. */
interface BloomProbe {
  readonly column: string;
  /** xxHash64 (lo, hi) pairs of every encoding of every value that can be in the column. */
  readonly hashes: Uint32Array;
}

export interface ParquetScanOptions {
  /** Max rows per decode run (default 65536). */
  readonly runRows?: number;
  /** Max uncompressed bytes (of the requested columns) per decode run (default 32 MiB). */
  readonly runBytes?: number;
  /** Rows per decoded batch (default: a whole run in one batch). */
  readonly batchSize?: number;
  /**
   * `auto` (default): prune and read by pages where the file has a page index; `off`: row groups
   * only (config `scan.pageIndex`). `ScanOptions.pageIndex` overrides it per read.
   */
  readonly pageIndex?: 'auto' | 'off';
}

/** A run of kept row groups to decode together. */
interface Run {
  readonly rowGroups: number[];
  readonly columns: string[];
  /** Per row group: the rows its pages may hold (null: all of them). */
  readonly rows: (RowRanges | null)[];
  /** Columns whose page index pruning read for these row groups (a worker does not count them again). */
  readonly pageIndexColumns: string[];
}

class RowGroupContainer implements ContainerStats {
  readonly #rg: ParquetRowGroupInfo;
  constructor(rg: ParquetRowGroupInfo) {
    this.#rg = rg;
  }
  get index(): number {
    return this.#rg.index;
  }
  get numRows(): number {
    return this.#rg.numRows;
  }
  get bytes(): number {
    return this.#rg.uncompressedBytes;
  }
  column(name: string): ColumnStats | undefined {
    return this.#rg.columnStats(name);
  }
}

export class ParquetScan implements Scan {
  readonly source: string;
  readonly schema: Schema;
  readonly numRows: number;
  readonly numContainers: number;
  readonly metrics: ScanMetrics = newScanMetrics();
  readonly handle: ParquetFileHandle;
  readonly #runRows: number;
  readonly #runBytes: number;
  readonly #batchSize: number | undefined;
  readonly #pageIndex: boolean;
  readonly #containers: readonly RowGroupContainer[];
  /** Per published predicate: its set hashed for this file's column, or null (no Bloom pruning). */
  readonly #bloomProbes = new WeakMap<ScanPredicate, BloomProbe | null>();
  /** `handle.bytesRead` when `metrics.bytesRead` was last brought up to date (`#noteRead`). */
  #readSeen = 0;

  constructor(handle: ParquetFileHandle, options: ParquetScanOptions = {}) {
    this.handle = handle;
    this.source = handle.path;
    this.schema = handle.schema;
    this.numRows = handle.numRows;
    this.numContainers = handle.rowGroups.length;
    this.#runRows = Math.max(1, options.runRows ?? 65_536);
    this.#runBytes = Math.max(1, options.runBytes ?? 32 * 1024 * 1024);
    this.#batchSize = options.batchSize;
    this.#pageIndex = options.pageIndex !== 'off';
    this.#containers = handle.rowGroups.map((rg) => new RowGroupContainer(rg));
  }

  /**
   * The file's row order (`ParquetFileHandle.sortedOn`: the declared `sorting_columns`, kept only
   * as far as the row groups are in order by their statistics). Pruning and the row filter keep
   * it: they only drop rows.
   */
  get sortedOn(): readonly ScanSortColumn[] | undefined {
    return this.handle.sortedOn;
  }

  #bloomProbe(predicate: ScanPredicate): BloomProbe | null {
    const cached = this.#bloomProbes.get(predicate);
    if (cached !== undefined) return cached;
    let probe: BloomProbe | null = null;
    const set = predicate.exactSet?.() ?? null;
    const col = set === null ? null : this.handle.bloomColumn(set.column);
    if (set !== null && col !== null) {
      const hashes = bloomHashes(col.element, col.type, set);
      if (hashes !== null) probe = { column: set.column, hashes };
    }
    this.#bloomProbes.set(predicate, probe);
    return probe;
  }

  /**
   * Whether row group `i`'s Bloom filter rules out every value of `probe` (false when it has no
   * filter or the filter is unusable). Counts the filter's bytes.
   */
  #bloomExcludes(probe: BloomProbe, i: number): boolean {
    const read = this.handle.readBloomFilter(i, probe.column);
    if (read === undefined) return false;
    this.metrics.bloomBytesRead += read.bytesRead;
    this.#noteRead();
    return read.filter !== null && !mayContainAnyHash(read.filter, probe.hashes);
  }

  /** The row groups' footer statistics (`Scan.containers`). */
  containers(): readonly ContainerStats[] {
    return this.#containers;
  }

  static async open(path: string, options?: ParquetScanOptions): Promise<ParquetScan> {
    return new ParquetScan(await ParquetFileHandle.open(path), options);
  }

  async *batches(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    const columns = this.#columns(options);
    yield* this.#decodeRuns(this.#runs(options, columns), options, columns);
  }

  /**
   * The runs' rows, decoded (late where the filter allows), filtered and projected to `columns`:
   * `batches` over the runs it keeps, and a worker over the run of its morsel (`decodeMorsel`).
   * Counts rows and bytes decoded, rows after the filter, late materialization and the time spent
   * here (not the consumer's between batches).
   */
  #decodeRuns(runs: AsyncIterable<Run>, options: ScanOptions, columns: readonly string[]): AsyncGenerator<RecordBatch> {
    return timedScan(this.metrics, this.#decodeRunsUntimed(runs, options, columns));
  }

  async *#decodeRunsUntimed(runs: AsyncIterable<Run>, options: ScanOptions, columns: readonly string[]): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const h = this.handle;
    const m = this.metrics;
    const lateMode = options.lateMaterialization ?? 'auto';
    for await (const run of runs) {
      throwIfAborted(signal, this.source);
      const runPredicate = filter?.current() ?? null;
      const split = lateMode === 'off' ? null : splitColumns(runPredicate, run.columns);
      const late = split === null ? null : await this.#decodeLate(run, split, runPredicate!, columns, options.pageIndex ?? this.#pageIndex);
      let batches: RecordBatch[];
      if (late !== null) batches = late;
      else {
        const decoded = await h.decodeRowGroups(run.rowGroups, run.columns, this.#decodeOptions(run));
        this.#noteRead();
        run.rowGroups.forEach((r, k) => this.#chargeDecode(r, decoded.columns, decoded.paged === true ? run.rows[k]! : null));
        batches = decoded.batches;
      }
      for (const batch of batches) {
        throwIfAborted(signal, this.source);
        let out: RecordBatch;
        if (late !== null) out = batch; // filtered and projected by #decodeLate
        else {
          let predicate = filter?.current() ?? null;
          if (predicate && !predicate.columns.every((c) => batch.schema.fields.some((f) => f.name === c))) {
            predicate = null; // its columns were not decoded: keep the rows (always safe)
          }
          out = filterAndProject(batch, predicate, columns, this.source);
        }
        m.rowsAfterFilter += out.numRows;
        if (out.numRows === 0) continue;
        yield out;
      }
    }
  }

  /** Adds the file bytes the handle read since the last call to `bytesRead`. */
  #noteRead(): void {
    const now = this.handle.bytesRead;
    this.metrics.bytesRead += now - this.#readSeen;
    this.#readSeen = now;
  }

  /** The decode options of a run: its batch size, and its row ranges when its pages were pruned. */
  #decodeOptions(run: Run): { batchSize: number | undefined; rows?: readonly (RowRanges | null)[] } {
    return run.rows.some((r) => r !== null) ? { batchSize: this.#batchSize, rows: run.rows } : { batchSize: this.#batchSize };
  }

  /**
   * A run decoded late (late-materialization.ts): the filter's columns, its row test, then the
   * other columns only if some row survived — both decodes over the same row groups, row ranges
   * and batch size. Returns the run's batches already filtered (by the filter as it was when the
   * run started: a later one is only a tighter "maybe") and projected to `columns`; [] when no row
   * survived; null when the run must be decoded the ordinary way (the decoder fell back to every
   * column, or the two decodes did not line up: different page fallbacks or batch boundaries).
   */
  async #decodeLate(run: Run, split: { readonly first: string[]; readonly rest: string[] }, predicate: ScanPredicate, columns: readonly string[], usePages: boolean): Promise<RecordBatch[] | null> {
    const h = this.handle;
    const m = this.metrics;
    const options = this.#decodeOptions(run);
    const first = await h.decodeRowGroups(run.rowGroups, split.first, options);
    this.#noteRead();
    const ranges = (k: number) => (first.paged === true ? run.rows[k]! : null);
    run.rowGroups.forEach((r, k) => this.#chargeDecode(r, first.columns, ranges(k)));
    if (first.columns.length !== split.first.length) {
      // a fallback decoded every column at once: nothing is left to decode late
      return first.batches.map((b) => filterAndProject(b, predicate, columns, this.source));
    }
    const selections = first.batches.map((b) => predicate.selectRows(b));
    let kept = 0;
    first.batches.forEach((b, i) => (kept += selections[i]?.length ?? b.numRows));
    if (kept === 0) {
      run.rowGroups.forEach((r, k) => {
        const cost = this.#decodeCost(r, split.rest, ranges(k));
        m.rowsNotDecoded += cost.rows;
        m.bytesNotDecoded += cost.bytes;
      });
      return [];
    }
    // every row kept (a filter whose row test keeps all): nothing to narrow, no page index to read
    let decodedRows = 0;
    for (const b of first.batches) decodedRows += b.numRows;
    const narrowed = usePages && kept < decodedRows ? await this.#decodeSurvivors(run, split, first, selections, kept, ranges, columns) : null;
    if (narrowed !== null) return narrowed;
    const rest = await h.decodeRowGroups(run.rowGroups, split.rest, options);
    this.#noteRead();
    run.rowGroups.forEach((r, k) => this.#chargeDecode(r, rest.columns, rest.paged === true ? run.rows[k]! : null, false));
    if (rest.batches.length !== first.batches.length || rest.paged !== first.paged) return null;
    const out: RecordBatch[] = [];
    for (let i = 0; i < first.batches.length; i++) {
      const whole = zipBatches(first.batches[i]!, rest.batches[i]!);
      if (whole === null) return null;
      const sel = selections[i]!;
      if (sel !== null && sel.length === 0) continue;
      const projected = projectBatch(whole, columns, this.source);
      out.push(sel === null ? projected : takeRows(projected, sel));
    }
    return out;
  }

  /**
   * The other columns of a late run read only over the pages holding survivors
   * (late-materialization.ts), when some of them has a page index and the survivors' ranges are at
   * most 3/4 of the rows the filter's columns covered; null otherwise (the caller reads them over
   * the run's ranges). One batch of the survivors, projected to `columns`.
   */
  async #decodeSurvivors(
    run: Run,
    split: { readonly first: string[]; readonly rest: string[] },
    first: { readonly batches: RecordBatch[] },
    selections: readonly (Int32Array | null)[],
    kept: number,
    ranges: (k: number) => RowRanges | null,
    columns: readonly string[],
  ): Promise<RecordBatch[] | null> {
    const h = this.handle;
    const m = this.metrics;
    if (!run.rowGroups.some((r) => split.rest.some((c) => h.flatColumn(c) && h.pageIndex(r, c) !== null))) return null;
    const cover = run.rowGroups.map((r, k) => ranges(k) ?? [0, h.rowGroups[r]!.numRows]);
    const positions = keptPositions(first.batches, selections, kept);
    const survivors = survivorRows(cover, positions);
    const narrow = survivors.map((rows) => rowsToRanges(rows, SURVIVOR_GAP));
    let covered = 0;
    let needed = 0;
    for (let k = 0; k < cover.length; k++) {
      covered += rangeRows(cover[k]!);
      needed += rangeRows(narrow[k]!);
    }
    if (needed * 4 > covered * 3) return null;
    const rest = await h.decodeRowGroups(run.rowGroups, split.rest, { batchSize: 1 << 20, rows: narrow });
    this.#noteRead();
    if (rest.columns.length !== split.rest.length || rest.batches.length === 0) return null;
    const restCover = run.rowGroups.map((r, k) => (rest.paged === true ? narrow[k]! : [0, h.rowGroups[r]!.numRows]));
    run.rowGroups.forEach((r, k) => {
      this.#chargeDecode(r, rest.columns, rest.paged === true ? narrow[k]! : null, false);
      if (rest.paged === true) {
        const all = this.#decodeCost(r, split.rest, ranges(k));
        const read = this.#decodeCost(r, split.rest, narrow[k]!);
        m.rowsNotDecoded += this.#rowsOfPagesLeft(r, split.rest, ranges(k) ?? [0, h.rowGroups[r]!.numRows], narrow[k]!);
        m.bytesNotDecoded += Math.max(0, all.bytes - read.bytes);
      }
    });
    const restPositions = new Int32Array(kept);
    let at = 0;
    let base = 0;
    for (let k = 0; k < survivors.length; k++) {
      positionsIn(restCover[k]!, survivors[k]!, base, restPositions, at);
      at += survivors[k]!.length;
      base += rangeRows(restCover[k]!);
    }
    const firstSchema = first.batches[0]!.schema;
    const restSchema = rest.batches[0]!.schema;
    const a = gatherColumns(new RowSource(first.batches, firstSchema), positions, 0, kept);
    const b = gatherColumns(new RowSource(rest.batches, restSchema), restPositions, 0, kept);
    const whole = makeRecordBatch(new Schema([...firstSchema.fields, ...restSchema.fields]), [...a, ...b], kept);
    return [projectBatch(whole, columns, this.source)];
  }

  /**
   * Rows of row group `r` that no column of `columns` decodes when read over `narrow` instead of
   * `cover`: per column, the rows of the pages the narrower read leaves out; the least over the
   * columns (0 when one has no page index: it is decoded whole).
   */
  #rowsOfPagesLeft(r: number, columns: readonly string[], cover: RowRanges, narrow: RowRanges): number {
    let least = Infinity;
    for (const c of columns) {
      const index = this.handle.pageIndex(r, c);
      if (index === null) return 0;
      least = Math.min(least, pageRowsRead(index.layout, cover) - pageRowsRead(index.layout, narrow));
    }
    return least === Infinity ? 0 : Math.max(0, least);
  }

  /**
   * The kept row groups as runs for worker threads to decode (`Scan.morsels`, decoder `parquet`,
   * parquet-decoder.ts): pruned here by min/max, Bloom filters and pages exactly as `batches`
   * prunes, decoded there (`decodeMorsel`) with the requested columns — late, and under the row
   * test the worker was given, as `batches` decodes them. Metrics: this counts what it does here
   * (containers visited and pruned, pages asked, Bloom filters, the footer and page indexes read,
   * its time); the worker counts the decode and hands it back with its reply (core/scan/morsel.ts).
   */
  morsels(options: ScanOptions = {}): AsyncGenerator<DecodeMorsel> {
    return timedScan(this.metrics, this.#morselsUntimed(options));
  }

  async *#morselsUntimed(options: ScanOptions): AsyncGenerator<DecodeMorsel> {
    const columns = this.#columns(options);
    for await (const run of this.#runs({ ...options, filter: options.filter }, columns, false)) {
      throwIfAborted(options.signal, this.source);
      this.#noteRead();
      let rows = 0;
      // from the footer and the kept ranges only: the other columns' page indexes are the worker's to read
      run.rowGroups.forEach((r, k) => (rows += run.rows[k] == null ? this.handle.rowGroups[r]!.numRows : rangeRows(run.rows[k]!)));
      const paged = run.rows.some((r) => r !== null);
      const descriptor: ParquetMorsel = {
        path: this.source,
        identity: this.handle.identity,
        rowGroups: run.rowGroups,
        columns,
        batchSize: this.#batchSize ?? null,
        ...(paged ? { rows: run.rows } : {}),
        pageIndexColumns: run.pageIndexColumns,
        pageIndex: options.pageIndex ?? this.#pageIndex,
        lateMaterialization: options.lateMaterialization ?? 'auto',
      };
      yield { decoder: PARQUET_DECODER, descriptor, rows };
    }
  }


  /**
   * A morsel's run decoded on a worker thread (`morsels`, parquet-decoder.ts) over this scan's
   * fresh `metrics`, which the caller hands back as the morsel's delta: what `batches` does for
   * the run — its columns (with the row test's) decoded, late where the test allows, the rows the
   * test keeps, projected to the requested columns — and counts alike. The bytes read count from
   * here on: the footer and the page index the main thread read (and counted) to prune these row
   * groups are read again here if this worker has not cached them, and not counted again.
   */
  async decodeMorsel(d: ParquetMorsel, rowTest: MorselRowTest | null, signal?: AbortSignal): Promise<RecordBatch[]> {
    const h = this.handle;
    if (d.rows !== undefined && d.pageIndexColumns !== undefined) {
      for (const r of d.rowGroups) for (const c of d.pageIndexColumns) if (h.columnNames.includes(c)) h.pageIndex(r, c);
    }
    this.#readSeen = h.bytesRead;
    const predicate: ScanPredicate | null =
      rowTest === null ? null : { description: 'row test (worker)', columns: rowTest.columns, mayContain: () => true, selectRows: (b) => rowTest.selectRows(b) };
    const filter = new DynamicFilter();
    if (predicate !== null) filter.publish(predicate);
    const columns = d.columns;
    const runColumns = neededColumns(columns, predicate, h.columnNames, this.source);
    const run: Run = { rowGroups: [...d.rowGroups], columns: [...runColumns], rows: d.rows?.map((r) => (r === null ? null : [...r])) ?? d.rowGroups.map(() => null), pageIndexColumns: [] };
    const options: ScanOptions = { filter, signal, lateMaterialization: d.lateMaterialization ?? 'auto', pageIndex: d.pageIndex ?? this.#pageIndex };
    const out: RecordBatch[] = [];
    for await (const b of this.#decodeRuns(oneRun(run), options, columns)) out.push(b);
    return out;
  }

  /**
   * Metrics of decoding row group `r`'s `columns`: all of it, or (`rows`) only those rows, whose
   * pages are all that is read of the columns with a page index.
   */
  #chargeDecode(r: number, columns: readonly string[], rows: RowRanges | null, countRows = true): void {
    const m = this.metrics;
    const cost = this.#decodeCost(r, columns, rows);
    if (countRows) m.rowsDecoded += cost.rows;
    m.bytesDecoded += cost.bytes;
    m.bytesSkipped += cost.skipped;
  }

  /** Rows and footer bytes of decoding row group `r`'s `columns` (only `rows`: their pages), and the page bytes that skips. */
  #decodeCost(r: number, columns: readonly string[], rows: RowRanges | null): { rows: number; bytes: number; skipped: number } {
    const rg = this.handle.rowGroups[r]!;
    let bytes = 0;
    let skipped = 0;
    for (const c of columns) {
      const all = rg.columnBytes(c);
      const index = rows === null ? null : this.handle.pageIndex(r, c);
      const skip = index === null ? 0 : Math.min(all, pageCounts(index.layout, rows!).skippedBytes);
      bytes += all - skip;
      skipped += skip;
    }
    return { rows: rows === null ? rg.numRows : rangeRows(rows), bytes, skipped };
  }

  /**
   * What the page index says of row group `r` under `predicate`: the rows its predicate columns'
   * pages may hold (null: no page statistics, or every row), counting the pages asked.
   */
  #pageRows(r: number, predicate: ScanPredicate): number[] | null {
    const h = this.handle;
    const cols: PageColumn[] = [];
    for (const name of predicate.columns) {
      const index = h.pageIndex(r, name);
      // one page says what the row group's statistics said already
      const stats = index === null || index.layout.numPages < 2 ? null : index.stats();
      if (index !== null && stats !== null && !cols.some((c) => c.name === name)) cols.push({ name, index, stats });
    }
    if (cols.length === 0) return null;
    const verdict = keptRowRanges(h.rowGroups[r]!.numRows, predicate, cols);
    this.metrics.pagesTotal += verdict.pages;
    this.metrics.pagesPruned += verdict.pruned;
    this.#noteRead();
    const kept = verdict.ranges;
    return kept === null || (kept.length === 2 && kept[0] === 0 && kept[1] === h.rowGroups[r]!.numRows) ? null : kept;
  }

  #columns(options: ScanOptions): readonly string[] {
    const names = this.handle.columnNames;
    const columns = options.columns ?? names;
    for (const c of columns) if (!names.includes(c)) throw new MissingColumnError(c, this.source, names);
    return columns;
  }

  /**
   * The kept row groups in runs of consecutive ones (at most `runRows` rows / `runBytes` bytes,
   * at least one row group), each with the columns to decode: the requested ones, plus the
   * predicate's when `withPredicateColumns` (the caller applies the row filter). A run is yielded
   * before the next row group is looked at, so a filter published meanwhile prunes the rest.
   */
  async *#runs(options: ScanOptions, columns: readonly string[], withPredicateColumns = true): AsyncGenerator<Run> {
    const { filter, signal } = options;
    const useBloom = options.bloomFilters !== false;
    const usePages = options.pageIndex ?? this.#pageIndex;
    const names = this.handle.columnNames;
    const m = this.metrics;
    const rgs = this.handle.rowGroups;
    let run: number[] = [];
    let runPages: (RowRanges | null)[] = [];
    let runPageIndex = new Set<string>();
    let runRows = 0;
    let runBytes = 0;
    const runColumns = new Set<string>(withPredicateColumns ? [] : columns);
    const flush = (): Run => {
      const out = { rowGroups: run, columns: [...runColumns], rows: runPages, pageIndexColumns: [...runPageIndex] };
      run = [];
      runPages = [];
      runPageIndex = new Set();
      runRows = 0;
      runBytes = 0;
      if (withPredicateColumns) runColumns.clear();
      return out;
    };
    for (let i = 0; i < rgs.length; i++) {
      throwIfAborted(signal, this.source);
      const rg = rgs[i]!;
      let estimate = 0;
      for (const c of columns) estimate += rg.columnBytes(c);
      if (run.length > 0 && (runRows + rg.numRows > this.#runRows || runBytes + estimate > this.#runBytes)) yield flush();
      m.containersTotal++;
      const predicate = filter?.current() ?? null;
      const needed = withPredicateColumns ? neededColumns(columns, predicate, names, this.source) : columns;
      let bytes = 0;
      for (const c of needed) bytes += rg.columnBytes(c);
      if (predicate && !predicate.mayContain(this.#containers[i]!)) {
        m.containersPruned++;
        m.bytesSkipped += bytes;
        continue;
      }
      const probe = predicate && useBloom ? this.#bloomProbe(predicate) : null;
      if (probe !== null && this.#bloomExcludes(probe, i)) {
        m.containersPruned++;
        m.containersPrunedByBloom++;
        m.bytesSkipped += bytes;
        continue;
      }
      let rows: RowRanges | null = null;
      if (predicate && usePages) {
        for (const c of predicate.columns) runPageIndex.add(c);
        const kept = this.#pageRows(i, predicate);
        if (kept !== null && kept.length === 0) {
          m.containersPruned++;
          m.bytesSkipped += bytes;
          continue;
        }
        // a nested column is read whole (parquet-page-select.ts): then only a full prune helps
        if (kept !== null && needed.every((c) => this.handle.flatColumn(c))) rows = kept;
      }
      run.push(i);
      runPages.push(rows);
      runRows += rows === null ? rg.numRows : rangeRows(rows);
      runBytes += estimate;
      for (const c of needed) runColumns.add(c);
    }
    if (run.length > 0) yield flush();
  }
}
