/**
 * Metrics: plain counters, one object per scan and per operator, filled while a join runs and
 * reported by the CLI (`--json`) and the experiment runner. Counters only ever grow; a metric
 * object is never shared between two concurrent runs.
 *
 * Worker threads (config `threads` > 1): a scan's containers may be decoded and filtered on the
 * workers (`Scan.morsels`, core/scan/morsel.ts). A worker counts that work in a `ScanMetrics` of
 * its own per reply — a delta of plain numbers, posted with the reply — and the operator adds it
 * into the scan's metrics (`addScanMetrics`) as the reply arrives. So a scan's figures are the
 * same quantities at every thread count: the main thread's pruning plus every worker's decoding.
 */

export interface ScanMetrics {
  /** Containers (Parquet row groups / in-memory record batches) the scan could have read. */
  containersTotal: number;
  /** Containers skipped without decoding because the dynamic filter said "cannot match". */
  containersPruned: number;
  /** Of `containersPruned`, those only a per-container Bloom filter ruled out (min/max said "maybe"). */
  containersPrunedByBloom: number;
  /**
   * Pages (Parquet data pages, by the page index) of the predicate columns asked whether they may
   * hold a match, in containers the container statistics kept; 0 without a page index.
   */
  pagesTotal: number;
  /** Of `pagesTotal`, the pages ruled out: their rows are not decoded (nor any column's pages holding only those rows). */
  pagesPruned: number;
  /** Rows decoded from kept containers. */
  rowsDecoded: number;
  /** Rows left after the row-level dynamic filter. */
  rowsAfterFilter: number;
  /** Bytes decoded (Parquet: uncompressed column-chunk sizes; memory: buffer bytes of kept batches). */
  bytesDecoded: number;
  /** Bytes in pruned containers and pages not read (what the filter saved). */
  bytesSkipped: number;
  /** Bytes read from the file (Parquet: the footer and the column chunks decoded; in memory: 0). */
  bytesRead: number;
  /** Of `bytesRead`, the bytes of Bloom filters read to decide on containers. */
  bloomBytesRead: number;
  /**
   * Late materialization (Parquet): rows of kept containers whose other columns were never decoded
   * because the filter's columns, decoded first, left none of them; and those columns' bytes.
   */
  rowsNotDecoded: number;
  bytesNotDecoded: number;
  /**
   * Time spent scanning: pruning, reading, decoding and the row filter, not the consumer's time
   * between batches. At `threads` > 1 it is CPU time summed over threads — the main thread's
   * pruning plus each worker's decode and row test of the morsels it ran — not wall time: with
   * two busy workers it can be about twice the wall time the scan took.
   */
  elapsedMs: number;
}

/** The counters of a `ScanMetrics`, in report order. */
export const SCAN_METRIC_KEYS: readonly (keyof ScanMetrics)[] = [
  'containersTotal',
  'containersPruned',
  'containersPrunedByBloom',
  'pagesTotal',
  'pagesPruned',
  'rowsDecoded',
  'rowsAfterFilter',
  'bytesDecoded',
  'bytesSkipped',
  'bytesRead',
  'bloomBytesRead',
  'rowsNotDecoded',
  'bytesNotDecoded',
  'elapsedMs',
];

/** Adds `delta` (e.g. what a worker counted for one reply) into `into`; returns `into`. */
export function addScanMetrics(into: ScanMetrics, delta: Readonly<ScanMetrics>): ScanMetrics {
  for (const k of SCAN_METRIC_KEYS) into[k] += delta[k];
  return into;
}

/**
 * The counters of `m` but `omit`, in report order (`SCAN_METRIC_KEYS`), as a new plain object:
 * the scan summary every report writes (the CLI's `--json`, the experiment results), each leaving
 * out what it shows otherwise or not at all.
 */
export function scanCounters<K extends keyof ScanMetrics>(m: Readonly<ScanMetrics>, omit: readonly K[]): Omit<ScanMetrics, K> {
  const out: Partial<ScanMetrics> = {};
  for (const k of SCAN_METRIC_KEYS) if (!(omit as readonly (keyof ScanMetrics)[]).includes(k)) out[k] = m[k];
  return out as Omit<ScanMetrics, K>;
}

/** Whether every counter of `m` is 0 (a delta with nothing to add). */
export function isEmptyScanMetrics(m: Readonly<ScanMetrics>): boolean {
  return SCAN_METRIC_KEYS.every((k) => m[k] === 0);
}

export function newScanMetrics(): ScanMetrics {
  return {
    containersTotal: 0,
    containersPruned: 0,
    containersPrunedByBloom: 0,
    pagesTotal: 0,
    pagesPruned: 0,
    rowsDecoded: 0,
    rowsAfterFilter: 0,
    bytesDecoded: 0,
    bytesSkipped: 0,
    bytesRead: 0,
    bloomBytesRead: 0,
    rowsNotDecoded: 0,
    bytesNotDecoded: 0,
    elapsedMs: 0,
  };
}

export interface OperatorMetrics {
  name: string;
  outputRows: number;
  outputBatches: number;
  elapsedMs: number;
  peakReservedBytes: number;
  spilledBytes: number;
  spillFiles: number;
  /** Free-form counters specific to one operator (e.g. `buildRows`, `probeRows`, `pairsTested`). */
  counters: Record<string, number>;
  /** Free-form facts (e.g. `hashmap: chained`, `dynamicFilter: k BETWEEN 0 AND 9`). */
  details: Record<string, string>;
}

export function newOperatorMetrics(name: string): OperatorMetrics {
  return { name, outputRows: 0, outputBatches: 0, elapsedMs: 0, peakReservedBytes: 0, spilledBytes: 0, spillFiles: 0, counters: {}, details: {} };
}

export function bump(m: OperatorMetrics, counter: string, by = 1): void {
  m.counters[counter] = (m.counters[counter] ?? 0) + by;
}
