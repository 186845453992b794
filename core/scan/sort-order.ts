/**
 * Declared sort orders (`Scan.sortedOn`), from whoever declares them: checked against a schema
 * when declared, and checked against the rows where rows are produced under the declaration.
 *
 * Why both: a declaration is a claim the sort-merge join relies on, and every scan may only claim
 * what its metadata (or its creator) says. `resolveSortedOn` refuses a declaration that cannot
 * mean anything — an unknown column (`MissingColumnError`), a column listed twice or a
 * non-boolean flag (`UsageError`), a type without a key order (`UnsupportedTypeError`: nested,
 * time, interval, … columns cannot be sort keys) — before any row is read, so a typo fails at
 * the call that made it rather than deep inside a join. `SortOrderCheck` is for a producer that
 * writes a declaration down (the Parquet writer's `sorting_columns`): it checks every row against
 * its predecessor, across batches, and refuses the first one out of order, so joinlab never writes
 * a claim its own rows contradict. Consumers still verify what they read (a file from elsewhere
 * may lie).
 *
 * The order is DuckDB's, as everywhere (core/keys/order.ts): NaN above every number, -0.0 = 0.0,
 * strings and binary byte-wise, NULL placement independent of the direction; the default is
 * ASC NULLS LAST.
 */
import type { RecordBatch, Schema } from 'apache-arrow';
import { MissingColumnError, UnsortedInputError, UnsupportedTypeError, UsageError } from '../errors.ts';
import { normalizeKeys } from '../keys/normalize.ts';
import { isSorted, makeSortComparator } from '../keys/order.ts';
import { keyKindOf } from '../keys/resolve.ts';
import type { KeyColumn, KeyKind } from '../keys/types.ts';
import type { ScanSortColumn } from './scan.ts';

/** A declared sort column as a caller writes it: the flags default to ASC NULLS LAST. */
export interface SortColumnInput {
  readonly column: string;
  readonly descending?: boolean;
  readonly nullsFirst?: boolean;
}

/**
 * `input` checked against `schema` and with its defaults filled in (frozen); `undefined` for an
 * absent or empty declaration ("order unknown"). `where` names the declaration in errors.
 */
export function resolveSortedOn(schema: Schema, input: readonly SortColumnInput[] | undefined, where: string): readonly ScanSortColumn[] | undefined {
  if (input === undefined) return undefined;
  if (!Array.isArray(input)) throw new UsageError(`sortedOn of ${where} must be a list of {column, descending?, nullsFirst?}`);
  if (input.length === 0) return undefined;
  const names = schema.fields.map((f) => f.name);
  const seen = new Set<string>();
  const out: ScanSortColumn[] = [];
  for (const c of input) {
    if (c === null || typeof c !== 'object' || typeof c.column !== 'string') {
      throw new UsageError(`sortedOn of ${where}: each entry must be {column, descending?, nullsFirst?}, got ${JSON.stringify(c)}`);
    }
    for (const flag of ['descending', 'nullsFirst'] as const) {
      if (c[flag] !== undefined && typeof c[flag] !== 'boolean') {
        throw new UsageError(`sortedOn of ${where}: '${flag}' of column '${c.column}' must be a boolean, got ${JSON.stringify(c[flag])}`);
      }
    }
    const field = schema.fields.find((f) => f.name === c.column);
    if (field === undefined) throw new MissingColumnError(c.column, `${where} (sortedOn)`, names);
    if (seen.has(c.column)) throw new UsageError(`sortedOn of ${where} lists column '${c.column}' twice`);
    seen.add(c.column);
    try {
      keyKindOf(field.type, c.column);
    } catch (e) {
      if (e instanceof UnsupportedTypeError) throw new UnsupportedTypeError(c.column, String(field.type), `as a sort column (sortedOn of ${where})`);
      throw e;
    }
    out.push(Object.freeze({ column: c.column, descending: c.descending === true, nullsFirst: c.nullsFirst === true }));
  }
  return Object.freeze(out);
}

/** `k ASC NULLS LAST, v DESC NULLS FIRST`, for messages and reports. */
export function describeSortOrder(order: readonly ScanSortColumn[]): string {
  return order.map((c) => `${c.column} ${c.descending ? 'DESC' : 'ASC'} NULLS ${c.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ');
}

/**
 * Checks that batches, in the order given, follow `order` (resolved against `schema`): within
 * each batch and from each batch's last row to the next one's first. Keeps the previous batch's
 * last row only (its normalised keys), so it streams.
 */
export class SortOrderCheck {
  readonly #columns: readonly string[];
  readonly #kinds: readonly KeyKind[];
  readonly #order: readonly ScanSortColumn[];
  readonly #where: string;
  #last: KeyColumn[] | null = null;
  #rows = 0;

  constructor(schema: Schema, order: readonly ScanSortColumn[], where: string) {
    this.#order = order;
    this.#where = where;
    this.#columns = order.map((c) => c.column);
    this.#kinds = order.map((c) => {
      const field = schema.fields.find((f) => f.name === c.column);
      if (field === undefined) throw new MissingColumnError(c.column, `${where} (sortedOn)`, schema.fields.map((f) => f.name));
      return keyKindOf(field.type, c.column);
    });
  }

  /** Rows checked so far. */
  get rows(): number {
    return this.#rows;
  }

  /** Throws an `UnsortedInputError` naming the first row (counted over all batches) out of order. */
  check(batch: RecordBatch): void {
    const n = batch.numRows;
    if (n === 0) return;
    const cols = normalizeKeys(batch, this.#columns, this.#kinds);
    if (this.#last !== null && makeSortComparator(this.#last, cols, this.#order).compare(0, 0) > 0) this.#fail(this.#rows);
    if (!isSorted(cols, this.#order)) {
      const cmp = makeSortComparator(cols, cols, this.#order).compare;
      for (let i = 1; i < n; i++) if (cmp(i - 1, i) > 0) this.#fail(this.#rows + i);
    }
    this.#last = normalizeKeys(batch.slice(n - 1, n), this.#columns, this.#kinds);
    this.#rows += n;
  }

  #fail(row: number): never {
    throw new UnsortedInputError(this.#where, `on (${describeSortOrder(this.#order)}), row ${row} sorts before row ${row - 1}`);
  }
}
