/**
 * `MemoryScan`: the Scan contract over an in-memory Arrow Table. Each RecordBatch is one
 * container; before "decoding" it (here: handing it on) the scan re-reads the dynamic filter and
 * skips the batch when `mayContain(zoneMap)` is false, so pruning behaves exactly as over Parquet
 * row groups and experiments can compare the two.
 *
 * Invariants:
 * - `containersTotal = containersPruned + kept` for the containers visited (a consumer that stops
 *   early leaves the rest uncounted); `bytesDecoded + bytesSkipped` = buffer bytes of the needed
 *   columns (requested ∪ predicate) of the visited batches.
 * - rows are gathered only when the row filter actually drops some; otherwise the batch is passed
 *   through (projected, zero-copy). Empty results are not emitted.
 * - `elapsedMs` counts time spent inside the scan, not in the consumer between batches.
 * - `sortedOn` is only what the creator declared (`MemoryScanOptions.sortedOn`, `sortedTable`):
 *   an Arrow table carries no order of its own, and checking one would cost a pass over the keys
 *   that the consumer (the sort-merge join) makes anyway, row by row. The declaration's columns
 *   and types are checked at construction, so a typo fails there.
 *
 * The row filter, projection, cancellation check and timing are core/scan's (filter-project.ts,
 * batch-shape.ts, abort.ts, timed.ts), shared with the file scans of adapters/io. The folder is
 * this one operator's (`operators/<name>/<name>.ts`, like the joins): the scans over files live
 * with their formats in adapters/io.
 */
import type { RecordBatch, Schema, Table } from 'apache-arrow';
import { MissingColumnError } from '../../core/errors.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { CANCEL_CHECK_MS, nextTurn, TurnClock } from '../../core/next-turn.ts';
import { throwIfAborted } from '../../core/scan/abort.ts';
import { projectBatch } from '../../core/scan/batch-shape.ts';
import { filterAndProject, neededColumns } from '../../core/scan/filter-project.ts';
import type { ContainerStats, Scan, ScanOptions, ScanPredicate, ScanSortColumn } from '../../core/scan/scan.ts';
import { resolveSortedOn, type SortColumnInput } from '../../core/scan/sort-order.ts';
import { timedScan } from '../../core/scan/timed.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';

// ------------------------------------------------------------------------------------------------
// MemoryScan
// ------------------------------------------------------------------------------------------------

export interface MemoryScanOptions {
  /** Override `source` (e.g. the path of the IPC file the table came from). */
  readonly source?: string;
  /**
   * The order the table's rows are in, across its batches (`Scan.sortedOn`), when the caller
   * knows it: a claim the sort-merge join checks row by row. Checked against the schema at
   * construction (core/scan/sort-order.ts: unknown column -> `MissingColumnError`, …); the rows
   * are not looked at. Flags default to ASC NULLS LAST.
   */
  readonly sortedOn?: readonly SortColumnInput[];
}

export class MemoryScan implements Scan {
  readonly source: string;
  readonly schema: Schema;
  readonly numRows: number;
  readonly numContainers: number;
  readonly metrics: ScanMetrics = newScanMetrics();
  readonly sortedOn: readonly ScanSortColumn[] | undefined;
  readonly #batches: readonly RecordBatch[];
  readonly #names: readonly string[];

  constructor(table: Table, name = 'table', options: MemoryScanOptions = {}) {
    this.source = options.source ?? `memory:${name}`;
    this.schema = table.schema;
    this.numRows = table.numRows;
    this.#batches = table.batches;
    this.numContainers = table.batches.length;
    this.#names = table.schema.fields.map((f) => f.name);
    this.sortedOn = resolveSortedOn(table.schema, options.sortedOn, this.source);
  }

  /** Each batch's zone map (`Scan.containers`; computed per column on first use, then cached). */
  containers(): readonly ContainerStats[] {
    return this.#batches.map((b, i) => zoneMapOf(b, i));
  }

