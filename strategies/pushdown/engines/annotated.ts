/**
 * A KeyFilter under another description / label, optionally reduced to its row test: how an engine
 * policy says which of its rules it took (`... [trino: value set, 3 <= 1000 distinct ...]`) without
 * changing what the filter passes.
 *
 * Invariants: `test` is the inner filter's (so a dropped row is exactly one the inner drops);
 * `rowsOnly` makes `mayContain` always true and removes `exactValues` — for an engine whose
 * filter is evaluated above the scan and never reaches it (Spark's IN-subquery runtime filter is
 * rewritten into a left-semi join), so containers must not be pruned by it. Saying "maybe" more
 * often can never drop a match. Delegation is explicit (the building blocks keep their state in
 * `#private` fields, which a prototype-chained wrapper could not reach).
 */
import { rowPartOf, type KeyFilter, type SharedKeyFilter } from '../../../core/pushdown/policy.ts';
import { shareFilter } from '../../../core/pushdown/shared-filters.ts';
import type { KeyColumn } from '../../../core/keys/types.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';
import type { KeyValue } from '../../../core/scan/key-stats.ts';

export interface AnnotateOptions {
  readonly description: string;
  readonly label?: string;
  /** The filter never reaches the scan: no container pruning, no exact value set. */
  readonly rowsOnly?: boolean;
}

export class AnnotatedFilter implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes: boolean;
  readonly #rowsOnly: boolean;

  constructor(
    readonly inner: KeyFilter,
    o: AnnotateOptions,
  ) {
    this.description = o.description;
    this.label = o.label ?? inner.label ?? inner.description;
    this.needsHashes = inner.needsHashes;
    this.#rowsOnly = o.rowsOnly ?? false;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    return this.#rowsOnly || this.inner.mayContain(stats);
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    this.inner.test(keys, hashes, rows, keep);
  }

  perRow(): KeyFilter | null {
    return rowPartOf(this.inner);
  }

  /** `test` is the inner filter's: a worker runs the inner filter itself. */
  share(): SharedKeyFilter | null {
    return shareFilter(this.inner);
  }

  exactValues(): readonly KeyValue[] | null {
    return this.#rowsOnly ? null : (this.inner.exactValues?.() ?? null);
  }
}

export function annotate(inner: KeyFilter, o: AnnotateOptions): KeyFilter {
  return new AnnotatedFilter(inner, o);
}
