/**
 * Metrics: plain counters, one object per scan and per operator, filled while a join runs and
 * reported by the CLI (`--json`) and the experiment runner. Counters only ever grow; a metric
 * object is never shared between two concurrent runs.
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
  elapsedMs: number;
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
