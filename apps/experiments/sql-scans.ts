/**
 * The table scans of one `Engine.sql` run, for the experiment runner and the benchmarks: what
 * each of the query's FROM tables cost (row groups pruned, rows and bytes decoded), from
 * `SqlResult.scans` (the FROM leaves: table, alias, metrics, the filters in force in the scan).
 */
import { addScanMetrics, newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { SqlResult } from '../../adapters/sql/run.ts';

export interface SqlTableScan {
  /** The table's name in the query's table map, and its alias in the query ('' when unknown). */
  readonly table: string;
  readonly alias: string;
  readonly metrics: ScanMetrics;
  /** The filters in force in the scan (dynamic ones' labels, then `where` for a static one). */
  readonly filters: readonly string[];
}

/** The query's table scans. */
export function sqlScans(result: SqlResult): readonly SqlTableScan[] {
  return result.scans;
}

/** The scan of `table` (by table name or alias). */
export function scanOf(scans: readonly SqlTableScan[], table: string): SqlTableScan | undefined {
  return scans.find((s) => s.table === table || s.alias === table);
}

/** Every counter summed (elapsedMs too). */
export function sumScans(scans: readonly SqlTableScan[]): ScanMetrics {
  const sum = newScanMetrics();
  for (const { metrics } of scans) addScanMetrics(sum, metrics);
  return sum;
}
