/**
 * The shapes of an experiment's results — exactly what `results.json` holds — shared by the runner
 * that fills them and the report that renders them.
 */
import type { Config } from '../../core/config/schema.ts';
import type { SipSummary } from '../../adapters/sql/sip-run.ts';
import type { FileInfo } from './generators.ts';
import type { DataSpec, JoinBlock, TableSource } from './schema.ts';
import type { RepeatAuto, RunStats } from './stats.ts';

export type { RunStats } from './stats.ts';

export interface ScanSummary {
  readonly containersTotal: number;
  readonly containersPruned: number;
  /** Of those, pruned only by a Parquet Bloom filter (absent in results written before it existed). */
  readonly containersPrunedByBloom?: number;
  /** Pages of the predicate columns asked / ruled out by a page index (absent in results written before it existed). */
  readonly pagesTotal?: number;
  readonly pagesPruned?: number;
  readonly rowsDecoded: number;
  readonly rowsAfterFilter: number;
  readonly bytesDecoded: number;
  readonly bytesSkipped: number;
  readonly bytesRead: number;
  readonly bloomBytesRead?: number;
  /** Late materialization: rows and bytes of other columns never decoded (absent in older results). */
  readonly rowsNotDecoded?: number;
  readonly bytesNotDecoded?: number;
}

export interface ParityResult {
  readonly equal: boolean;
  readonly missing: number;
  readonly extra: number;
  readonly actualRows: number;
  readonly expectedRows: number;
  readonly schemaProblems: readonly string[];
  /** When not equal: the first differing rows, as `formatComparison` prints them. */
  readonly detail?: string;
}

/** A config as JSON: `memoryLimit` Infinity becomes 'unlimited'. */
export type ConfigJson = Omit<Config, 'memoryLimit'> & { memoryLimit: number | 'unlimited' };

/**
 * How a variant (or one join order of it) ended: `ok` measured; `unsupported` the algorithm cannot
 * run this join or the SQL is outside the subset; `failed` memory limit; `timeout` a run passed the
 * experiment's `timeout` and was aborted (its other runs skipped: it would time out again).
 */
export type RunStatus = 'ok' | 'unsupported' | 'failed' | 'timeout';

export interface VariantResult {
  readonly name: string;
  readonly status: RunStatus;
  readonly reason?: string;
  readonly overrides: Record<string, unknown>;
  readonly config: ConfigJson;
  /** The algorithm that ran (with `join: auto`, the one it chose). */
  readonly algorithm?: string;
  /** The planner that chose `algorithm` (`auto`); absent when the config named the algorithm. */
  readonly chosenBy?: string;
  readonly time?: RunStats;
  /** Median of the engine's own join time (metrics.elapsedMs: no file opening). */
  readonly joinMs?: number;
  readonly rows?: number;
  readonly probeSide?: 'left' | 'right';
  readonly probe?: ScanSummary;
  readonly build?: ScanSummary;
  readonly peakReservedBytes?: number;
  /** The published dynamic filter (metrics.operators.join.details.dynamicFilter). */
  readonly dynamicFilter?: string;
  /** Its short form for tables (`bounds + map(992, swiss) + bitmap`; details.dynamicFilterLabel). */
  readonly dynamicFilterLabel?: string;
  readonly details?: Record<string, string>;
  readonly counters?: Record<string, number>;
  /**
   * A `sql:` data set: each table scan of the query (its FROM tables, in the order the query names
   * them), with the static filters it applied. `probe` is then their sum and `build` is absent.
   */
  readonly scans?: readonly TableScanSummary[];
  /** A `sql:` data set: how many joins the query ran. */
  readonly joins?: number;
  /** A `sql:` data set: each join's output rows, in the order the joins ran (a join re-run by a nested loop once per run). */
  readonly joinRows?: readonly number[];
  /** A `sql:` data set: the largest intermediate result, the most rows any one join output (0 without joins). */
  readonly largestJoinRows?: number;
  /**
   * A `sql:` data set: what the information-passing strategy (`sip`) did in each join tree of the
   * query (the query's, then its subqueries'), from the last run (`sipSummary`, docs/sip.md).
   * With `orders`, the cost order's run. Absent in results written before it existed.
   */
  readonly sip?: readonly SipSummary[];
  /**
   * An experiment with `orders: N`: the variant under each join order, `cost` first, then
   * `random:1` … `random:N`. The variant's own fields (time, scans, parity, …) are the `cost` run's.
   */
  readonly orders?: readonly OrderRunResult[];
  /** An experiment with `orders: N`: time and largest intermediate result over the N + 1 orders (orders.ts). */
  readonly ordersSummary?: OrdersSummary;
  /** Against the experiment's baseline variant (compare.ts); absent for the baseline itself and with one variant. */
  readonly comparison?: BaselineComparison;
  /** null when parity checking is off (or the variant did not run). */
  readonly parity: ParityResult | null;
  /** median / DuckDB median; null without a DuckDB baseline. */
  readonly ratio: number | null;
}

