/**
 * The scan contract: a scan reads a table as a sequence of *containers* — units it can skip
 * without decoding (a Parquet row group, or one record batch of an in-memory table) — and asks
 * the current dynamic filter, per container, whether it may hold a match before decoding it.
 *
 * A pruning answer may only ever be "maybe": `mayContain` returns false only when *no* row of the
 * container can pass the row-level predicate. Missing or unusable statistics mean "maybe".
 *
 * The filter is *dynamic*: a join publishes it once its build side is complete, possibly while
 * the scan is already running, so the scan re-reads `DynamicFilter.current()` before every
 * container.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { KeyKind, KeyValue } from '../keys/types.ts';
import type { ScanMetrics } from '../metrics.ts';

/**
 * A min/max statistic in a type-stable form: 8/16/32-bit ints, floats, dates (days) as `number`;
 * 64-bit ints, timestamps (in the column's unit) and decimals (unscaled) as `bigint`; strings as
 * `string`; binary as `Uint8Array`; booleans as `boolean`.
 */
export type StatValue = number | bigint | string | boolean | Uint8Array;

export interface ColumnStats {
  /** `null` when unknown (or the column is all NULL). */
  readonly min: StatValue | null;
  readonly max: StatValue | null;
  /** `null` when unknown. */
  readonly nullCount: number | null;
  /**
   * Distinct non-NULL values in the container, when its metadata says (a Parquet chunk's
   * `distinct_count`: DuckDB writes it for dictionary-encoded chunks); absent when unknown. Only
   * estimates are made from it (join planning), never a pruning decision.
   */
  readonly distinctCount?: number;
}

export interface ContainerStats {
  readonly index: number;
  readonly numRows: number;
  /** Bytes the container costs to decode (uncompressed size, or Arrow buffer bytes). */
  readonly bytes: number;
  /** Stats of one column, or `undefined` when the container carries none for it. */
  column(name: string): ColumnStats | undefined;
}

/** What a published dynamic filter offers a scan. */
export interface ScanPredicate {
  /** Human-readable, e.g. `k BETWEEN 3 AND 90 AND k IN MAP(1000 keys)`. */
  readonly description: string;
  /** Columns the predicate reads (the scan must decode them even if the query does not). */
  readonly columns: readonly string[];
  /** false only if no row of the container can pass `selectRows`. */
  mayContain(stats: ContainerStats): boolean;
  /**
   * Row-level test over a decoded batch: the ascending indices of rows that may pass, or `null`
   * to keep every row. Must never drop a row that can match.
   */
  selectRows(batch: RecordBatch): Int32Array | null;
  /** What the row-level test did so far (e.g. how many rows it tested and skipped), for metrics. */
  rowTestSummary?(): string;
  /** A short form of `description` for tables (e.g. `bounds + in(3)`); `description` when absent. */
  readonly label?: string;
  /**
   * When every row that passes has its `column` equal to one of a finite set of values (an IN
   * list, over all build partitions), that set; otherwise absent or null. A scan with a
   * per-container membership summary (a Parquet Bloom filter) may prune a container in which no
   * value of the set can be; rows with a NULL in `column` never pass when a set is given.
   */
  exactSet?(): ExactValueSet | null;
  /**
   * The row-level test as shared data, for worker threads that decode containers themselves
   * (`Scan.morsels`) to run `selectRows` there (core/scan/shared-row-test.ts restores it); null or
   * absent when it cannot cross threads — the workers then keep every row, which is sound (a
   * dynamic filter only ever says "maybe").
   */
  shareRowTest?(): SharedRowTest | null;
}

/** A predicate's row test as plain data (typed arrays in shared memory): `kind` names its restorer. */
export interface SharedRowTest {
  readonly kind: string;
  readonly state: unknown;
}

/** A finite set of values of one probe column, in its key kind's domain (`KeyValue`, core/keys/types.ts). */
export interface ExactValueSet {
  readonly column: string;
  /** The normalised kind the values are in (the probe column may be narrower or differently typed). */
  readonly kind: KeyKind;
  readonly values: readonly KeyValue[];
}

/**
 * A slot a producer (a join's build side) publishes a predicate into and a consumer (a scan)
 * reads. Until something is published the scan keeps everything. A scan under several joins gets
 * a `StackedFilter` (stacked-filter.ts) holding every join's slot: containers and rows must pass
 * all of them.
 */
export class DynamicFilter {
  #current: ScanPredicate | null = null;
  #version = 0;
  current(): ScanPredicate | null {
    return this.#current;
  }
  /** Increments on every publish, so a consumer can tell the filter changed. */
  get version(): number {
    return this.#version;
  }
  publish(p: ScanPredicate | null): void {
    this.#current = p;
    this.#version++;
  }
  /**
   * Every predicate in force, one per publisher: one (or none) here; a filter composed of others
   * (core/scan/stacked-filter.ts) lists each part's. `current()` is their conjunction.
   */
  published(): readonly ScanPredicate[] {
    const p = this.current();
    return p === null ? [] : [p];
  }
}

