/**
 * The base of a scan that wraps another and changes only what it yields (a static filter in front
 * of the dynamic one, a projection, the filters of joins further up): source, schema, row count,
 * containers, metrics and order are the inner scan's — a wrapper only drops rows or columns, so
 * the order holds and the inner row count stays an upper bound (what `hash.build: auto`
 * compares). A subclass overrides what it changes.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { ScanMetrics } from '../metrics.ts';
import { estimatedRows, type ContainerStats, type DynamicFilter, type Scan, type ScanOptions, type ScanSortColumn } from './scan.ts';

export abstract class ScanWrapper implements Scan {
  constructor(readonly inner: Scan) {}
  get source(): string {
    return this.inner.source;
  }
  get schema(): Schema {
    return this.inner.schema;
  }
  get numRows(): number {
    return this.inner.numRows;
  }
  get numContainers(): number {
    return this.inner.numContainers;
  }
  get metrics(): ScanMetrics {
    return this.inner.metrics;
  }
  get sortedOn(): readonly ScanSortColumn[] | undefined {
    return this.inner.sortedOn;
  }
  /** The inner scan's containers (a wrapper drops rows, so these still bound what it yields). */
  containers(): readonly ContainerStats[] | undefined {
    return this.inner.containers?.();
  }
  /** The inner scan's estimate (a wrapper that filters rows says more: FilteredScan). */
  estimateRows(filter?: DynamicFilter): number {
    return estimatedRows(this.inner, filter);
  }
  abstract batches(options?: ScanOptions): AsyncIterable<RecordBatch>;
}