  batches(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    return timedScan(this.metrics, this.#scanBatches(options));
  }

  async *#scanBatches(options: ScanOptions): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const columns = this.#checked(options.columns);
    const m = this.metrics;
    // batches of a table already in memory arrive on microtasks alone: a turn of the event loop
    // now and then lets a timer's or a signal handler's abort happen (core/next-turn.ts)
    const clock = signal === undefined ? null : new TurnClock(CANCEL_CHECK_MS);
    for (let i = 0; i < this.#batches.length; i++) {
      if (clock?.due()) await nextTurn();
      throwIfAborted(signal, this.source);
      const batch = this.#batches[i]!;
      m.containersTotal++;
      const predicate = filter?.current() ?? null;
      if (!this.#keep(batch, i, predicate, neededColumns(columns, predicate, this.#names, this.source))) continue;
      const out = filterAndProject(batch, predicate, columns, this.source);
      m.rowsAfterFilter += out.numRows;
      if (out.numRows === 0) continue;
      yield out;
    }
  }

  /** The requested columns (default: all), each checked against the schema. */
  #checked(requested: readonly string[] | undefined): readonly string[] {
    const columns = requested ?? this.#names;
    for (const c of columns) if (!this.#names.includes(c)) throw new MissingColumnError(c, this.source, this.#names);
    return columns;
  }

  /**
   * Whether `predicate`'s zone-map test keeps batch `i`, counted: pruned, its `columns`' bytes
   * are skipped; kept, its rows and those bytes are decoded.
   */
  #keep(batch: RecordBatch, i: number, predicate: ScanPredicate | null, columns: readonly string[]): boolean {
    const m = this.metrics;
    const zm = zoneMapOf(batch, i);
    let bytes = 0;
    for (const c of columns) bytes += zm.columnBytes(c);
    if (predicate && !predicate.mayContain(zm)) {
      m.containersPruned++;
      m.bytesSkipped += bytes;
      return false;
    }
    m.rowsDecoded += batch.numRows;
    m.bytesDecoded += bytes;
    return true;
  }

  /**
   * The kept batches as work for worker threads (`Scan.morsels`): pruned by the filter's zone
   * maps exactly as `batches` prunes, projected, cut into slices of at most `MORSEL_ROWS` rows
   * (zero copy), without the row-level filter — the workers' probe does that work in parallel
   * instead of this thread doing it alone. Metrics: what is done here (containers, rows and bytes
   * "decoded", the time); `rowsAfterFilter` is the consumer's to count, where the row test runs
   * (core/scan/morsel.ts).
   */
  morsels(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    return timedScan(this.metrics, this.#scanMorsels(options));
  }

  async *#scanMorsels(options: ScanOptions): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const columns = this.#checked(options.columns);
    const clock = signal === undefined ? null : new TurnClock(CANCEL_CHECK_MS); // as in `batches`
    for (let i = 0; i < this.#batches.length; i++) {
      if (clock?.due()) await nextTurn();
      throwIfAborted(signal, this.source);
      const batch = this.#batches[i]!;
      this.metrics.containersTotal++;
      if (!this.#keep(batch, i, filter?.current() ?? null, columns)) continue;
      const out = projectBatch(batch, columns, this.source);
      for (let at = 0; at < out.numRows; at += MORSEL_ROWS) yield out.slice(at, Math.min(out.numRows, at + MORSEL_ROWS));
    }
  }
}

/**
 * Rows per morsel a memory scan hands to worker threads at most (`MemoryScan.morsels`): a table
 * held as one huge batch is still probed by every worker. ~64K rows keeps a morsel's probe scratch
 * in the tens of MB and the per-morsel message cost (~0.1 ms) negligible.
 */
export const MORSEL_ROWS = 65_536;

/**
 * An Arrow Table declared sorted on `sortedOn`, as a Scan any join (and `Engine.join`) takes: the
 * library's way to tell the sort-merge join that an input needs no sort. Only a claim: the join
 * checks each row against its predecessor and fails with a typed error on the first row out of
 * order. The scan can be read more than once; its metrics add up over the reads.
 *
 *   await engine.join(spec, sortedTable(orders, [{ column: 'customer_id' }]), customers);
 */
export function sortedTable(table: Table, sortedOn: readonly SortColumnInput[], name = 'table'): MemoryScan {
  return new MemoryScan(table, name, { sortedOn });
}
