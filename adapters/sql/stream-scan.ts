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
 *
 * Information passing (`sip`, core/sip.ts, sip-run.ts): a tree's `SipGate` says whether the
 * tree's joins hand their own filters to their inputs (`GatedScan`; off for `none` and for the
 * strategies that replace them) and whether a scan orders its filters by pass rate (LIP); the filters a sip transfer built
 * before the joins ran are attached to the target table's `PushdownTarget` (`attachTransfer`) and
 * are in force in every read, counting the rows each one tested and dropped.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import type { JoinMetrics, JoinStream } from '../../core/engine.ts';
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import { AdaptiveStackedFilter, type PartCounts } from '../../core/scan/adaptive-filter.ts';
import { renamedFilter, StackedFilter } from '../../core/scan/stacked-filter.ts';
import type { DecodeMorsel, DynamicFilter, Scan, ScanOptions, ScanPredicate } from '../../core/scan/scan.ts';
import { ScanWrapper } from '../../core/scan/scan-wrapper.ts';
import { projectBatch, takeRows } from '../../core/scan/batch-shape.ts';

/** What a tree's sip plan decided for its joins and scans (one per join tree, set before any is read). */
export interface SipGate {
  /** Whether the tree's joins hand their own dynamic filters to their inputs (`GatedScan`). */
  joinFilters: boolean;
  /** Whether a scan applies its filters in the order of their observed pass rate (LIP). */
  adaptive: boolean;
}

/** A gate that lets the joins' filters through, in a fixed order (no sip plan: `dynamic`). */
export function openGate(): SipGate {
  return { joinFilters: true, adaptive: false };
}

/** A filter a sip transfer built and handed to this table's scan, with what it did there. */
export interface TransferIn {
  readonly filter: DynamicFilter;
  readonly pass: 'forward' | 'backward';
  /** The source table's name in the query. */
  readonly from: string;
  /** The source's and this table's key columns (`f.k = d.k` as explain shows it). */
  readonly on: string;
  /** The filter's short label (`bloom(64 KiB)`), or `true` when the policy published nothing. */
  readonly label: string;
  readonly bytes: number;
  readonly buildMs: number;
  /** Rows of the source the filter was built from. */
  readonly sourceRows: number;
  /** Rows this scan tested against the filter and kept, over every read. */
  readonly counts: PartCounts;
  /**
   * The share of this table's rows the filter is expected to keep: the source's rows over its
   * table's (a key of the source, spread evenly). A fixed-order cascade tests the lowest first.
   */
  readonly expectedPass: number;
}

