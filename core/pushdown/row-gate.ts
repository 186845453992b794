/**
 * The gate of `pushdown.rowFilter: auto`: whether the next probe batch is worth a row-level test.
 *
 * Why a row test can lose. The probe scan feeds the join directly, so a row the test drops saves
 * the join's hash + probe of that row (~10-15 ns on 1M-key tables), while the test costs every row
 * it looks at (normalise, test, compact: ~8 ns) plus the gather of every row it keeps into a new
 * batch (~4 ns a column). Measured on the hash-join bench (bounds dropping half of 10M rows) the
 * test made the join ~25% slower. Break-even is around two thirds of the rows dropped, so:
 *
 *   test SAMPLE_ROWS rows; if they kept more than KEEP_LIMIT of them, skip the next PAUSE_ROWS rows
 *   (no test: every row kept, which is always safe), then sample again.
 *
 * A filter that drops most rows (sparse keys, a KeyRangeBitmap, a selective IN list) is never
 * paused; one that drops little costs 1/(1 + PAUSE_ROWS/SAMPLE_ROWS) ~ 6% of its full price, and
 * the periodic re-sample follows a probe whose selectivity changes (sorted input). Containers are
 * not affected: pruning happens before decoding and is always worth it.
 */

/** Rows judged together (at least one batch). */
export const SAMPLE_ROWS = 1 << 16;
/** A sample keeping more than this fraction of its rows pauses the test. */
export const KEEP_LIMIT = 1 / 3;
/** Rows passed through untested after a losing sample. */
export const PAUSE_ROWS = 16 * SAMPLE_ROWS;

export class RowFilterGate {
  /** Rows tested, and kept by the test, in the current sample. */
  #sampled = 0;
  #kept = 0;
  /** Rows still to pass untested. */
  #pause = 0;
  /** Totals, for metrics. */
  testedRows = 0;
  keptRows = 0;
  skippedRows = 0;

  /** Whether to test a batch of `rows` rows (false: keep them all untested). */
  shouldTest(rows: number): boolean {
    if (this.#pause <= 0) return true;
    this.#pause -= rows;
    this.skippedRows += rows;
    return false;
  }

  /** The test of a batch of `rows` kept `kept` of them. */
  observe(rows: number, kept: number): void {
    this.testedRows += rows;
    this.keptRows += kept;
    this.#sampled += rows;
    this.#kept += kept;
    if (this.#sampled < SAMPLE_ROWS) return;
    if (this.#kept > KEEP_LIMIT * this.#sampled) this.#pause = PAUSE_ROWS;
    this.#sampled = 0;
    this.#kept = 0;
  }

  /** e.g. `tested 131072 rows (kept 50.0%), skipped 1048576`. */
  summary(): string {
    const pct = this.testedRows === 0 ? '' : ` (kept ${((100 * this.keptRows) / this.testedRows).toFixed(1)}%)`;
    return `tested ${this.testedRows} rows${pct}, skipped ${this.skippedRows}`;
  }
}
