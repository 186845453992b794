/**
 * `SelectivityPause`: DuckDB's `SelectivityOptionalFilter` as a KeyFilter wrapper. A runtime
 * filter that keeps almost every row costs its probe for nothing, so DuckDB measures each one's
 * pass rate over the first vectors it filters and, when the rate is at least a threshold, stops
 * running it per row ("paused": every row is kept, which is always safe). Container pruning
 * (`mayContain`) is NEVER paused: DuckDB's `CheckStatistics` always delegates to the child.
 *
 * DuckDB v1.5.x (read at tag v1.5.5, d8cdaa33; unchanged since v1.5.0),
 * `src/planner/filter/selectivity_optional_filter.cpp` + `.hpp`:
 *  - per scan-thread state: tuples accepted / processed, vectors processed (a vector is
 *    STANDARD_VECTOR_SIZE = 2048 scanned rows); "processed" counts the rows entering the filter
 *    (those earlier filters kept), "accepted" those it kept;
 *  - after exactly `n_vectors_to_check` vectors, if accepted / processed >= threshold the filter is
 *    PAUSED_DUE_TO_HIGH_SELECTIVITY — for the rest of the scan: 1.5 never re-checks;
 *  - constants: min/max filters 0.75 over 30 vectors (`MIN_MAX_THRESHOLD`, `MIN_MAX_CHECK_N`),
 *    Bloom filters 0.25 over 75 vectors (`BF_THRESHOLD`, `BF_CHECK_N`).
 *
 * DuckDB main after 1.5 (commit 044a04a7, 2026-08-20,
 * `src/planner/filter/table_filter_selectivity_optional_function.cpp`, `table_filter_functions.cpp`)
 * re-checks paused filters: a window of VECTOR_PAUSE = 10 vectors, the check after
 * `n_vectors_to_check` (6) vectors, thresholds 0.9 (min/max) and 0.5 (Bloom); a pause lasts until
 * the window's vector count reaches `max(pause_multiplier, 1) * 10`, the multiplier growing by one
 * per pause and reset by a selective window, then the counts reset and the filter is ACTIVE again.
 * As written there, the multiplier is raised on every paused vector too (Update(0, 0) repeats the
 * check), so the resume point is never reached; `resume: true` models the evident intent — one
 * raise per pause: the k-th consecutive pause runs until the window holds 10 * k vectors, i.e. it
 * skips 10 * k - n_vectors_to_check vectors (4, 14, 24, ... with 6), then a fresh window is
 * measured; a window that is selective enough resets k to 0.
 *
 * joinlab: a vector is `vectorRows` consecutive row positions of a batch (each batch starts a
 * new vector, as each scanned chunk does in DuckDB); a vector's rows are tested as one slice, so
 * the state changes only at vector boundaries, exactly as DuckDB's per-vector `Update`. One wrapper
 * instance is one thread-local state (a partition's filter is tested by one probe scan).
 */
import type { KeyColumn } from '../../../core/keys/types.ts';
import { rowPartOf, type KeyFilter, type SharedKeyFilter } from '../../../core/pushdown/policy.ts';
import { registerKeyFilterKind, restoreKeyFilter, shareFilter } from '../../../core/pushdown/shared-filters.ts';
import type { KeyValue } from '../../../core/scan/key-stats.ts';
import type { ColumnStats } from '../../../core/scan/scan.ts';

export interface PauseRule {
  /** Pause when accepted / processed >= this (0..1]. */
  readonly threshold: number;
  /** Vectors measured before the decision (DuckDB's `n_vectors_to_check`). */
  readonly checkVectors: number;
  /** Rows per vector (DuckDB's STANDARD_VECTOR_SIZE, 2048). */
  readonly vectorRows: number;
  /** false: DuckDB 1.5 (a pause is final); true: main's growing pauses of 10 * k vectors. */
  readonly resume: boolean;
}

/** DuckDB main's VECTOR_PAUSE: the measuring window, and the unit of a pause's length. */
export const VECTOR_PAUSE = 10;

/** The DuckDB v1.5.x constants (selectivity_optional_filter.hpp). */
export const DUCKDB_MIN_MAX = { threshold: 0.75, checkVectors: 30 } as const;
export const DUCKDB_BLOOM = { threshold: 0.25, checkVectors: 75 } as const;
export const STANDARD_VECTOR_SIZE = 2048;

export class SelectivityPause implements KeyFilter {
  readonly description: string;
  readonly label: string;
  readonly needsHashes: boolean;
  readonly #child: KeyFilter;
  readonly #rule: PauseRule;
  // state (DuckDB's SelectivityStats)
  #accepted = 0;
  #processed = 0;
  #vectors = 0;
  #paused = false;
  #multiplier = 0;
  /** Vectors skipped while paused, over the wrapper's life (for tests and metrics). */
  skippedVectors = 0;
  /** Times the filter was paused. */
  pauses = 0;
  #ids = new Int32Array(0);
  #rowPart: KeyFilter | null | undefined;

