/**
 * The prefilter applied to whole containers: once the buffered side is sorted, its extreme key
 * `e` is known, and a streamed row can match only if `e OP s` (match.ts) — so a container of the
 * streamed scan whose min/max statistics say no row satisfies that is never decoded. This is the
 * range join's dynamic filter, the way a hash join publishes its build keys' bounds: DuckDB
 * pushes a range join's build-side min/max into the probe scan as a table filter
 * (`PhysicalComparisonJoin` / join filter pushdown), DataFusion's dynamic filters do the same.
 *
 * Published only where a dropped streamed row cannot reach the output: inner and left joins
 * (the streamed side is not outer) and the existence joins (streamed rows are never output, and
 * a batch that cannot match marks nothing) — and only with `pwmj.prefilter` on, since it is the
 * prefilter. It answers "maybe" whenever the statistics are missing or cannot be converted with
 * certainty into the key's domain (core/scan/key-stats.ts widens, never narrows); an all-NULL
 * container holds nothing that can match. The row-level test is left to the operator's own
 * prefilter (`selectRows` keeps every row), which already makes one pass over the key.
 */
import type { DataType } from 'apache-arrow';
import { compareKeyValues, formatKeyValue, keyValueAt, statsToKeyRange, type KeyValue } from '../../core/scan/key-stats.ts';
import type { ContainerStats, ScanPredicate } from '../../core/scan/scan.ts';
import { flipRangeOp } from '../../core/types.ts';
import type { SortedBufferedSide } from './buffered-side.ts';
import type { PiecewisePlan } from './plan.ts';

export class ExtremeKeyFilter implements ScanPredicate {
  readonly description: string;
  readonly columns: readonly string[];
  readonly #extreme: KeyValue;

  constructor(
    private readonly plan: PiecewisePlan,
    extreme: KeyValue,
    private readonly streamedType: DataType,
  ) {
    this.#extreme = extreme;
    this.columns = [plan.streamedKey];
    // `e OP s` read from the streamed column's side: e < s is s > e
    this.description = `${plan.streamedKey} ${flipRangeOp(plan.op)} ${formatKeyValue(plan.kind, extreme)} (piecewise extreme key)`;
  }

  /** The filter for this join, or null when none may be published. */
  static forJoin(plan: PiecewisePlan, buffered: SortedBufferedSide, streamedType: DataType): ExtremeKeyFilter | null {
    const extreme = buffered.extremeKey();
    if (!plan.prefilter || plan.streamedOuter || extreme === null) return null;
    return new ExtremeKeyFilter(plan, keyValueAt(extreme.key, extreme.row), streamedType);
  }

  mayContain(stats: ContainerStats): boolean {
    const col = stats.column(this.plan.streamedKey);
    if (col === undefined) return true;
    if (col.nullCount !== null && col.nullCount >= stats.numRows) return false; // every key NULL
    const range = statsToKeyRange(col, this.streamedType, this.plan.kind);
    const e = this.#extreme;
    switch (this.plan.op) {
      case '<': // some s > e
        return range.hi === null || compareKeyValues(range.hi, e) > 0;
      case '<=':
        return range.hi === null || compareKeyValues(range.hi, e) >= 0;
      case '>': // some s < e
        return range.lo === null || compareKeyValues(range.lo, e) < 0;
      case '>=':
        return range.lo === null || compareKeyValues(range.lo, e) <= 0;
    }
  }

  selectRows(): Int32Array | null {
    return null;
  }
}
