/**
 * Several dynamic filters on one scan (issue 14, join trees). In a tree of joins the scan that
 * produces a probe-side key column may sit several joins below the join that builds the filter
 * for it: a star query `fact ⋈ d1 ⋈ d2 ⋈ d3` probes the fact scan with d1's keys, and d2's and
 * d3's filters are about fact columns too. Each join publishes into its own `DynamicFilter`; the
 * scan is handed a `StackedFilter` over all of them, and a container (a row) must pass every one
 * (rows are tested as a cascade: core/scan/adaptive-filter.ts with the parts' order kept).
 *
 * Why that is sound: each published predicate answers "maybe" for every row that can survive its
 * own join; the planner attaches an upper join's filter to a scan only when the column passes
 * unchanged through the joins between them and none of those can turn a dropped row into an
 * added one (adapters/sql/join-tree.ts says which). A row failing any attached predicate then has
 * no output row left, so dropping it at the scan changes nothing.
 *
 * `renamedFilter` maps a predicate about an upper join's input column names onto the scan's own
 * names (a join's output may call a column `k_right`); it publishes nothing until the predicate
 * names only columns the map knows, so a filter about another scan's columns is never applied
 * here.
 *
 * Degenerate cases: no part published -> null (the scan keeps everything); one part -> that
 * predicate itself (no wrapper).
 */
import { Schema, type Field, type RecordBatch } from 'apache-arrow';
import { makeRecordBatch } from '../arrow/gather.ts';
import { AdaptiveStackedFilter } from './adaptive-filter.ts';
import { DynamicFilter, type ColumnStats, type ContainerStats, type ExactValueSet, type ScanPredicate, type SharedRowTest } from './scan.ts';
import { registerRowTestKind, restoreRowTest, type RowTest } from './shared-row-test.ts';

/**
 * The conjunction of every part's current predicate, recomposed when any part publishes, tested as
 * a cascade in the parts' order: each part only on the rows the parts before it kept (the first
 * join's filter is usually the most selective one, so the others test few rows).
 */
export class StackedFilter extends AdaptiveStackedFilter {
  constructor(parts: readonly DynamicFilter[]) {
    super(parts, [], { reorder: false });
  }
}

/**
 * `source`'s predicate over this scan's column names: `names` maps a name the predicate uses to
 * the scan's name. null while the predicate names a column outside the map.
 */
export function renamedFilter(source: DynamicFilter, names: ReadonlyMap<string, string>): DynamicFilter {
  return new RenamedFilter(source, names);
}

class RenamedFilter extends DynamicFilter {
  #seen = -1;
  #renamed: ScanPredicate | null = null;
  constructor(
    readonly source: DynamicFilter,
    readonly names: ReadonlyMap<string, string>,
  ) {
    super();
  }
  override get version(): number {
    return this.source.version;
  }
  override current(): ScanPredicate | null {
    if (this.source.version !== this.#seen) {
      this.#seen = this.source.version;
      const p = this.source.current();
      this.#renamed = p === null || !p.columns.every((c) => this.names.has(c)) ? null : renamePredicate(p, this.names);
    }
    return this.#renamed;
  }
  override publish(): void {
    throw new RangeError('a renamed filter follows its source; publish into the source');
  }
}

/** `p` reading the scan's columns `names.get(c)` wherever it read `c`. */
function renamePredicate(p: ScanPredicate, names: ReadonlyMap<string, string>): ScanPredicate {
  if (p.columns.every((c) => names.get(c) === c)) return p;
  return {
    description: p.description,
    label: p.label ?? p.description,
    columns: p.columns.map((c) => names.get(c)!),
    mayContain(stats: ContainerStats): boolean {
      const view: ContainerStats = {
        index: stats.index,
        numRows: stats.numRows,
        bytes: stats.bytes,
        column: (name: string): ColumnStats | undefined => stats.column(names.get(name) ?? name),
      };
      return p.mayContain(view);
    },
    selectRows: renamedRows(p, p.columns, names),
    exactSet(): ExactValueSet | null {
      const s = p.exactSet?.() ?? null;
      return s === null ? null : { ...s, column: names.get(s.column) ?? s.column };
    },
    rowTestSummary: () => p.rowTestSummary?.() ?? '',
    shareRowTest(): SharedRowTest | null {
      const inner = p.shareRowTest?.() ?? null;
      return inner === null ? null : { kind: 'renamed', state: { inner, columns: p.columns, names } };
    },
  };
}

/** `test.selectRows` over a batch of the scan's columns, handed `test`'s own `columns` under its names (no copy). */
function renamedRows(test: RowTest, columns: readonly string[], names: ReadonlyMap<string, string>): (batch: RecordBatch) => Int32Array | null {
  let schemaOf: Schema | null = null;
  let viewSchema: Schema | null = null;
  let indices: number[] = [];
  return (batch) => {
    if (schemaOf !== batch.schema) {
      schemaOf = batch.schema;
      indices = columns.map((c) => batch.schema.fields.findIndex((f) => f.name === names.get(c)));
      const fields: Field[] = indices.map((i, k) => batch.schema.fields[i]!.clone({ name: columns[k]! }));
      viewSchema = new Schema(fields);
    }
    const datas = indices.map((i) => batch.data.children[i]!);
    return test.selectRows(makeRecordBatch(viewSchema!, datas, batch.numRows));
  };
}

registerRowTestKind('renamed', (raw, env) => {
  const s = raw as { readonly inner: SharedRowTest; readonly columns: readonly string[]; readonly names: ReadonlyMap<string, string> };
  return { selectRows: renamedRows(restoreRowTest(s.inner, env), s.columns, s.names) };
});
