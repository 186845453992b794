/**
 * The shapes of an experiment's results — exactly what `results.json` holds — shared by the runner
 * that fills them and the report that renders them.
 */
import type { Config } from '../../core/config/schema.ts';
import type { FileInfo } from './generators.ts';
import type { DataSpec, JoinBlock } from './schema.ts';

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
  readonly rowsDecoded: number;
  readonly rowsAfterFilter: number;
  readonly bytesDecoded: number;
  readonly bytesSkipped: number;
  readonly bytesRead: number;
  readonly bloomBytesRead?: number;
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
  /** null when parity checking is off (or the variant did not run). */
  readonly parity: ParityResult | null;
  /** median / DuckDB median; null without a DuckDB baseline. */
  readonly ratio: number | null;
}

export interface DuckDBBaseline {
  readonly name: 'duckdb';
  readonly threads: 1;
  readonly time: RunStats;
  readonly rows: number;
}

export interface DatasetResult {
  readonly name: string;
  readonly data: DataSpec & { readonly cacheDir?: string; readonly cached?: boolean };
  readonly files: { readonly left: FileInfo; readonly right: FileInfo };
  readonly join: JoinBlock;
  /** The DuckDB SQL of the join (over views `left_input` / `right_input`). */
  readonly sql: string;
  readonly variants: readonly VariantResult[];
  readonly duckdb: DuckDBBaseline | null;
}

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