export class PushdownTarget extends ScanWrapper {
  readonly #attached: DynamicFilter[] = [];
  /** Filters sip transfers built before the joins ran, in the order they arrived. */
  readonly transfers: TransferIn[] = [];
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
    /** The tree's sip decisions (default: the joins' filters, fixed order). */
    readonly gate: SipGate = openGate(),
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
    const kept = this.#kept;
    const columns = options.columns ?? this.schema.fields.map((f) => f.name);
    if (kept !== null && columns.every((c) => kept.columns.has(c))) {
      // the kept rows passed the transfers in force when they were read: only later ones are tested
      return this.#read(options, (o) => servedFrom(kept.batches, { ...o, columns }, this.source), kept.passed);
    }
    return this.#read(options, (o) => this.inner.batches(o));
  }

  /**
   * The rows of a sip read of this table (sip-run.ts), kept with these columns: later reads asking
   * for no other column — the next pass's, the joins' — are served from them instead of decoding
   * the table again, under the filters then in force minus the transfers the rows already passed
   * (those attached when the read ran). A later keep replaces an earlier one (its rows are fewer).
   */
  keep(batches: readonly RecordBatch[], columns: readonly string[]): void {
    this.#kept = { batches, columns: new Set(columns), passed: new Set(this.transfers) };
  }
  #kept: { readonly batches: readonly RecordBatch[]; readonly columns: ReadonlySet<string>; readonly passed: ReadonlySet<TransferIn> } | null = null;

  /** The inner scan's morsels under the same stacked filter (when the inner scan offers morsels and no sip read was kept). */
  get morsels(): ((options?: ScanOptions) => AsyncIterable<DecodeMorsel | RecordBatch>) | undefined {
    const inner = this.inner;
    if (inner.morsels === undefined || this.#kept !== null) return undefined;
    return (options: ScanOptions = {}) => this.#read(options, (o) => inner.morsels!(o));
  }

  /** Adds a sip transfer's filter, in force in every later read (kept in `expectedPass` order). */
  attachTransfer(t: TransferIn): void {
    this.transfers.push(t);
    // stable: equal expectations keep their arrival order
    this.transfers.sort((a, b) => a.expectedPass - b.expectedPass);
  }

  /** A read under every filter in force, except the transfers in `passed` (kept rows passed them). */
  #read<T>(options: ScanOptions, read: (o: ScanOptions) => AsyncIterable<T>, passed: ReadonlySet<TransferIn> = new Set()): AsyncIterable<T> {
    const joins = [...(options.filter === undefined ? [] : [options.filter]), ...this.#attached];
    const pending = this.transfers.filter((t) => !passed.has(t));
    let filter: DynamicFilter | undefined;
    if (pending.length > 0) {
      // the transfers' filters (and the joins', when on) as a cascade, counted per part: in
      // observed pass-rate order under LIP, else the expected pass rate's
      filter = new AdaptiveStackedFilter([...pending.map((t) => t.filter), ...joins], pending.map((t) => t.counts), { reorder: this.gate.adaptive });
    } else {
      filter = joins.length === 0 ? undefined : joins.length === 1 ? joins[0] : new StackedFilter(joins);
    }
    const inner = read({ ...options, filter });
    const done = (): void => {
      // a read of kept rows still names the transfers its rows passed
      const before = this.transfers.filter((t) => passed.has(t)).map((t) => t.label);
      this.published = [...before, ...(filter?.published() ?? []).map((p) => p.label ?? p.description)];
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

/**
 * A join's input whose consumer's dynamic filter is dropped while `open()` says no: how a sip plan
 * turns the joins' own filters off (the join still builds its filter; no scan applies it). Filters
 * a scan got otherwise — a sip transfer's, a join's outside the gated ones — are untouched.
 */
export class GatedScan extends ScanWrapper {
  constructor(
    inner: Scan,
    readonly open: () => boolean,
  ) {
    super(inner);
  }
  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    return this.inner.batches(this.#pass(options));
  }
  get morsels(): ((options?: ScanOptions) => AsyncIterable<DecodeMorsel | RecordBatch>) | undefined {
    const inner = this.inner;
    const morsels = inner.morsels;
    if (morsels === undefined) return undefined;
    return (options: ScanOptions = {}) => morsels.call(inner, this.#pass(options));
  }
  override estimateRows(filter?: DynamicFilter): number {
    return super.estimateRows(this.open() ? filter : undefined);
  }
  #pass(options: ScanOptions): ScanOptions {
    if (this.open() || options.filter === undefined) return options;
    const { filter: _dropped, ...rest } = options;
    return rest;
  }
}

/** Kept batches read as a scan would: the filter's rows (re-read per batch: it may be published meanwhile), then `columns`, in that order. */
async function* servedFrom(batches: readonly RecordBatch[], options: ScanOptions & { readonly columns: readonly string[] }, source: string): AsyncGenerator<RecordBatch> {
  for (const batch of batches) {
    options.signal?.throwIfAborted();
    const p = options.filter?.current() ?? null;
    let out = p === null ? batch : select(batch, p);
    out = projectBatch(out, options.columns, source);
    if (out.numRows > 0) yield out;
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
    /** The tree's sip decisions (explain reads whether the joins' filters were on). */
    readonly gate: SipGate = openGate(),
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
