/**
 * Several filters on one scan, applied as a cascade (each on the rows the ones before it kept),
 * by default in the order that costs least (LIP, Zhu et al., PVLDB 10(8)
 * 2017, "Looking Ahead Makes Query Plans Robust", section 4: filters ordered by observed
 * selectivity, re-ordered as the scan goes). Each filter's pass rate is counted over the rows it
 * tested; per batch the filters run from the lowest rate up, each on the rows the ones before it
 * kept — so the most selective filter sees every row and the others see few.
 *
 * Semantics are `StackedFilter`'s: a container or row is kept only if every part keeps it (the
 * order changes the cost, never the answer). Containers ask every part (`mayContain` is cheap).
 * A later filter tests only survivors: while at least half of the batch survives it is tested on
 * the whole batch and the two selections intersected (a gather would cost more than it saves);
 * below that the survivors' columns are gathered first.
 *
 * Per part it reports rows tested and rows dropped (`partCounts`), which is what a researcher
 * reads to see which dimension's filter did the work.
 */
import { Schema, type RecordBatch } from 'apache-arrow';
import { gatherColumns, makeRecordBatch, RowSource } from '../arrow/gather.ts';
import { intersectRows } from '../selection.ts';
import './filtered-scan.ts'; // registers the `and` row-test kind shareRowTest builds
import { DynamicFilter, type ContainerStats, type ScanPredicate, type SharedRowTest } from './scan.ts';

export interface PartCounts {
  tested: number;
  kept: number;
}

export class AdaptiveStackedFilter extends DynamicFilter {
  #seen = -1;
  #composed: ScanPredicate | null = null;
  /** Counts per part (same index as `parts`), over every batch of every read. */
  readonly partCounts: PartCounts[];
  /**
   * `counts[i]`, when given, is where part i counts (e.g. an object that outlives this read).
   * `reorder: false` keeps the parts' order (each still tests only the rows the ones before it
   * kept): the cascade without LIP's ordering, so an experiment can tell the two apart.
   */
  constructor(
    readonly parts: readonly DynamicFilter[],
    counts: readonly (PartCounts | undefined)[] = [],
    readonly options: { readonly reorder: boolean } = { reorder: true },
  ) {
    super();
    this.partCounts = parts.map((_, i) => counts[i] ?? { tested: 0, kept: 0 });
  }
  override get version(): number {
    let v = 0;
    for (const p of this.parts) v += p.version;
    return v;
  }
  override current(): ScanPredicate | null {
    const v = this.version;
    if (v !== this.#seen) {
      this.#seen = v;
      const live: { p: ScanPredicate; counts: PartCounts }[] = [];
      this.parts.forEach((part, i) => {
        const p = part.current();
        if (p !== null) live.push({ p, counts: this.partCounts[i]! });
      });
      this.#composed = live.length === 0 ? null : live.length === 1 ? counted(live[0]!.p, live[0]!.counts) : new AdaptivePredicate(live, this.options.reorder);
    }
    return this.#composed;
  }
  override published(): readonly ScanPredicate[] {
    return this.parts.flatMap((p) => p.published());
  }
  override publish(): void {
    throw new RangeError('an AdaptiveStackedFilter is composed of other filters; publish into one of its parts');
  }
}

/** `p` counting the rows it tests and keeps. */
function counted(p: ScanPredicate, counts: PartCounts): ScanPredicate {
  return {
    ...bind(p),
    selectRows(batch: RecordBatch): Int32Array | null {
      const sel = p.selectRows(batch);
      counts.tested += batch.numRows;
      counts.kept += sel === null ? batch.numRows : sel.length;
      return sel;
    },
  };
}

/** `p`'s members bound to it (a spread copies fields, not prototype methods). */
function bind(p: ScanPredicate): ScanPredicate {
  return {
    description: p.description,
    label: p.label ?? p.description,
    columns: p.columns,
    mayContain: (s) => p.mayContain(s),
    selectRows: (b) => p.selectRows(b),
    exactSet: () => p.exactSet?.() ?? null,
    rowTestSummary: () => p.rowTestSummary?.() ?? '',
    shareRowTest: () => p.shareRowTest?.() ?? null,
  };
}

