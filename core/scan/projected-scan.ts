/**
 * A scan restricted to some of its columns: what the engine hands an operator when the join's
 * `select` list leaves input columns unused, so that they are never decoded (Parquet), copied or
 * gathered. The schema is the inner scan's fields that are kept, in the inner schema's order;
 * metrics, row counts and containers are the inner scan's own (pruning is unchanged).
 *
 * A request for columns outside the projection fails like a request for a missing column: the
 * operators only ever ask for what the bound join said it reads.
 */
import { Schema, type RecordBatch } from 'apache-arrow';
import { MissingColumnError } from '../errors.ts';
import type { DecodeMorsel, Scan, ScanOptions, ScanSortColumn } from './scan.ts';
import { ScanWrapper } from './scan-wrapper.ts';

export class ProjectedScan extends ScanWrapper {
  readonly #schema: Schema;
  readonly #columns: readonly string[];

  constructor(inner: Scan, columns: readonly string[]) {
    super(inner);
    const keep = new Set(columns);
    for (const c of keep) {
      if (!inner.schema.fields.some((f) => f.name === c)) throw new MissingColumnError(c, inner.source, inner.schema.fields.map((f) => f.name));
    }
    const fields = inner.schema.fields.filter((f) => keep.has(f.name));
    this.#schema = new Schema(fields, inner.schema.metadata);
    this.#columns = fields.map((f) => f.name);
  }

  override get schema(): Schema {
    return this.#schema;
  }
  /** The inner scan's order, up to its first column the projection drops. */
  override get sortedOn(): readonly ScanSortColumn[] | undefined {
    const order = this.inner.sortedOn;
    if (order === undefined) return undefined;
    const cut = order.findIndex((c) => !this.#columns.includes(c.column));
    return cut < 0 ? order : order.slice(0, cut);
  }

  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    const columns = options.columns ?? this.#columns;
    for (const c of columns) if (!this.#columns.includes(c)) throw new MissingColumnError(c, `${this.source} (projected)`, this.#columns);
    return this.inner.batches({ ...options, columns });
  }

  /** The inner scan's morsels, restricted to the projection (when the inner scan offers morsels). */
  get morsels(): ((options?: ScanOptions) => AsyncIterable<DecodeMorsel | RecordBatch>) | undefined {
    const inner = this.inner;
    if (inner.morsels === undefined) return undefined;
    return (options: ScanOptions = {}) => {
      const columns = options.columns ?? this.#columns;
      for (const c of columns) if (!this.#columns.includes(c)) throw new MissingColumnError(c, `${this.source} (projected)`, this.#columns);
      return inner.morsels!({ ...options, columns });
    };
  }
}
