/**
 * The two scans a join tree is wired from (issue 14):
 *
 * `PushdownTarget` wraps a FROM table's scan. The join right above it hands it its own dynamic
 * filter through `ScanOptions.filter`, as any scan gets one; joins further up `attach` theirs
 * (renamed to the table's column names). Each read gets a `StackedFilter` over all of them, so one
 * fact scan carries every dimension's filter and a row group is skipped when any of them rules it
 * out. It records the predicates that were in force (for `--explain` and the scan report).
 *
 * `JoinStreamScan` is a join's output seen as the input of the join above it: its batches are the
 * lower join's stream (nothing is materialised between joins). The filter the upper join hands it
 * is routed to the FROM table that produces the filtered column — `routes` says, per output
 * column, which table and column it passes through from unchanged (the planner builds `routes`
 * only through joins that cannot add rows for a dropped one: see join-tree.ts) — and, when it
 * names a column no table can take, applied to the stream's rows here. A WHERE conjunct that has
 * to run above an outer join (`rowFilter`) filters the stream's rows too.
 *
 * `ScanOptions.columns` projects the stream's batches (zero copy), e.g. a mark join's output
 * without its mark once the condition on it ran.
 *
 * A consumer may read a scan more than once (the nested-loop join re-reads its inner side): each
 * read runs the lower join again (`open`), with the same routing.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { JoinMetrics, JoinStream } from '../../core/engine.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { renamedFilter, StackedFilter } from '../../core/scan/stacked-filter.ts';
import type { DecodeMorsel, DynamicFilter, Scan, ScanOptions, ScanPredicate } from '../../core/scan/scan.ts';
import { ScanWrapper } from '../../core/scan/scan-wrapper.ts';
import { projectBatch, takeRows } from '../../operators/memory-scan/memory-scan.ts';

export class PushdownTarget extends ScanWrapper {
  readonly #attached: DynamicFilter[] = [];
  /** Labels of the dynamic filters in force at the end of the last read, the own join's first. */
  published: string[] = [];
  constructor(
    inner: Scan,
    /** The table's name in the query (its alias, else its name). */
    readonly name: string,
    /** The table's name in the tables given. */
    readonly table: string,
    /**
     * The planner's estimate of the rows its static filter keeps (cardinality.ts): what the joins
     * above compare (`hash.build: auto` builds the smaller side, workers start for large probes).
     */
    readonly estimate?: number,
  ) {
    super(inner);
  }
  /** The estimate when there is one (never 0 for a table with rows: 0 means empty), else the table's row count. */
  override get numRows(): number {
    const n = this.inner.numRows;
    return this.estimate === undefined || n === 0 ? n : Math.max(1, Math.min(n, Math.round(this.estimate)));
  }
  /** Adds an upper join's filter (over this scan's column names); attaching one twice is a no-op. */
  attach(filter: DynamicFilter): void {
    if (!this.#attached.includes(filter)) this.#attached.push(filter);
  }
  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    return this.#read(options, (o) => this.inner.batches(o));
  }

  /** The inner scan's morsels under the same stacked filter (when the inner scan offers morsels). */
  get morsels(): ((options?: ScanOptions) => AsyncIterable<DecodeMorsel | RecordBatch>) | undefined {
    const inner = this.inner;
    if (inner.morsels === undefined) return undefined;
    return (options: ScanOptions = {}) => this.#read(options, (o) => inner.morsels!(o));
  }

  #read<T>(options: ScanOptions, read: (o: ScanOptions) => AsyncIterable<T>): AsyncIterable<T> {
    const parts = [...(options.filter === undefined ? [] : [options.filter]), ...this.#attached];
    const filter = parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : new StackedFilter(parts);
    const inner = read({ ...options, filter });
    const done = (): void => {
      this.published = (filter?.published() ?? []).map((p) => p.label ?? p.description);
    };
    return (async function* () {
      try {
        yield* inner;
      } finally {
        done();
      }
    })();
  }
}

/** Where an output column of a join comes from, unchanged: a FROM table's scan and its column. */
export interface Route {
  readonly target: PushdownTarget;
  readonly column: string;
}

export class JoinStreamScan implements Scan {
  readonly metrics: ScanMetrics = newScanMetrics();
  /** Every run's join metrics, in order (a scan read twice ran its join twice). */
  readonly runs: JoinMetrics[] = [];
  readonly #routed = new WeakSet<DynamicFilter>();
  #first: JoinStream | null;
  readonly schema: Schema;
  constructor(
    first: JoinStream,
    readonly open: () => Promise<JoinStream>,
    readonly source: string,
    /** An estimate (joins' outputs have no metadata): what the hash join's build-side choice compares. */
    readonly numRows: number,
    readonly routes: ReadonlyMap<string, Route>,
    readonly rowFilter: ScanPredicate | null,
  ) {
    this.#first = first;
    this.schema = first.schema;
  }
  get numContainers(): number {
    return 0;
  }
  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    const upper = options.filter;
    if (upper !== undefined) this.#route(upper);
    return this.#run(upper, options.columns);
  }

  /** Attaches `upper` to every table that produces a column of the stream, renamed to its columns. */
  #route(upper: DynamicFilter): void {
    if (this.#routed.has(upper)) return;
    this.#routed.add(upper);
    const byTarget = new Map<PushdownTarget, Map<string, string>>();
    for (const [out, r] of this.routes) {
      let names = byTarget.get(r.target);
      if (names === undefined) byTarget.set(r.target, (names = new Map()));
      names.set(out, r.column);
    }
    for (const [target, names] of byTarget) target.attach(renamedFilter(upper, names));
  }

  /** Whether a table below takes `p` (it names only columns one table produces). */
  #takenBelow(p: ScanPredicate): boolean {
    const first = this.routes.get(p.columns[0] ?? '');
    return first !== undefined && p.columns.every((c) => this.routes.get(c)?.target === first.target);
  }

  async *#run(upper: DynamicFilter | undefined, columns: readonly string[] | undefined): AsyncGenerator<RecordBatch> {
    const stream = this.#first ?? (await this.open());
    this.#first = null;
    this.runs.push(stream.metrics);
    const m = this.metrics;
    const started = performance.now();
    try {
      for await (const batch of stream.batches) {
        m.containersTotal++;
        m.rowsDecoded += batch.numRows;
        let out = batch;
        if (this.rowFilter !== null) out = select(out, this.rowFilter);
        const p = upper?.current() ?? null;
        if (p !== null && !this.#takenBelow(p)) out = select(out, p);
        m.rowsAfterFilter += out.numRows;
        if (columns !== undefined) out = projectBatch(out, columns, this.source);
        if (out.numRows > 0) yield out;
      }
    } finally {
      m.elapsedMs += performance.now() - started;
    }
  }
}

function select(batch: RecordBatch, p: ScanPredicate): RecordBatch {
  const rows = p.selectRows(batch);
  return rows === null || rows.length === batch.numRows ? batch : takeRows(batch, rows);
}
