/**
 * The table scans of one `Engine.sql` run, for the experiment runner and the benchmarks: what
 * each of the query's FROM tables cost (row groups pruned, rows and bytes decoded).
 *
 * `SqlResult.scans` (the FROM leaves: table, alias, metrics, static filters) is what the engine
 * reports, and is read whenever it is there. A result without it comes from the left-deep chain of
 * joins Engine.sql runs a FROM list as, whose leaves are the first join's left input and every
 * join's right input, in the order the query names the tables; those are returned, unnamed.
 */
import { newScanMetrics, type ScanMetrics } from '../../core/metrics.ts';
import type { SqlResult } from '../sql/run.ts';

export interface SqlTableScan {
  /** The table's name in the query's table map, and its alias in the query ('' when unknown). */
  readonly table: string;
  readonly alias: string;
  readonly metrics: ScanMetrics;
  /** The static (WHERE) filters the scan applied, as text. */
  readonly filters: readonly string[];
}

/** The query's table scans: `result.scans` when present, else the leaves of its join chain. */
export function sqlScans(result: SqlResult): readonly SqlTableScan[] {
  const reported = (result as SqlResult & { readonly scans?: readonly SqlTableScan[] }).scans;
  if (reported !== undefined) return reported;
  if (result.joins.length === 0) return [];
  return [result.joins[0]!.scans.left, ...result.joins.map((j) => j.scans.right)].map((metrics) => ({ table: '', alias: '', metrics, filters: [] }));
}

/**
 * The scan of `table` (by table name or alias); from unnamed scans, the one at `position` (where
 * the query names the table in its FROM list, counting from 0).
 */
export function scanOf(scans: readonly SqlTableScan[], table: string, position: number): SqlTableScan | undefined {
  const named = scans.find((s) => s.table === table || s.alias === table);
  if (named !== undefined) return named;
  return scans.every((s) => s.table === '') ? scans[position] : undefined;
}

/** Every counter summed (elapsedMs too). */
export function sumScans(scans: readonly SqlTableScan[]): ScanMetrics {
  const sum = newScanMetrics();
  for (const { metrics } of scans) for (const k of Object.keys(sum) as (keyof ScanMetrics)[]) sum[k] += metrics[k];
  return sum;
}