  constructor(child: KeyFilter, rule: PauseRule) {
    if (!(rule.threshold > 0 && rule.threshold <= 1)) throw new RangeError(`pause threshold must be in (0, 1], got ${rule.threshold}`);
    if (!(Number.isInteger(rule.checkVectors) && rule.checkVectors > 0)) throw new RangeError(`checkVectors must be a positive integer, got ${rule.checkVectors}`);
    if (!(Number.isInteger(rule.vectorRows) && rule.vectorRows > 0)) throw new RangeError(`vectorRows must be a positive integer, got ${rule.vectorRows}`);
    if (rule.resume && rule.checkVectors >= VECTOR_PAUSE) {
      throw new RangeError(`with resume, checkVectors must be below the ${VECTOR_PAUSE}-vector window (DuckDB asserts it), got ${rule.checkVectors}`);
    }
    this.#child = child;
    this.#rule = rule;
    this.needsHashes = child.needsHashes;
    const pct = Math.round(rule.threshold * 100);
    this.description = `OPTIONAL(${child.description}; paused at >= ${pct}% kept after ${rule.checkVectors} vectors${rule.resume ? ', re-checked' : ''})`;
    this.label = `${child.label ?? child.description}~${pct}%`;
  }

  get child(): KeyFilter {
    return this.#child;
  }

  /** Whether the filter is currently skipped. */
  get paused(): boolean {
    return this.#paused;
  }

  mayContain(stats: readonly (ColumnStats | undefined)[]): boolean {
    return this.#child.mayContain(stats);
  }

  exactValues(): readonly KeyValue[] | null {
    return this.#child.exactValues?.() ?? null;
  }

  perRow(): KeyFilter | null {
    if (this.#rowPart === undefined) {
      const part = rowPartOf(this.#child);
      this.#rowPart = part === null ? null : part === this.#child ? this : new SelectivityPause(part, this.#rule);
    }
    return this.#rowPart;
  }

  test(keys: readonly KeyColumn[], hashes: Uint32Array | null, rows: Int32Array | null, keep: Uint8Array): void {
    const n = keys.length > 0 ? keys[0]!.length : 0;
    const V = this.#rule.vectorRows;
    if (rows === null) {
      if (n <= V) return this.#vector(keys, hashes, null, 0, n, keep);
      if (this.#ids.length < n) {
        this.#ids = new Int32Array(n);
        for (let i = 0; i < n; i++) this.#ids[i] = i;
      }
      for (let s = 0; s < n; s += V) {
        const e = Math.min(n, s + V);
        this.#vector(keys, hashes, this.#ids.subarray(s, e), s, e, keep);
      }
      return;
    }
    // rows ascending: one slice per vector of row positions [k * V, (k + 1) * V)
    let i = 0;
    while (i < rows.length) {
      const k = Math.floor(rows[i]! / V);
      const end = (k + 1) * V;
      let j = i + 1;
      while (j < rows.length && rows[j]! < end) j++;
      this.#vector(keys, hashes, rows.subarray(i, j), 0, 0, keep);
      i = j;
    }
  }

  /** One vector: its rows are `slice`, or (slice null) every row in [s, e). */
  #vector(keys: readonly KeyColumn[], hashes: Uint32Array | null, slice: Int32Array | null, s: number, e: number, keep: Uint8Array): void {
    if (this.#paused) {
      this.skippedVectors++;
      if (this.#rule.resume) this.#update(0, 0);
      return;
    }
    const before = slice === null ? liveIn(keep, s, e) : liveAt(keep, slice);
    if (before === 0) return; // nothing enters: DuckDB never calls the filter on an empty selection
    this.#child.test(keys, hashes, slice, keep);
    const after = slice === null ? liveIn(keep, s, e) : liveAt(keep, slice);
    this.#update(after, before);
  }

  #update(accepted: number, processed: number): void {
    const rule = this.#rule;
    if (!rule.resume) {
      // v1.5: measure the first checkVectors vectors, decide once
      if (this.#vectors >= rule.checkVectors) return;
      this.#accepted += accepted;
      this.#processed += processed;
      this.#vectors++;
      if (this.#vectors === rule.checkVectors && this.#selectivity() >= rule.threshold) this.#pause();
      return;
    }
    // main (intended): a window of VECTOR_PAUSE * max(multiplier, 1) vectors
    this.#vectors++;
    this.#accepted += accepted;
    this.#processed += processed;
    if (this.#vectors === Math.max(this.#multiplier, 1) * VECTOR_PAUSE) {
      this.#vectors = 0;
      this.#accepted = 0;
      this.#processed = 0;
      this.#paused = false;
    } else if (!this.#paused && this.#vectors >= rule.checkVectors) {
      if (this.#selectivity() >= rule.threshold) {
        this.#pause();
        this.#multiplier++;
      } else this.#multiplier = 0;
    }
  }

  #pause(): void {
    this.#paused = true;
    this.pauses++;
  }

  #selectivity(): number {
    return this.#processed === 0 ? 1 : this.#accepted / this.#processed;
  }

  /**
   * The child and the rule; a worker's copy measures its own vectors from the start (it may test
   * rows this one would have skipped while paused — only the child decides which rows drop, so
   * that is as sound as testing every row).
   */
  share(): SharedKeyFilter | null {
    const child = shareFilter(this.#child);
    return child === null ? null : { kind: 'selectivity-pause', state: { child, rule: this.#rule } };
  }
}

registerKeyFilterKind('selectivity-pause', (raw, env) => {
  const s = raw as { readonly child: SharedKeyFilter; readonly rule: PauseRule };
  return new SelectivityPause(restoreKeyFilter(s.child, env), s.rule);
});

function liveIn(keep: Uint8Array, s: number, e: number): number {
  let c = 0;
  for (let r = s; r < e; r++) c += (-keep[r]!) >>> 31;
  return c;
}

function liveAt(keep: Uint8Array, rows: Int32Array): number {
  let c = 0;
  for (let i = 0; i < rows.length; i++) c += (-keep[rows[i]!]!) >>> 31;
  return c;
}
