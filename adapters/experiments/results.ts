/**
 * The shapes of an experiment's results — exactly what `results.json` holds — shared by the runner
 * that fills them and the report that renders them.
 */
import type { Config } from '../../core/config/schema.ts';
import type { FileInfo } from './generators.ts';
import type { DataSpec, JoinBlock, TableSource } from './schema.ts';

export interface RunStats {
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly runsMs: readonly number[];
}

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

export interface VariantResult {
  readonly name: string;
  /** `ok`: measured; `unsupported`: the algorithm cannot run this join; `failed`: memory limit. */
  readonly status: 'ok' | 'unsupported' | 'failed';
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
  /** null when parity checking is off (or the variant did not run). */
  readonly parity: ParityResult | null;
  /** median / DuckDB median; null without a DuckDB baseline. */
  readonly ratio: number | null;
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
  readonly time: RunStats;
  readonly rows: number;
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
}

export interface ExperimentResults {
  readonly experiment: {
    readonly name: string;
    readonly description?: string;
    readonly source: string;
    /** Name of the copy in the output directory. */
    readonly copy: string;
    readonly repeat: number;
    readonly warmup: number;
    readonly duckdb: boolean;
    readonly parity: boolean;
    /** joinlab's and DuckDB's thread count. */
    readonly threads: number;
    readonly extensions: readonly string[];
  };
  readonly timestamp: string;
  readonly wallMs: number;
  readonly machine: MachineInfo;
  readonly datasets: readonly DatasetResult[];
  /** False when any parity check failed (true when none ran). */
  readonly parityOk: boolean;
  /** Absolute path of the output directory. */
  readonly out: string;
}

