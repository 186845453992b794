/**
 * A summary of a build side too large to keep: for each key column, a build row holding its
 * smallest and one holding its largest key, among the rows with no NULL in any key column. The
 * `bounds` pushdown policy computes its per-column bounds from exactly these rows, so given the
 * summary's rows it publishes the same filter it would from the whole build side — which is what
 * the grace hash join (grace.ts) needs: a filter that covers every spilled partition, built
 * without holding them.
 *
 * Degenerate cases: a build whose every row has a NULL key keeps one such row (a summary of no
 * rows would read as an empty build, whose filter drops every probe row; this one publishes
 * bounds that keep no NULL-free row, and the composer decides about NULL keys, as in memory).
 *
 * Memory: a few rows per batch; past REDUCE_ROWS rows the summary is reduced to its own extremes.
 */
import type { RecordBatch } from 'apache-arrow';
import { concatBatches } from '../../core/arrow/gather.ts';
import { anyNullMask, normalizeKeys } from '../../core/keys/normalize.ts';
import type { KeyColumn, KeyKind } from '../../core/keys/types.ts';
import { projectBatch, takeRows } from '../../core/scan/batch-shape.ts';
import { extremeRows } from '../../core/scan/key-stats.ts';

const REDUCE_ROWS = 4096;

export class BuildKeySummary {
  readonly #columns: readonly string[];
  readonly #kinds: readonly KeyKind[];
  readonly #names: readonly string[];
  #held: RecordBatch[] = [];
  #heldRows = 0;

  constructor(columns: readonly string[], kinds: readonly KeyKind[]) {
    this.#columns = columns;
    this.#kinds = kinds;
    this.#names = [...new Set(columns)];
  }

  /** Notes `batch`'s extreme rows (`keys`: its normalised key columns, `nulls`: their NULL mask). */
  add(batch: RecordBatch, keys: readonly KeyColumn[], nulls: Uint8Array | null): void {
    if (batch.numRows === 0) return;
    const picked = extremesOf(keys, batch.numRows, nulls);
    this.#held.push(takeRows(projectBatch(batch, this.#names), picked));
    this.#heldRows += picked.length;
    if (this.#heldRows > REDUCE_ROWS) this.#reduce();
  }

  /** Rows in the summary (at least one once a row was added). */
  get rows(): number {
    this.#reduce();
    return this.#heldRows;
  }

  /** The summary's normalised key columns. */
  keys(): KeyColumn[] {
    this.#reduce();
    return this.#held.length === 0 ? [] : normalizeKeys(this.#held[0]!, this.#columns, this.#kinds);
  }

  #reduce(): void {
    if (this.#held.length <= 1) return;
    const all = concatBatches(this.#held, this.#held[0]!.schema);
    const keys = normalizeKeys(all, this.#columns, this.#kinds);
    const picked = extremesOf(keys, all.numRows, anyNullMask(keys));
    this.#held = [takeRows(all, picked)];
    this.#heldRows = picked.length;
  }
}

/** Rows holding some column's min or max among rows not skipped; row 0 when every row is skipped. */
function extremesOf(keys: readonly KeyColumn[], rows: number, skip: Uint8Array | null): Int32Array {
  const picked: number[] = [];
  for (const col of keys) {
    const e = extremeRows(col, rows, skip);
    if (e === null) continue;
    if (!picked.includes(e.minRow)) picked.push(e.minRow);
    if (!picked.includes(e.maxRow)) picked.push(e.maxRow);
  }
  if (picked.length === 0) picked.push(0);
  return Int32Array.from(picked.sort((a, b) => a - b));
}