/** One join order's runs of a variant (an experiment with `orders`). */
export interface OrderRunResult {
  /** The `sql.joinOrder` it ran under: `cost`, `random:1`, … */
  readonly order: string;
  readonly status: RunStatus;
  readonly reason?: string;
  /** Over the experiment's `repeat` runs under this order. */
  readonly time?: RunStats;
  readonly joinMs?: number;
  readonly rows?: number;
  readonly joins?: number;
  readonly joinRows?: readonly number[];
  readonly largestJoinRows?: number;
  readonly parity: ParityResult | null;
}

/** A field of `OrdersSummary` that can be a lower bound (a timed-out order's time is "more than the timeout"). */
export type OrdersBound = 'costMs' | 'minMs' | 'medianMs' | 'maxMs' | 'maxOverMin';

/**
 * A variant over its join orders. Each order's time is its median over the repetitions; min,
 * median and max are over the orders that ran or timed out, `maxOverMin` is their ratio (the
 * robustness factor of Robust Predicate Transfer, Zhao et al., SIGMOD 2025: 1 means the order does
 * not matter). A timed-out order's time counts as more than the timeout: the fields it decides are
 * then lower bounds, listed in `lowerBounds` (max is the timeout, max/min the timeout / min).
 */
export interface OrdersSummary {
  /** Orders asked for: `cost` plus N random ones. */
  readonly orders: number;
  /** Orders that ran (the others are in `failed` or `timedOut`). */
  readonly ran: number;
  /** Orders that could not run (unsupported, memory limit): min, median and max leave them out. */
  readonly failed: readonly string[];
  /** Orders whose run passed the experiment's `timeout` (absent in results written before it existed). */
  readonly timedOut?: readonly string[];
  /** The fields below that are only lower bounds ("more than", printed with '>'); absent or empty: none. */
  readonly lowerBounds?: readonly OrdersBound[];
  /** Median time under the cost-based order (the timeout when it timed out; null when it did not run). */
  readonly costMs: number | null;
  readonly minMs: number | null;
  readonly medianMs: number | null;
  readonly maxMs: number | null;
  readonly maxOverMin: number | null;
  /** The orders that gave `minMs` and `maxMs` (with timeouts, `slowest` is the first order that timed out). */
  readonly fastest: string | null;
  readonly slowest: string | null;
  /** Largest intermediate result (rows of the largest join output) under the cost order, and under any order. */
  readonly costLargestJoinRows: number | null;
  readonly largestJoinRows: number | null;
}