/** A part's estimated pass rate (Laplace-smoothed, so an untested part sorts in the middle). */
function passRate(c: PartCounts): number {
  return (c.kept + 1) / (c.tested + 2);
}

class AdaptivePredicate implements ScanPredicate {
  readonly description: string;
  readonly label: string;
  readonly columns: readonly string[];
  readonly #order: number[];
  constructor(
    readonly parts: readonly { readonly p: ScanPredicate; readonly counts: PartCounts }[],
    readonly reorder: boolean,
  ) {
    this.description = parts.map((x) => `(${x.p.description})`).join(' AND ');
    this.label = `${reorder ? 'adaptive' : 'cascade'}[${parts.map((x) => x.p.label ?? x.p.description).join(' + ')}]`;
    this.columns = [...new Set(parts.flatMap((x) => x.p.columns))];
    this.#order = parts.map((_, i) => i);
  }
  mayContain(stats: ContainerStats): boolean {
    for (const x of this.parts) if (!x.p.mayContain(stats)) return false;
    return true;
  }
  exactSet() {
    for (const x of this.parts) {
      const s = x.p.exactSet?.() ?? null;
      if (s !== null) return s;
    }
    return null;
  }
  selectRows(batch: RecordBatch): Int32Array | null {
    const order = this.#order;
    if (this.reorder) order.sort((i, j) => passRate(this.parts[i]!.counts) - passRate(this.parts[j]!.counts));
    const n = batch.numRows;
    let rows: Int32Array | null = null;
    for (const i of order) {
      if (rows !== null && rows.length === 0) break;
      const { p, counts } = this.parts[i]!;
      if (rows === null || rows.length * 2 >= n) {
        const sel = p.selectRows(batch);
        counts.tested += rows === null ? n : rows.length;
        if (sel === null) {
          counts.kept += rows === null ? n : rows.length;
          continue;
        }
        rows = rows === null ? sel : intersectRows(rows, sel);
        counts.kept += rows.length;
      } else {
        const sub = gatherRows(batch, p.columns, rows);
        const sel = p.selectRows(sub);
        counts.tested += rows.length;
        if (sel === null) {
          counts.kept += rows.length;
          continue;
        }
        const next = new Int32Array(sel.length);
        for (let k = 0; k < sel.length; k++) next[k] = rows[sel[k]!]!;
        rows = next;
        counts.kept += rows.length;
      }
    }
    return rows;
  }
  /**
   * The parts' shared row tests as nested `and`s (core/scan/filtered-scan.ts registers the kind),
   * for worker threads; a part that cannot cross threads is left out there (keeping more rows is
   * sound), and with none the workers keep every row.
   */
  shareRowTest(): SharedRowTest | null {
    const shared = this.parts.map((x) => x.p.shareRowTest?.() ?? null).filter((t): t is SharedRowTest => t !== null);
    if (shared.length <= 1) return shared[0] ?? null;
    return shared.reduce((acc, t) => ({ kind: 'and', state: [acc, t] }));
  }
  rowTestSummary(): string {
    return this.parts.map((x) => `${x.p.label ?? x.p.description}: ${x.counts.tested - x.counts.kept} of ${x.counts.tested} dropped`).join('; ');
  }
}

/** The rows `rows` of `columns` of `batch`, as a batch of those columns only. */
function gatherRows(batch: RecordBatch, columns: readonly string[], rows: Int32Array): RecordBatch {
  const idx = columns.map((c) => {
    const i = batch.schema.fields.findIndex((x) => x.name === c);
    if (i < 0) throw new RangeError(`filter column '${c}' is not in the batch`);
    return i;
  });
  const schema = new Schema(idx.map((i) => batch.schema.fields[i]!));
  return makeRecordBatch(schema, gatherColumns(new RowSource([batch], batch.schema), rows, 0, rows.length, idx), rows.length);
}