export interface ScanOptions {
  /** Columns to produce, in this order; default: all. */
  readonly columns?: readonly string[];
  readonly filter?: DynamicFilter;
  readonly signal?: AbortSignal;
  /**
   * Whether the scan may test per-container Bloom filters (Parquet) against the filter's
   * `exactSet` (config `pushdown.parquetBloom`); default true. Off, only min/max prunes.
   */
  readonly bloomFilters?: boolean;
  /**
   * Late materialization (config `scan.lateMaterialization`; a scan without it ignores it): decode
   * the filter's columns first, test the rows, and decode the other columns only where rows
   * survive. `auto` (default) does it whenever a filter reads fewer columns than the scan decodes;
   * `on` likewise (kept for experiments that want to say so); `off` decodes every column at once.
   */
  readonly lateMaterialization?: 'auto' | 'on' | 'off';
  /**
   * Whether the scan may prune and read by pages where it has a page index (Parquet; config
   * `scan.pageIndex`); absent: the scan's own setting. Off, containers are the unit.
   */
  readonly pageIndex?: boolean;
}

/**
 * One column of an order a scan's rows are known to follow, across all its batches (not just
 * within each): from the file's metadata (Parquet `sorting_columns`) or from whoever made the
 * scan (an in-memory table declared sorted). Same meaning as a sort key: DuckDB's order of the
 * column's type, `descending` and `nullsFirst` as in ORDER BY.
 */
export interface ScanSortColumn {
  readonly column: string;
  readonly descending: boolean;
  readonly nullsFirst: boolean;
}

/** A table the operators can read container by container. */
export interface Scan {
  /** Where the data comes from (file path or `memory:<name>`), for errors and reports. */
  readonly source: string;
  readonly schema: Schema;
  /** Row count from metadata, without decoding (used e.g. to pick the build side). */
  readonly numRows: number;
  readonly numContainers: number;
  readonly metrics: ScanMetrics;
  /**
   * The order the rows come in, lexicographic over these columns, when it is known (absent or
   * empty: unknown). A claim, not a promise an operator may trust blindly: a consumer that relies
   * on it (the sort-merge join) checks each row against its predecessor and fails with a typed
   * error on the first row out of order, never a wrong answer. Pruning and row filters keep it
   * (they only drop rows).
   */
  readonly sortedOn?: readonly ScanSortColumn[];
  /** Batches of the kept containers with the row filter applied; empty batches are skipped. */
  batches(options?: ScanOptions): AsyncIterable<RecordBatch>;
  /**
   * The kept containers as work for worker threads (optional): each either a `DecodeMorsel` that a
   * worker decodes itself — the decode moves off the calling thread — or a batch decoded here.
   * Containers are pruned here, exactly as `batches` prunes them (the filter is re-read before each
   * container); the row-level filter may not be applied to a decoded morsel, which is sound because
   * a dynamic filter only ever says "maybe" (the join drops what it lets through). A scan whose rows
   * must be filtered for the query to be right (a static predicate) does not offer morsels. A
   * decoded morsel's batches have exactly the requested columns (`options.columns`), in order.
   * Metrics: the scan counts what it does here; the work done on the workers (decoding, the row
   * test, `rowsAfterFilter` of batches handed out unfiltered) is counted there and added into
   * `metrics` by the operator from each reply (core/scan/morsel.ts).
   */
  morsels?(options?: ScanOptions): AsyncIterable<DecodeMorsel | RecordBatch>;
  /**
   * Every container's statistics, from metadata and without decoding anything the scan would not
   * decode anyway (a Parquet footer; an in-memory batch's zone map), in scan order; absent when
   * the scan cannot tell before it runs (a join's output). What a planner estimates rows and
   * distinct counts from; `mayContain` over them says which containers a predicate would keep.
   * `undefined` (or no method): unknown.
   */
  containers?(): readonly ContainerStats[] | undefined;
  /**
   * Rows in the containers that `filter`'s current predicate (ANDed with any static predicate of
   * the scan's own) cannot rule out by their statistics — nothing is decoded (optional: a scan
   * with `containers` is estimated from them; use `estimatedRows`). An estimate for choosing how
   * to run (whether worker threads repay their start, core/parallel/threshold.ts), never used to
   * drop a row.
   */
  estimateRows?(filter?: DynamicFilter): number;
}

/**
 * `scan.estimateRows(filter)`; else the rows of its containers the filter may keep; else its
 * metadata row count.
 */
export function estimatedRows(scan: Scan, filter?: DynamicFilter): number {
  if (scan.estimateRows !== undefined) return scan.estimateRows(filter);
  const containers = scan.containers?.();
  return containers === undefined ? scan.numRows : rowsMaybeKept(containers, filter?.current() ?? null);
}

/** Rows of the containers `predicate` may hold (all of them when there is none). */
export function rowsMaybeKept(containers: readonly ContainerStats[], predicate: ScanPredicate | null): number {
  let rows = 0;
  for (const c of containers) if (predicate === null || predicate.mayContain(c)) rows += c.numRows;
  return rows;
}

/**
 * A container (or a run of them) a worker thread decodes: `decoder` names a `MorselDecoder`
 * (core/scan/morsel.ts) in slot `scan-decoder`, which every worker loads with the engine's
 * extensions; `descriptor` is plain data (a file path, row group indices, columns).
 */
export interface DecodeMorsel {
  readonly decoder: string;
  readonly descriptor: unknown;
  /** Rows the morsel decodes to (before any row filter). */
  readonly rows: number;
}

export function isDecodeMorsel(m: DecodeMorsel | RecordBatch): m is DecodeMorsel {
  return typeof (m as DecodeMorsel).decoder === 'string';
}