/** A variant against the baseline variant on one data set (compare.ts). */
export interface BaselineComparison {
  readonly baseline: string;
  /** This variant's median time / the baseline's (null when either did not run). */
  readonly ratio: number | null;
  /**
   * `no change` when the two 95% confidence intervals of the median overlap (a tie; the min–max
   * ranges when either interval is unknown); `timeout` when this variant's run timed out (no
   * ratio); `faster` with the ratio null when only the baseline's did.
   */
  readonly verdict: 'faster' | 'slower' | 'no change' | 'incomparable' | 'timeout';
  /** `1.32x faster`, `1.10x slower`, `no change`, `incomparable`, `timeout`, `> 3.20x faster` (the baseline timed out). */
  readonly text: string;
  /** What decided faster / slower / no change: the 95% intervals, or the min–max ranges (an interval unknown). Absent in older results and without two times. */
  readonly by?: 'ci95' | 'min-max';
}

/** Counters that do not depend on timing, summed over the data sets a variant and the baseline both ran (compare.ts). */
export interface DecodedSummary {
  /** Data sets summed (both ran and report their scans). */
  readonly datasets: number;
  /** Probe rows / bytes decoded (a `sql:` data set: every table scan's), containers pruned of the total. */
  readonly rowsDecoded: number;
  readonly bytesDecoded: number;
  readonly containersPruned: number;
  readonly containersTotal: number;
  /** rowsDecoded / the baseline's over the same data sets (null when the baseline decoded none). */
  readonly rowsVsBaseline: number | null;
  readonly bytesVsBaseline: number | null;
}

/** A variant against the baseline over every data set (compare.ts `summarize`). */
export interface VariantComparisonSummary {
  readonly name: string;
  /** Data sets where both this variant and the baseline ran. */
  readonly compared: number;
  /** Geometric mean over those data sets of this variant's time / the baseline's (1 for the baseline). */
  readonly geomeanRatio: number | null;
  /** `1.12x faster` for a geometric mean of 0.89 (words from the ratio alone), `baseline` for the baseline. */
  readonly text: string;
  readonly faster: number;
  readonly slower: number;
  readonly noChange: number;
  readonly incomparable: number;
  /** Data sets where this variant's (cost-order) run timed out: no ratio, counted apart (absent in older results). */
  readonly timeout?: number;
  /** Rows and bytes decoded, containers pruned over the data sets compared (absent in older results, and without scan counters). */
  readonly decoded?: DecodedSummary;
  /**
   * With `orders`: the robustness factor (max/min over the orders) over the data sets. `atLeast`:
   * some data set's max/min is a lower bound (an order timed out), so the geometric mean is one too
   * (`worstAtLeast`: the worst is).
   */
  readonly orders?: {
    readonly geomeanMaxOverMin: number | null;
    readonly worstMaxOverMin: number | null;
    readonly worstDataset: string | null;
    readonly atLeast?: boolean;
    readonly worstAtLeast?: boolean;
  };
}

export interface ComparisonSummary {
  readonly baseline: string;
  /**
   * What decides `no change`: `ci95` the two variants' 95% confidence intervals of the median
   * overlap (their min–max ranges where an interval is unknown); `min-max` (results written before
   * intervals existed) the min–max ranges over the repetitions overlap.
   */
  readonly spread: 'ci95' | 'min-max';
  readonly variants: readonly VariantComparisonSummary[];
}

export interface TableScanSummary {
  /** The table's name in `tables` and its alias in the query (empty when the engine did not say). */
  readonly table: string;
  readonly alias: string;
  readonly filters: readonly string[];
  readonly scan: ScanSummary;
}

export interface DuckDBBaseline {
  readonly name: 'duckdb';
  /** DuckDB's thread count: the experiment's `threads`, joinlab's too. */
  readonly threads: number;
  /** `timeout`: a run (or its answer for the parity checks) passed the experiment's `timeout`; absent in older results: ok. */
  readonly status?: 'ok' | 'timeout';
  readonly reason?: string;
  /** Absent when it timed out. */
  readonly time?: RunStats;
  readonly rows?: number;
}

