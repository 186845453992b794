/**
 * A scan with a static predicate (a query's WHERE conjuncts on this table) in front of whatever
 * dynamic filter a join publishes into it. Both prune containers and filter rows: the scan is
 * handed ONE predicate, their conjunction, re-composed whenever the join publishes (the dynamic
 * filter's version changes), so a Parquet scan prunes a row group by either one's statistics.
 *
 * The conjunction keeps each operand's contract: a container may hold a passing row only if both
 * say it may; a row passes only if both select it (`selectRows` results are ascending, so their
 * intersection is a merge). The dynamic operand's exact set (for Bloom pruning) and row-test
 * summary carry over: every row passing the conjunction passes it.
 */
import type { RecordBatch } from 'apache-arrow';
import { intersectRows } from '../selection.ts';
import { DynamicFilter, estimatedRows, type ContainerStats, type ExactValueSet, type Scan, type ScanOptions, type ScanPredicate, type SharedRowTest } from './scan.ts';
import { registerRowTestKind, restoreRowTest, type RowTest } from './shared-row-test.ts';
import { ScanWrapper } from './scan-wrapper.ts';

/** `a AND b` as one predicate. */
export function andPredicates(a: ScanPredicate, b: ScanPredicate): ScanPredicate {
  const columns = [...new Set([...a.columns, ...b.columns])];
  return {
    description: `(${a.description}) AND (${b.description})`,
    label: `${a.label ?? a.description} + ${b.label ?? b.description}`,
    columns,
    mayContain: (stats: ContainerStats) => a.mayContain(stats) && b.mayContain(stats),
    selectRows: (batch: RecordBatch): Int32Array | null => bothSelect(a, b, batch),
    exactSet: (): ExactValueSet | null => b.exactSet?.() ?? a.exactSet?.() ?? null,
    rowTestSummary: () => b.rowTestSummary?.() ?? a.rowTestSummary?.() ?? '',
    // the parts that can cross threads: testing fewer of them on a worker keeps more rows, which
    // a dynamic filter may always do (a scan with a static predicate offers no morsels)
    shareRowTest(): SharedRowTest | null {
      const parts = [a.shareRowTest?.() ?? null, b.shareRowTest?.() ?? null].filter((p): p is SharedRowTest => p !== null);
      if (parts.length <= 1) return parts[0] ?? null;
      return { kind: 'and', state: parts };
    },
  };
}

/** The rows both `a` and `b` select (ascending index lists, null = every row). */
function bothSelect(a: RowTest, b: RowTest, batch: RecordBatch): Int32Array | null {
  const x = a.selectRows(batch);
  if (x !== null && x.length === 0) return x;
  const y = b.selectRows(batch);
  if (x === null) return y;
  if (y === null) return x;
  return intersectRows(x, y);
}

registerRowTestKind('and', (raw, env) => {
  const [a, b] = (raw as SharedRowTest[]).map((s) => restoreRowTest(s, env)) as [RowTest, RowTest];
  return { selectRows: (batch) => bothSelect(a, b, batch) };
});

/** The static predicate AND the current dynamic one, recomposed when the dynamic one changes. */
class StaticAndDynamic extends DynamicFilter {
  #version = -1;
  #composed: ScanPredicate | null = null;
  constructor(
    readonly fixed: ScanPredicate,
    readonly dynamic: DynamicFilter | undefined,
  ) {
    super();
  }
  override current(): ScanPredicate | null {
    const d = this.dynamic;
    if (d === undefined) return this.fixed;
    if (d.version !== this.#version) {
      this.#version = d.version;
      const p = d.current();
      this.#composed = p === null ? this.fixed : andPredicates(this.fixed, p);
    }
    return this.#composed;
  }
  override get version(): number {
    return this.dynamic?.version ?? 0;
  }
  override published(): readonly ScanPredicate[] {
    return [this.fixed, ...(this.dynamic?.published() ?? [])];
  }
}

export class FilteredScan extends ScanWrapper {
  constructor(
    inner: Scan,
    readonly predicate: ScanPredicate,
  ) {
    super(inner);
  }
  batches(options: ScanOptions = {}): AsyncIterable<RecordBatch> {
    return this.inner.batches({ ...options, filter: new StaticAndDynamic(this.predicate, options.filter) });
  }
  /** The inner scan's containers that the static predicate AND `filter` may hold. */
  override estimateRows(filter?: DynamicFilter): number {
    return estimatedRows(this.inner, new StaticAndDynamic(this.predicate, filter));
  }
}
