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
 * Also home of the scan-side helpers `projectBatch` and `takeRows` (the rows a row filter kept,
 * gathered by core/arrow/gather.ts like every join output), which the file scans of adapters/io
 * reuse. The folder is this one operator's (`operators/<name>/<name>.ts`, like the joins): the
 * scans over files live with their formats in adapters/io.
 */
import {
  Data,
  makeData,
  RecordBatch,
  Schema,
  Struct,
  type Field,
  type Table,
} from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../../core/arrow/gather.ts';
import { CancelledError, MissingColumnError } from '../../core/errors.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { CANCEL_CHECK_MS, nextTurn, TurnClock } from '../../core/next-turn.ts';
import type { ContainerStats, Scan, ScanOptions, ScanPredicate, ScanSortColumn } from '../../core/scan/scan.ts';
import { resolveSortedOn, type SortColumnInput } from '../../core/scan/sort-order.ts';
import { zoneMapOf } from '../../core/scan/zone-map.ts';

// ------------------------------------------------------------------------------------------------
// Helpers shared with ParquetScan
// ------------------------------------------------------------------------------------------------

export function throwIfAborted(signal: AbortSignal | undefined, source: string): void {
  if (signal?.aborted) throw new CancelledError(`scan of ${source} cancelled`);
}

/** The batch restricted to `names`, in that order (zero-copy). */
export function projectBatch(batch: RecordBatch, names: readonly string[], where = 'batch'): RecordBatch {
  const fields: Field[] = [];
  const children: Data[] = [];
  const all = batch.schema.fields;
  let identity = names.length === all.length;
  for (let j = 0; j < names.length; j++) {
    const i = all.findIndex((f) => f.name === names[j]);
    if (i < 0) throw new MissingColumnError(names[j]!, where, all.map((f) => f.name));
    if (i !== j) identity = false;
    fields.push(all[i]!);
    children.push(batch.data.children[i]!);
  }
  if (identity) return batch;
  const schema = new Schema(fields, batch.schema.metadata);
  return new RecordBatch(schema, makeData({ type: new Struct(fields), length: batch.numRows, nullCount: 0, children }));
}

/** The batch's rows `idx` (every column), through the same columnar gather the joins use. */
export function takeRows(batch: RecordBatch, idx: Int32Array): RecordBatch {
  return makeRecordBatch(batch.schema, gatherColumns(new RowSource([batch], batch.schema), idx, 0, idx.length), idx.length);
}

/** Apply the row filter and the projection; gathers only when the filter drops rows. */
export function filterAndProject(
  batch: RecordBatch,
  predicate: ScanPredicate | null,
  columns: readonly string[],
  where: string,
): RecordBatch {
  const sel = predicate ? predicate.selectRows(batch) : null;
  if (sel !== null && sel.length > batch.numRows) {
    throw new Error(`filter ${predicate!.description}: selectRows returned ${sel.length} rows of ${batch.numRows}`);
  }
  const projected = projectBatch(batch, columns, where);
  if (sel === null || sel.length === batch.numRows) return projected;
  return takeRows(projected, sel);
}

/** `columns` ∪ the predicate's columns, each checked against the schema. */
export function neededColumns(
  columns: readonly string[],
  predicate: ScanPredicate | null,
  available: readonly string[],
  where: string,
): readonly string[] {
  if (!predicate || predicate.columns.length === 0) return columns;
  let out: string[] | null = null;
  for (const c of predicate.columns) {
    if (!available.includes(c)) throw new MissingColumnError(c, where, available);
    if (!columns.includes(c) && !(out ?? []).includes(c)) (out ??= columns.slice()).push(c);
  }
  return out ?? columns;
}

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

  async *batches(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const columns = options.columns ?? this.#names;
    for (const c of columns) if (!this.#names.includes(c)) throw new MissingColumnError(c, this.source, this.#names);
    const m = this.metrics;
    let t0 = performance.now();
    let inScan = true;
    // batches of a table already in memory arrive on microtasks alone: a turn of the event loop
    // now and then lets a timer's or a signal handler's abort happen (core/next-turn.ts)
    const clock = signal === undefined ? null : new TurnClock(CANCEL_CHECK_MS);
    try {
      for (let i = 0; i < this.#batches.length; i++) {
        if (clock?.due()) await nextTurn();
        throwIfAborted(signal, this.source);
        const batch = this.#batches[i]!;
        m.containersTotal++;
        const predicate = filter?.current() ?? null;
        const needed = neededColumns(columns, predicate, this.#names, this.source);
        const zm = zoneMapOf(batch, i);
        let bytes = 0;
        for (const c of needed) bytes += zm.columnBytes(c);
        if (predicate && !predicate.mayContain(zm)) {
          m.containersPruned++;
          m.bytesSkipped += bytes;
          continue;
        }
        m.rowsDecoded += batch.numRows;
        m.bytesDecoded += bytes;
        const out = filterAndProject(batch, predicate, columns, this.source);
        m.rowsAfterFilter += out.numRows;
        if (out.numRows === 0) continue;
        m.elapsedMs += performance.now() - t0;
        inScan = false;
        yield out;
        inScan = true;
        t0 = performance.now();
      }
    } finally {
      if (inScan) m.elapsedMs += performance.now() - t0;
    }
  }

  /**
   * The kept batches as work for worker threads (`Scan.morsels`): pruned by the filter's zone
   * maps exactly as `batches` prunes, projected, cut into slices of at most `MORSEL_ROWS` rows
   * (zero copy), without the row-level filter — the workers' probe does that work in parallel
   * instead of this thread doing it alone. Metrics: what is done here (containers, rows and bytes
   * "decoded", the time); `rowsAfterFilter` is the consumer's to count, where the row test runs
   * (core/scan/morsel.ts).
   */
  async *morsels(options: ScanOptions = {}): AsyncGenerator<RecordBatch> {
    const { filter, signal } = options;
    const columns = options.columns ?? this.#names;
    for (const c of columns) if (!this.#names.includes(c)) throw new MissingColumnError(c, this.source, this.#names);
    const m = this.metrics;
    let t0 = performance.now();
    let inScan = true;
    const clock = signal === undefined ? null : new TurnClock(CANCEL_CHECK_MS); // as in `batches`
    try {
      for (let i = 0; i < this.#batches.length; i++) {
        if (clock?.due()) await nextTurn();
        throwIfAborted(signal, this.source);
        const batch = this.#batches[i]!;
        m.containersTotal++;
        const predicate = filter?.current() ?? null;
        const zm = zoneMapOf(batch, i);
        let bytes = 0;
        for (const c of columns) bytes += zm.columnBytes(c);
        if (predicate && !predicate.mayContain(zm)) {
          m.containersPruned++;
          m.bytesSkipped += bytes;
          continue;
        }
        m.rowsDecoded += batch.numRows;
        m.bytesDecoded += bytes;
        const out = projectBatch(batch, columns, this.source);
        for (let at = 0; at < out.numRows; at += MORSEL_ROWS) {
          const piece = out.slice(at, Math.min(out.numRows, at + MORSEL_ROWS));
          m.elapsedMs += performance.now() - t0;
          inScan = false;
          yield piece;
          inScan = true;
          t0 = performance.now();
        }
      }
    } finally {
      if (inScan) m.elapsedMs += performance.now() - t0;
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