/** A `data` + `join` data set (`kind` is absent in results written before `sql:` data sets existed). */
export interface JoinDatasetResult {
  readonly kind?: 'join';
  readonly name: string;
  readonly data: DataSpec & { readonly cacheDir?: string; readonly cached?: boolean };
  readonly files: { readonly left: FileInfo; readonly right: FileInfo };
  readonly join: JoinBlock;
  /** The DuckDB SQL of the join (over views `left_input` / `right_input`). */
  readonly sql: string;
  readonly variants: readonly VariantResult[];
  readonly duckdb: DuckDBBaseline | null;
  /** Why no answer was checked though `parity` is on: DuckDB's answer did not come within the `timeout`. */
  readonly parityUnchecked?: string;
}

/** A `sql` + `tables` data set: the query as written is what both joinlab and DuckDB ran. */
export interface SqlDatasetResult {
  readonly kind: 'sql';
  readonly name: string;
  /** By the name the query uses: where the table came from, and its file. */
  readonly tables: Readonly<Record<string, { readonly source: TableSource & { readonly cacheDir?: string; readonly cached?: boolean }; readonly file: FileInfo }>>;
  /** The query (DuckDB runs it over views of the same names on the same files). */
  readonly sql: string;
  readonly variants: readonly VariantResult[];
  readonly duckdb: DuckDBBaseline | null;
  /** Why no answer was checked though `parity` is on: DuckDB's answer did not come within the `timeout`. */
  readonly parityUnchecked?: string;
}

export type DatasetResult = JoinDatasetResult | SqlDatasetResult;

export interface MachineInfo {
  readonly os: string;
  readonly platform: string;
  readonly arch: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryBytes: number;
  readonly freeMemoryBytes: number;
  readonly node: string;
  readonly joinlab: string;
  readonly duckdb: string;
  readonly duckdbNodeApi: string;
  /**
   * os.loadavg() (1, 5 and 15 minutes) when the experiment started and when its last run ended: a
   * busy machine explains noisy times. Absent in results written before it existed.
   */
  readonly loadAverage?: { readonly start: readonly number[]; readonly end: readonly number[] };
  /**
   * glibc malloc's settings as this process found them in its environment (bin/tuned.mjs sets
   * both; `not set` when absent, e.g. a run without the wrapper). Absent in older results.
   */
  readonly allocator?: { readonly MALLOC_MMAP_THRESHOLD_: string; readonly MALLOC_TRIM_THRESHOLD_: string };
  /** Thread counts: each variant's joinlab `threads` (by variant name) and DuckDB's `threads` setting. Absent in older results. */
  readonly threads?: { readonly joinlab: Readonly<Record<string, number>>; readonly duckdb: number };
}

export interface ExperimentResults {
  readonly experiment: {
    readonly name: string;
    readonly description?: string;
    readonly source: string;
    /** Name of the copy in the output directory. */
    readonly copy: string;
    /** Timed runs per variant, or `auto` (until the 95% interval is narrow: `repeatAuto`). */
    readonly repeat: number | 'auto';
    /** With `repeat: auto`, its settings (absent otherwise). */
    readonly repeatAuto?: RepeatAuto;
    readonly warmup: number;
    readonly duckdb: boolean;
    readonly parity: boolean;
    /** joinlab's and DuckDB's thread count. */
    readonly threads: number;
    readonly extensions: readonly string[];
    /** Random join orders per variant beside the cost-based one (absent in results written before it existed). */
    readonly orders?: number;
    /** The variant the others are compared with (absent in results written before it existed). */
    readonly baseline?: string;
    /** Per-run time limit in seconds (null: none; absent in results written before it existed). */
    readonly timeout?: number | null;
    /** Config overrides given on the command line (`joinlab run --set`), applied to every variant; absent when none. */
    readonly set?: Record<string, unknown>;
  };
  readonly timestamp: string;
  readonly wallMs: number;
  readonly machine: MachineInfo;
  readonly datasets: readonly DatasetResult[];
  /** Every variant against the baseline over the data sets (absent with one variant). */
  readonly comparison?: ComparisonSummary;
  /** False when any parity check failed, under any join order (true when none ran). */
  readonly parityOk: boolean;
  /** Absolute path of the output directory. */
  readonly out: string;
}

